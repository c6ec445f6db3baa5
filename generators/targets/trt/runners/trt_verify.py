"""opforge verify's runners of the trt target's implementations, imported by verify's runner.py
(the harness, importable as opforge_runner): TRT (the C++ plugin library, through opforge's C++
runner) and TRTPython (the Python plugins, through tensorrt.plugin). Written by opforge; not vendor
code.
"""

import os
import sys
import tempfile

from opforge_runner import NotTaken, Unavailable, load, short


# TensorRT DataType values (NvInferRuntimeBase.h's enum) of the torch dtypes TensorRT has.
TRT_DTYPES = {"float32": 0, "float16": 1, "int8": 2, "int32": 3, "bool": 4, "uint8": 5, "bfloat16": 7, "int64": 8}
# PluginFieldType values of the field encodings (ONNX's: int32, float32, NUL-terminated chars).
FIELD_TYPES = {"float32": 1, "int32": 5, "char": 6}


def trt_dtype(spec):
    d = TRT_DTYPES.get(spec["dtype"])
    if d is None:
        raise NotTaken("TensorRT has no %s tensors" % spec["dtype"])
    return d


def field_bytes(field, value):
    """The PluginField (type, length, bytes) the ONNX parser would make of a param value."""
    import struct
    if field["type"] == "char":
        b = str(value).encode() + b"\0"
        return FIELD_TYPES["char"], len(b), b
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if field["type"] == "float32":
        return FIELD_TYPES["float32"], len(values), struct.pack("<%df" % len(values), *[float(v) for v in values])
    return FIELD_TYPES["int32"], len(values), struct.pack("<%di" % len(values), *[int(v) for v in values])


def upper_shapes(case):
    """The outputs' shapes as a runtime allocates them: a data-dependent output at its upper bound.
    A dim computed from a size (not a size itself) cannot be cut back, so such a case is not taken."""
    for spec in case["outputs"]:
        if spec.get("shape") is None and "?" in spec.get("size_dims", []):
            raise NotTaken("output %s has a dim computed from a data-dependent size; verify takes dims that are a size" % spec["name"])
    return [spec["shape"] if spec.get("shape") is not None else spec["upper"] for spec in case["outputs"]]


def actual_shape(spec, size_of):
    """A data-dependent output's shape from the sizes its size tensors hold: the kernel writes the
    actual tensor, row-major, at the front of the buffer allocated for the upper bound."""
    for n, u in zip(spec["size_dims"], spec["upper"]):
        if n and not 0 <= size_of[n] <= u:
            raise RuntimeError("size tensor %s is %d, outside [0, %d]" % (n, size_of[n], u))
    return [size_of[n] if n else u for n, u in zip(spec["size_dims"], spec["upper"])]


def numel(shape):
    count = 1
    for e in shape:
        count *= e
    return count


def raw_bytes(torch, x):
    return x.detach().contiguous().cpu().reshape(-1).view(torch.uint8).numpy().tobytes()


