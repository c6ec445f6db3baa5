"""opforge verify's runners of the trt target's implementations, imported by verify's runner.py
(the harness, importable as opforge_runner): TRT (the C++ plugin library, through opforge's C++
runner) and TRTPython (the Python plugins: through tensorrt.plugin on a GPU, or their Triton kernels
in Triton's interpreter on the CPU). Written by opforge; not vendor code.
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

    check = "kernel"

    def __init__(self, torch, job):
        import subprocess
        self.torch, self.subprocess = torch, subprocess
        self.library, self.runner = job["impl"]["library"], job["impl"]["runner"]
        # One process per case, bounded below verify's own --case-timeout watchdog.
        self.timeout = job.get("case_timeout") or 300
        gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else "an NVIDIA GPU"
        self.engine = "CUDA on %s (the plugin library through opforge's TensorRT-style loader)" % gpu

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
            p = self.subprocess.run([self.runner, self.library, req], capture_output=True, text=True, timeout=self.timeout)
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


def TRTPython(torch, job):
    """The Python plugins' runner for this machine: TensorRT's own tensorrt.plugin on a GPU where it
    imports; else each plugin's Triton kernel in Triton's interpreter on the CPU (TritonInterpreted)."""
    why = "no NVIDIA GPU (torch.cuda.is_available() is False)"
    if torch.cuda.is_available():
        try:
            return TRTPythonGPU(torch, job)
        except Unavailable as e:
            why = str(e)
    return TritonInterpreted(torch, job, why)


def jit_check(module_path, op_name):
    """What a JIT plugin's run proves: "wiring" while its impl region still calls the op's reference
    (the generated default), "kernel" once the user replaced it."""
    with open(module_path) as f:
        text = f.read()
    begin, end = "# opforge:begin impl:%s\n" % op_name, "# opforge:end impl:%s\n" % op_name
    i = text.find(begin)
    body = text[i:text.find(end, i)] if i >= 0 else ""
    return "wiring" if "_reference(" in body else "kernel"


class TRTPythonGPU:
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
        self.path = job["impl"]["path"]
        self.mod = load("opforge_verify_trt_python_" + job["package"], self.path)
        import triton
        self.engine_aot = "Triton %s on %s (tensorrt.plugin %s)" % (
            triton.__version__, torch.cuda.get_device_name(), getattr(trt, "__version__", "?"))
        self.engine_jit = "tensorrt.plugin %s JIT on %s" % (getattr(trt, "__version__", "?"), torch.cuda.get_device_name())
        self.check, self.engine = "kernel", self.engine_aot

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
        if aot:
            self.check, self.engine = "kernel", self.engine_aot
        else:
            self.check, self.engine = jit_check(self.path, op["op"]), self.engine_jit
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


# ---------------------------------------------------------------------------------------------
# The Python plugins without TensorRT: tensorrt.plugin cannot load without libnvinfer, so on a
# machine without TensorRT or a GPU opforge evaluates the plugin functions itself, on the case's
# concrete shapes (a stand-in for tensorrt and tensorrt.plugin: the shapes, dtypes, autotune
# combinations and aot_impl's launch are the module's own code, run with numbers), and runs the
# kernel aot_impl compiles in Triton's interpreter with exactly the launch aot_impl returns.
# ---------------------------------------------------------------------------------------------

# Triton pointer types of torch dtypes (the kernels' signatures must name the tensors' own).
TRITON_POINTERS = {"float32": "*fp32", "float16": "*fp16", "bfloat16": "*bf16", "int8": "*i8", "int32": "*i32",
                   "int64": "*i64", "bool": "*i1", "uint8": "*u8"}
# Bytes before and after each output that must keep their fill on the CPU route.
GUARD = 4096
# AutoTuneCombination's type names of torch dtypes.
AUTOTUNE_NAMES = {"float32": "FLOAT", "float16": "HALF", "bfloat16": "BF16", "int8": "INT8", "int32": "INT32",
                  "int64": "INT64", "bool": "BOOL", "uint8": "UINT8"}


class Dim(int):
    """A dimension expression evaluated: an int whose arithmetic stays a Dim, as ShapeExpr's does."""

    # Known when the network is built, as a ShapeExpr of a fixed dim is (the modules' _known reads these).
    is_fake = False
    is_constant = True

    def constant_value(self): return int(self)

    def __add__(self, o): return Dim(int(self) + int(o))
    def __radd__(self, o): return Dim(int(o) + int(self))
    def __sub__(self, o): return Dim(int(self) - int(o))
    def __rsub__(self, o): return Dim(int(o) - int(self))
    def __mul__(self, o): return Dim(int(self) * int(o))
    def __rmul__(self, o): return Dim(int(o) * int(self))
    def __floordiv__(self, o): return Dim(int(self) // int(o))
    def __rfloordiv__(self, o): return Dim(int(o) // int(self))
    def __mod__(self, o): return Dim(int(self) % int(o))
    def __neg__(self): return Dim(-int(self))


class Shape(tuple):
    """A tensor's shape_expr: its dims, and numel()."""

    def __new__(cls, dims):
        return tuple.__new__(cls, (Dim(d) for d in dims))

    def numel(self):
        n = Dim(1)
        for d in self:
            n = n * d
        return n


class DataType:
    """tensorrt.DataType stood in: named, hashable, compared by name."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "DataType." + self.name

    def __eq__(self, o):
        return isinstance(o, DataType) and o.name == self.name

    def __hash__(self):
        return hash(self.name)


DATATYPES = {name: DataType(name) for name in TRITON_POINTERS}


class TensorDesc:
    def __init__(self, shape, dtype, size_tensor=False):
        self.shape_expr, self.dtype, self.size_tensor = Shape(shape), dtype, size_tensor

    @property
    def ndim(self):
        return len(self.shape_expr)


class SizeTensor:
    """trtp.size_tensor(opt, upper): as an output, a 0-D int32 tensor; as a dim, its upper bound
    (what TensorRT allocates)."""

    def __init__(self, opt, upper):
        self.opt, self.upper = Dim(opt), Dim(upper)

    def expr(self):
        return self.upper


class AutoTuneCombination:
    def __init__(self, io_types="", layouts="", tactics=None):
        self.types = [set(t.strip() for t in e.split("|")) for e in io_types.split(",")] if io_types else []

    def takes(self, names):
        return len(self.types) == len(names) and all(n in t for n, t in zip(names, self.types))


class KernelLaunchParams:
    def __init__(self):
        self.grid_x = self.grid_y = self.grid_z = 1
        self.block_x = self.block_y = self.block_z = 1
        self.shared_mem = 0


class PluginFunctions:
    """What a module registered for one plugin id."""

    def __init__(self):
        self.register = self.autotune = self.aot = self.jit = None


def stand_in_modules(registry):
    """Modules named tensorrt and tensorrt.plugin that evaluate a plugin module's calls concretely
    and record what it registers in registry (plugin id -> PluginFunctions)."""
    import types
    trt = types.ModuleType("tensorrt")
    trt.__version__ = "opforge stand-in"
    trt.__path__ = []
    for name, dt in DATATYPES.items():
        setattr(trt, name, dt)
    trt.DataType = DataType
    trtp = types.ModuleType("tensorrt.plugin")

    def recorder(attr):
        def decorator(plugin_id):
            def keep(fn):
                setattr(registry.setdefault(plugin_id, PluginFunctions()), attr, fn)
                return fn
            return keep
        return decorator

    trtp.register, trtp.autotune = recorder("register"), recorder("autotune")
    trtp.aot_impl, trtp.impl = recorder("aot"), recorder("jit")
    trtp.TensorDesc = trtp.Tensor = TensorDesc
    trtp.ShapeExpr = trtp.SymInt32 = Dim
    trtp.ShapeExprs = trtp.SymExprs = Shape
    trtp.SymIntExprs = type("SymIntExprs", (), {"from_tuple": staticmethod(lambda t: [Dim(e) for e in t])})
    trtp.KernelLaunchParams, trtp.AutoTuneCombination = KernelLaunchParams, AutoTuneCombination
    trtp.from_shape_expr = lambda shape, dtype=None: TensorDesc(shape, dtype)
    trtp.size_tensor = SizeTensor
    trtp.cdiv = lambda a, b: Dim(-(-int(a) // int(b)))
    trtp.max = lambda a, b: Dim(max(int(a), int(b)))
    trtp.min = lambda a, b: Dim(min(int(a), int(b)))
    trt.plugin = trtp
    return trt, trtp


class CompiledStandIn:
    """What triton.compile returns to aot_impl here: the source it was given (kernel, signature,
    constexprs), kept under a name of its own for the launch."""

    def __init__(self, key, src):
        self.src = src
        self.metadata = type("Metadata", (), {"name": key, "num_warps": 4, "shared": 0})()
        self.asm = {"ptx": ""}


def constexprs_of(src):
    """The constexpr arguments an ASTSource was given, by name."""
    given = getattr(src, "constexprs", None)
    if isinstance(given, dict) and all(isinstance(k, str) for k in given):
        return dict(given)
    names = src.fn.arg_names
    out = {}
    for k, v in (getattr(src, "constants", None) or {}).items():
        i = k[0] if isinstance(k, tuple) else k
        out[names[i] if isinstance(i, int) else i] = v
    return out


def mend_interpreter_index():
    """Triton's interpreter (3.5, 3.6) holds a scalar argument as a one-element array and reads it
    back with int(array), which NumPy 2.4 refuses for an array of one dimension ("only 0-dimensional
    arrays can be converted to Python scalars"): with NumPy >= 2.4 any kernel that loops over
    range(n) of an argument fails in the interpreter, whatever the kernel does. Reading the one
    element, as int() did before, is the interpreter's own intent; nothing else changes."""
    from triton.runtime import interpreter
    original = getattr(interpreter, "_patch_lang_tensor", None)
    if original is None or getattr(original, "opforge_mended", False):
        return

    def index(self):
        data = self.handle.data
        return int(data.reshape(-1)[0]) if getattr(data, "size", 0) == 1 else int(data)

    def patched(tensor, *rest):
        original(tensor, *rest)
        tensor.__index__ = index

    patched.opforge_mended = True
    interpreter._patch_lang_tensor = patched


class TritonInterpreted:
    """The Python plugins' Triton kernels in Triton's interpreter (TRITON_INTERPRET=1) on the CPU:
    the register function gives the outputs' shapes and dtypes, autotune must offer the case's
    dtypes, and aot_impl's kernel runs with aot_impl's grid, extra arguments and constexprs, its
    arguments in TensorRT's order (inputs, extra arguments, outputs)."""

    check = "kernel"

    def __init__(self, torch, job, why_not_gpu):
        # The interpreter is chosen when @triton.jit runs, i.e. when the module loads.
        os.environ["TRITON_INTERPRET"] = "1"
        try:
            import triton
        except ImportError as e:
            raise Unavailable("triton does not import (pip install triton: its interpreter runs the Python plugins' "
                              "kernels on the CPU): %s" % short(e))
        mend_interpreter_index()
        # The reference of an op imported from a triton_op calls that op, whose module (imported
        # at the first case, interpreted as this process now is) passes its kernel to wrap_triton.
        let_wrap_triton_interpret()
        self.torch, self.triton, self.compiled = torch, triton, {}
        self.registry = {}
        trt, trtp = stand_in_modules(self.registry)
        saved = {k: sys.modules.get(k) for k in ("tensorrt", "tensorrt.plugin")}
        sys.modules["tensorrt"], sys.modules["tensorrt.plugin"] = trt, trtp
        real_compile = triton.compile

        def compile_stand_in(src, *args, **kwargs):
            key = "opforge_kernel_%d" % len(self.compiled)
            self.compiled[key] = src
            return CompiledStandIn(key, src)

        triton.compile = compile_stand_in
        self.restore = lambda: setattr(triton, "compile", real_compile)
        try:
            self.mod = load("opforge_verify_trt_python_cpu_" + job["package"], job["impl"]["path"])
        finally:
            for k, v in saved.items():
                if v is None:
                    sys.modules.pop(k, None)
                else:
                    sys.modules[k] = v
        self.engine = "Triton %s interpreter (CPU)" % triton.__version__
        if torch.cuda.is_available():
            # A GPU is here but TensorRT's route failed: the engine's name says why, so a broken
            # TensorRT set-up on a GPU machine does not pass as the GPU run.
            problem = job["impl"].get("trt_problem") or why_not_gpu
            self.engine += " on a GPU machine where tensorrt.plugin failed: " + problem[:300]

    @staticmethod
    def taken(fn, attrs):
        """The attributes fn names (autotune and aot_impl may take a subset, as tensorrt.plugin allows)."""
        import inspect
        params = inspect.signature(fn).parameters
        return {k: v for k, v in attrs.items() if k in params}

    def attrs(self, fn, n_inputs, case):
        """The attributes as tensorrt.plugin passes them: by name, typed by the function's annotations."""
        import inspect
        import numpy as np
        names = [p for p in inspect.signature(fn).parameters.values() if p.name not in ("outputs", "tactic")][n_inputs:]
        if len(names) != len(case["params"]):
            raise RuntimeError("the register function takes %d attributes; the opdef has %d params" % (len(names), len(case["params"])))
        out = {}
        for p, param in zip(names, case["params"]):
            v, ann = param["value"], str(p.annotation)
            if "ndarray" in ann or "NDArray" in ann:
                dtype = next((d for d in ("float16", "float32", "float64", "int64", "int32", "int8", "uint8", "bool") if d in ann), "float32")
                out[p.name] = np.array(v, dtype=dtype).reshape(-1)
            elif p.annotation is str:
                out[p.name] = str(v)
            elif p.annotation is bool:
                out[p.name] = bool(v)
            elif p.annotation is float:
                out[p.name] = float(v)
            elif p.annotation is int:
                out[p.name] = int(v)
            else:
                out[p.name] = v
        return out

    def run(self, op, case, inputs):
        torch = self.torch
        fns = self.registry.get(op["trt"]["id"])
        if fns is None or fns.register is None:
            raise RuntimeError("the module registers no plugin %s" % op["trt"]["id"])
        if any(x is None for x in inputs):
            raise NotTaken("an absent optional input: the plugin is not run without it here")
        in_descs = [TensorDesc(x.shape, DATATYPES[spec["dtype"]]) for spec, x in zip(case["inputs"], inputs)]
        attrs = self.attrs(fns.register, len(inputs), case)
        returned = fns.register(*in_descs, **attrs)
        returned = list(returned) if isinstance(returned, (tuple, list)) else [returned]
        out_descs = [TensorDesc((), DATATYPES["int32"], size_tensor=True) if isinstance(r, SizeTensor) else r for r in returned]
        # The outputs TensorRT allocates: the opdef's (data-dependent ones at their upper bound), then
        # one int32 0-D size tensor per data-dependent size.
        sizes = case.get("sizes") or []
        specs = [dict(spec, shape=shape) for spec, shape in zip(case["outputs"], upper_shapes(case))]
        specs += [dict(name="size " + n, dtype="int32", shape=[]) for n in sizes]
        if len(out_descs) != len(specs):
            raise RuntimeError("the register function returns %d outputs; the opdef has %d" % (len(out_descs), len(specs)))
        for spec, d in zip(specs, out_descs):
            if d.dtype != DATATYPES.get(spec["dtype"]):
                raise RuntimeError("the register function gives output %s dtype %s; the opdef says %s" % (spec["name"], d.dtype, spec["dtype"]))
            if [int(e) for e in d.shape_expr] != list(spec["shape"]):
                raise RuntimeError("the register function gives output %s dims %s; the opdef says %s" % (
                    spec["name"], [int(e) for e in d.shape_expr], spec["shape"]))
        names = [AUTOTUNE_NAMES.get(s["dtype"], s["dtype"]) for s in list(case["inputs"]) + specs]
        if fns.autotune is not None:
            combos = fns.autotune(*in_descs, **self.taken(fns.autotune, attrs), outputs=tuple(out_descs))
            if not any(c.takes(names) for c in combos):
                raise NotTaken("the plugin's autotune offers no combination %s" % names)
        if fns.aot is None:
            raise NotTaken("a JIT plugin (trtp.impl) runs its implementation on a GPU only; no aot_impl kernel to interpret")
        name, _, launch, extra = fns.aot(*in_descs, **self.taken(fns.aot, attrs), outputs=tuple(out_descs), tactic=0)
        src = self.compiled.get(name)
        if src is None:
            raise RuntimeError("aot_impl returns kernel %r, which it did not compile with triton.compile" % name)
        return self.launch(src, launch, [int(e) for e in extra], inputs, specs, case, sizes)

    def launch(self, src, launch, extra, inputs, specs, case, sizes):
        torch = self.torch
        kernel = src.fn
        constexprs = constexprs_of(src)
        runtime = [a for a in kernel.arg_names if a not in constexprs]
        n = len(inputs) + len(extra) + len(specs)
        if len(runtime) != n:
            raise RuntimeError("the kernel %s takes %d arguments besides its constexprs; TensorRT passes %d (%d inputs, %d extra_args, "
                               "%d outputs)" % (kernel.fn.__name__, len(runtime), n, len(inputs), len(extra), len(specs)))
        signature = dict(src.signature)
        if list(signature) != runtime:
            raise RuntimeError("aot_impl's signature names %s; the kernel's arguments are %s" % (list(signature), runtime))
        tensors = [(spec["dtype"], arg) for spec, arg in zip(list(case["inputs"]), runtime[:len(inputs)])]
        tensors += [(spec["dtype"], arg) for spec, arg in zip(specs, runtime[len(inputs) + len(extra):])]
        for dtype, arg in tensors:
            if signature[arg] != TRITON_POINTERS.get(dtype):
                raise RuntimeError("aot_impl's signature gives %s type %s; the tensor is %s (%s)" % (arg, signature[arg], dtype, TRITON_POINTERS.get(dtype)))
        grid = tuple(max(1, int(getattr(launch, k))) for k in ("grid_x", "grid_y", "grid_z"))
        # Each output is a view into a buffer GUARD bytes larger at both ends, every byte 0xff first:
        # an element the kernel does not write shows as a mismatch, and a write outside the tensor
        # (the interpreter does not bound-check pointers) changes a guard byte and fails.
        buffers, outs = [], []
        for spec in specs:
            dt = getattr(torch, spec["dtype"])
            nbytes = numel(spec["shape"]) * torch.empty((), dtype=dt).element_size()
            buf = torch.full((nbytes + 2 * GUARD,), 0xff, dtype=torch.uint8)
            body = buf[GUARD:GUARD + nbytes]
            buffers.append((spec, buf, nbytes))
            outs.append(body.view(dt).reshape(spec["shape"]))
        kernel[grid](*[x.contiguous() for x in inputs], *extra, *outs, **constexprs)
        for spec, buf, nbytes in buffers:
            changed = torch.cat([buf[:GUARD], buf[GUARD + nbytes:]]) != 0xff
            if bool(changed.any()):
                raise RuntimeError("the kernel writes outside output %s (%d bytes): %d guard bytes before or after it changed" % (
                    spec["name"], nbytes, int(changed.sum())))
        got = outs[:len(case["outputs"])]
        size_of = {name: int(o.item()) for name, o in zip(sizes, outs[len(case["outputs"]):])}
        for k, spec in enumerate(case["outputs"]):
            if spec.get("shape") is None:
                shape = actual_shape(spec, size_of)
                got[k] = got[k].reshape(-1)[:numel(shape)].reshape(shape)
        return got