class TRT:
    """The TensorRT C++ plugin library loaded as TensorRT loads it, by opforge's C++ runner: one
    process per case (getCreators, createPlugin from fields, configurePlugin, onShapeChange, enqueue
    on device buffers); inputs and outputs travel as files of raw bytes."""

    def __init__(self, torch, job):
        import subprocess
        self.torch, self.subprocess = torch, subprocess
        self.library, self.runner = job["impl"]["library"], job["impl"]["runner"]

    def run(self, op, case, inputs):
        torch = self.torch
        t = op["trt"]
        with tempfile.TemporaryDirectory() as d:
            lines = ["plugin %s %s %s" % (t["name"], t["namespace"] or "-", t["version"])]
            values = {p["name"]: p["value"] for p in case["params"]}
            for f in t["fields"] or []:
                ftype, length, data = field_bytes(f, values[f["ident"]])
                lines.append("field %s %d %d %s" % (f["name"], ftype, length, data.hex() or "-"))
            for i, (spec, x) in enumerate(zip(case["inputs"], inputs)):
                if x is None:
                    continue  # an absent trailing optional input: the node has fewer inputs
                path = os.path.join(d, "in%d" % i)
                with open(path, "wb") as fh:
                    fh.write(raw_bytes(torch, x))
                lines.append("in %d %d %s %s" % (trt_dtype(spec), x.dim(), " ".join(str(s) for s in x.shape), path))
            outs = []
            for i, (spec, shape) in enumerate(zip(case["outputs"], upper_shapes(case))):
                path = os.path.join(d, "out%d" % i)
                outs.append(path)
                lines.append("out %d %d %s %s" % (trt_dtype(spec), len(shape), " ".join(str(s) for s in shape), path))
            # One kINT32 0-D size tensor per data-dependent size, after the outputs (the trt layout).
            sizes = []
            for i, name in enumerate(case.get("sizes") or []):
                path = os.path.join(d, "size%d" % i)
                sizes.append(path)
                lines.append("out %d 0  %s" % (TRT_DTYPES["int32"], path))
            req = os.path.join(d, "request")
            with open(req, "w") as fh:
                fh.write("\n".join(lines) + "\n")
            p = self.subprocess.run([self.runner, self.library, req], capture_output=True, text=True, timeout=120)
            if p.returncode == 4:
                raise NotTaken(p.stdout.strip())
            if p.returncode != 0:
                raise RuntimeError((p.stderr.strip() or p.stdout.strip() or "the runner exited %d" % p.returncode)[:800])
            size_of = {}
            for name, path in zip(case.get("sizes") or [], sizes):
                with open(path, "rb") as fh:
                    size_of[name] = int.from_bytes(fh.read()[:4], "little", signed=True)
            got = []
            for spec, path in zip(case["outputs"], outs):
                with open(path, "rb") as fh:
                    data = bytearray(fh.read())
                dt = getattr(torch, spec["dtype"])
                shape = spec.get("shape")
                if shape is None:
                    shape = actual_shape(spec, size_of)
                    data = data[:numel(shape) * torch.tensor([], dtype=dt).element_size()]
                x = torch.frombuffer(data, dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)
                got.append(x.view(dt).reshape(shape) if dt != torch.bool else x.reshape(shape).bool())
            return got


def dim_value(e):
    """The integer of an evaluated TensorRT dimension expression (the stand-in core's builder, or
    tensorrt.plugin's wrappers around one). A size tensor's expression gives its upper bound, what
    TensorRT allocates for the outputs it sizes."""
    size = getattr(e, "size", None)
    if isinstance(size, tuple) and len(size) == 3:
        return int(size[2])
    for attr in ("value", "expr"):
        if hasattr(e, attr) and not callable(getattr(e, attr)):
            return dim_value(getattr(e, attr))
    if callable(e):
        return dim_value(e())
    if hasattr(e, "get_constant_value"):
        return int(e.get_constant_value())
    return int(e)


class TRTPython:
    """The TensorRT Python plugins (tensorrt.plugin) driven as TensorRT drives them: created from
    fields through the registered creator, then the JIT implementation through the plugin's enqueue,
    or the ahead-of-time implementation's Triton kernel (aot_impl's PTX, launched through the CUDA
    driver with the launch parameters and extra arguments aot_impl returns)."""

    def __init__(self, torch, job):
        core = os.environ.get("OPFORGE_VERIFY_TRT_CORE")
        if core:
            sys.path.insert(0, core)
        try:
            import tensorrt as trt
            import tensorrt.plugin as trtp
            from tensorrt.plugin import _lib
        except ImportError as e:
            raise Unavailable("tensorrt.plugin does not import (install TensorRT's Python bindings, or set OPFORGE_TRT_BINDINGS "
                              "to a tensorrt bindings wheel's site-packages and OPFORGE_TRT_CORE to a stand-in core): %s" % short(e))
        if not torch.cuda.is_available():
            raise Unavailable("no NVIDIA GPU: torch.cuda.is_available() is False")
        self.torch, self.trt, self.trtp, self.lib = torch, trt, trtp, _lib
        self.mod = load("opforge_verify_trt_python_" + job["package"], job["impl"]["path"])

    def create(self, op, case):
        trt, np = self.trt, __import__("numpy")
        t = op["trt"]
        values = {p["name"]: p["value"] for p in case["params"]}
        fields = []
        for f in t["fields"] or []:
            v = values[f["ident"]]
            if f["type"] == "char":
                fields.append(trt.PluginField(f["name"], str(v).encode() + b"\0", trt.PluginFieldType.CHAR))
            elif f["type"] == "float32":
                fields.append(trt.PluginField(f["name"], np.array(v, dtype=np.float32).reshape(-1), trt.PluginFieldType.FLOAT32))
            else:
                fields.append(trt.PluginField(f["name"], np.array(v, dtype=np.int32).reshape(-1), trt.PluginFieldType.INT32))
        pd = self.lib.QDP_REGISTRY[t["id"]]
        aot = getattr(pd, "aot_impl_func", None) is not None
        creator = trt.get_plugin_registry().get_creator(t["name"], "1", t["namespace"])
        request = [trt.QuickPluginCreationRequest.STRICT_AOT] if aot else []
        plugin = creator.create_plugin(t["name"], t["namespace"], trt.PluginFieldCollection(fields), trt.TensorRTPhase.BUILD, *request)
        return plugin, aot

    def run(self, op, case, inputs):
        torch, trt = self.torch, self.trt
        plugin, aot = self.create(op, case)
        # The plugin's outputs: the opdef's (a data-dependent one at its upper bound), then one INT32
        # 0-D size tensor per data-dependent size.
        sizes = case.get("sizes") or []
        specs = [dict(spec, shape=shape) for spec, shape in zip(case["outputs"], upper_shapes(case))]
        specs += [dict(name="size " + n, dtype="int32", shape=[]) for n in sizes]
        in_types = [getattr(trt.DataType, trt_name(trt, spec)) for spec in case["inputs"]]
        out_types = list(plugin.get_output_data_types(in_types, [x.dim() for x in inputs]))
        want_types = [getattr(trt.DataType, trt_name(trt, spec)) for spec in specs]
        if [int(x) for x in out_types] != [int(x) for x in want_types]:
            raise RuntimeError("get_output_data_types gives %s; the opdef says %s" % (out_types, want_types))
        builder = trt.IExprBuilder()
        in_exprs = [trt.DimsExprs([builder.constant(d) for d in x.shape]) for x in inputs]
        shapes = plugin.get_output_shapes(in_exprs, [], builder)
        for spec, exprs in zip(specs, shapes):
            got = [dim_value(e) for e in exprs]
            if got != spec["shape"]:
                raise RuntimeError("get_output_shapes gives output %s dims %s; the opdef says %s" % (spec["name"], got, spec["shape"]))

        def desc(shape, dtype):
            d = trt.DynamicPluginTensorDesc()
            d.desc.dims, d.desc.type = trt.Dims(list(shape)), dtype
            d.min = d.max = d.opt = trt.Dims(list(shape))
            return d

        in_out = [desc(x.shape, t) for x, t in zip(inputs, in_types)]
        in_out += [desc(spec["shape"], t) for spec, t in zip(specs, out_types)]
        combos = plugin.get_supported_format_combinations(in_out, len(inputs))
        n = len(in_out)
        taken = {tuple(int(c.type) for c in combos[k:k + n]) for k in range(0, len(combos), n)}
        mine = tuple(int(t) for t in in_types + out_types)
        if mine not in taken:
            raise NotTaken("the plugin's autotune offers no combination %s" % ([str(t) for t in in_types + out_types],))
        kernel = self.aot_kernel(plugin, in_exprs, in_out, len(inputs), builder) if aot else None
        dev = [x.cuda().contiguous() for x in inputs]
        outs = [torch.full(spec["shape"], 0, dtype=getattr(torch, spec["dtype"]), device="cuda") for spec in specs]
        for o in outs:
            o.reshape(-1).view(torch.uint8).fill_(0xff) if o.numel() else None
        stream = torch.cuda.current_stream()
        if aot:
            self.launch_aot(kernel, dev, outs, stream)
        else:
            plugin.configure_plugin(in_out[:len(inputs)], in_out[len(inputs):]) if hasattr(plugin, "configure_plugin") else None
            descs = [d.desc for d in in_out]
            ins_p, outs_p = [x.data_ptr() for x in dev], [o.data_ptr() for o in outs]
            import inspect
            if "workspace" in inspect.signature(plugin.enqueue).parameters:  # tensorrt.plugin before 10.8
                plugin.enqueue(descs[:len(inputs)], descs[len(inputs):], ins_p, outs_p, 0, stream.cuda_stream)
            else:
                plugin.enqueue(descs[:len(inputs)], descs[len(inputs):], ins_p, outs_p,
                               [tuple(x.stride()) for x in dev], [tuple(o.stride()) for o in outs], stream.cuda_stream)
        torch.cuda.synchronize()
        got = [o.cpu() for o in outs[:len(case["outputs"])]]
        size_of = {n: int(o.cpu().item()) for n, o in zip(sizes, outs[len(case["outputs"]):])}
        for k, spec in enumerate(case["outputs"]):
            if spec.get("shape") is not None:
                continue
            shape = actual_shape(spec, size_of)
            got[k] = got[k].reshape(-1)[:numel(shape)].reshape(shape)
        return got

    def aot_kernel(self, plugin, in_exprs, in_out, n_in, builder):
        """What aot_impl returns, as TensorRT's build asks for it: kernel name, PTX, launch
        parameters (grid, block, shared memory) and the extra arguments, all evaluated."""

        class Launch:
            pass

        class Setter(list):
            nbSymExprs = 0

            def __setitem__(self, i, v):
                while len(self) <= i:
                    self.append(None)
                list.__setitem__(self, i, v)

        plugin.set_tactic(0)
        launch, setter = Launch(), Setter()
        plugin.get_launch_params(in_exprs, in_out, n_in, launch, setter, builder)
        name, ptx = plugin.get_kernel([d.desc for d in in_out[:n_in]], [d.desc for d in in_out[n_in:]])
        name = name.decode() if isinstance(name, bytes) else name
        ptx = ptx.encode() if isinstance(ptx, str) else ptx
        grid = [max(1, dim_value(getattr(launch, k, 1))) for k in ("grid_x", "grid_y", "grid_z")]
        block = [max(1, dim_value(getattr(launch, k, 1))) for k in ("block_x", "block_y", "block_z")]
        shared = dim_value(getattr(launch, "shared_mem", 0))
        return name, ptx, grid, block, shared, [dim_value(e) for e in setter]

    def launch_aot(self, kernel, dev, outs, stream):
        import ctypes
        import re
        name, ptx, g, b, shared, extra = kernel
        cu = ctypes.CDLL("libcuda.so.1")

        def check(r, what):
            if r != 0:
                msg = ctypes.c_char_p()
                cu.cuGetErrorString(r, ctypes.byref(msg))
                raise RuntimeError("%s: CUDA error %d %s" % (what, r, msg.value.decode() if msg.value else ""))

        module, fn = ctypes.c_void_p(), ctypes.c_void_p()
        check(cu.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(ptx + b"\0")), "cuModuleLoadData (aot_impl's PTX)")
        check(cu.cuModuleGetFunction(ctypes.byref(fn), module, name.encode()), "cuModuleGetFunction " + name)
        # The kernel's arguments as TensorRT passes them: the inputs, aot_impl's extra_args (int32),
        # the outputs; parameters Triton adds after them (scratch pointers) get null.
        args = [ctypes.c_void_p(x.data_ptr()) for x in dev]
        args += [ctypes.c_int32(v) for v in extra]
        args += [ctypes.c_void_p(o.data_ptr()) for o in outs]
        entry = re.search(rb"\.entry\s+" + re.escape(name.encode()) + rb"\s*\((.*?)\)", ptx, re.S)
        declared = len(re.findall(rb"\.param\b", entry.group(1))) if entry else len(args)
        if declared < len(args):
            raise RuntimeError("the kernel %s declares %d parameters; TensorRT passes %d (inputs, extra_args, outputs)" % (name, declared, len(args)))
        args += [ctypes.c_void_p(0)] * (declared - len(args))
        ptrs = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.pointer(a), ctypes.c_void_p) for a in args])
        check(cu.cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], shared, ctypes.c_void_p(stream.cuda_stream), ptrs, None),
              "cuLaunchKernel " + name)
        check(cu.cuStreamSynchronize(ctypes.c_void_p(stream.cuda_stream)), "the kernel " + name + " failed")
        cu.cuModuleUnload(module)


def trt_name(trt, spec):
    names = {"float32": "FLOAT", "float16": "HALF", "int8": "INT8", "int32": "INT32", "bool": "BOOL", "uint8": "UINT8",
             "bfloat16": "BF16", "int64": "INT64"}
    if spec["dtype"] not in names:
        raise NotTaken("TensorRT has no %s tensors" % spec["dtype"])
    return names[spec["dtype"]]
