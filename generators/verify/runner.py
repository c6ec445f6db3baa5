"""opforge verify's runner: runs one target's implementation of some ops and
their references on the cases opforge built, and compares the outputs.

Input (stdin, JSON): {"target", "package", "reference": {"module", "path"},
"impl": {...}, "ops": [{"op", "layer_type", "cases": [...]}], "tolerances"}.
Output (stdout): one JSON object per case: op, case, status (pass, fail,
skip), reason, max_abs, max_rel. Written by opforge; not vendor code.
"""

import importlib.util
import json
import math
import os
import sys
import tempfile
import traceback

sys.dont_write_bytecode = True


def emit(**kw):
    sys.stdout.write(json.dumps(kw, sort_keys=True) + "\n")
    sys.stdout.flush()


def load(name, path):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[name]
        raise
    return mod


def not_written(exc):
    """True when exc (or what caused it) is a default body's NotImplementedError."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, NotImplementedError):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def short(exc):
    lines = traceback.format_exception_only(type(exc), exc)
    return " ".join(l.strip() for l in lines)[:500]


def make_inputs(torch, case):
    g = torch.Generator().manual_seed(case["seed"])
    out = []
    for t in case["inputs"]:
        if t.get("absent"):
            out.append(None)
            continue
        dt = getattr(torch, t["dtype"])
        shape = t["shape"]
        if t.get("values"):
            x = torch.tensor(t["values"], dtype=torch.int64).reshape(shape).to(dt)
        elif t.get("range"):
            lo, hi = t["range"]
            x = torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64).to(dt)
        elif t["kind"] == "float":
            x = (torch.rand(shape, generator=g, dtype=torch.float64) * 4 - 2).to(dt)
        elif t["kind"] == "int":
            x = torch.randint(-5, 6, shape, generator=g, dtype=torch.int64).to(dt)
        elif t["kind"] == "uint":
            x = torch.randint(0, 11, shape, generator=g, dtype=torch.int64).to(dt)
        else:
            x = torch.randint(0, 2, shape, generator=g, dtype=torch.int64).bool()
        out.append([x] if t.get("variadic") else x)
    return out


def clone(torch, inputs):
    return [None if x is None else [e.clone() for e in x] if isinstance(x, list) else x.clone() for x in inputs]


def ref_params(case):
    return {p["name"]: tuple(p["value"]) if p.get("array") else p["value"] for p in case["params"]}


def as_list(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


DEFAULT_TOL = {"float64": (1e-7, 1e-9), "float32": (1e-4, 1e-5), "float16": (1e-2, 1e-3), "bfloat16": (2e-2, 1e-2)}


def compare(torch, got, want, case, tol):
    """(max_abs, max_rel, problem or None) over every output."""
    if len(got) != len(want):
        return 0.0, 0.0, "%d outputs, the reference gives %d" % (len(got), len(want))
    max_abs = max_rel = 0.0
    for spec, g, w in zip(case["outputs"], got, want):
        if not isinstance(g, torch.Tensor):
            return max_abs, max_rel, "output %s is %s, not a tensor" % (spec["name"], type(g).__name__)
        if g.dtype != w.dtype:
            return max_abs, max_rel, "output %s has dtype %s, the reference %s" % (spec["name"], g.dtype, w.dtype)
        if tuple(g.shape) != tuple(w.shape):
            return max_abs, max_rel, "output %s has shape %s, the reference %s" % (spec["name"], list(g.shape), list(w.shape))
        if g.numel() == 0:
            continue
        g64, w64 = g.detach().cpu().to(torch.float64), w.detach().cpu().to(torch.float64)
        diff = (g64 - w64).abs()
        nan_mismatch = bool((g64.isnan() != w64.isnan()).any())
        diff = torch.where(g64.isnan() & w64.isnan(), torch.zeros_like(diff), diff)
        a = float(diff.max())
        r = float((diff / w64.abs().clamp_min(1e-12)).max())
        max_abs, max_rel = max(max_abs, a), max(max_rel, r if not math.isinf(r) else a)
        if nan_mismatch:
            return max_abs, max_rel, "output %s has NaN where the reference has none (or the reverse)" % spec["name"]
        if spec["kind"] == "float":
            rtol, atol = tol.get(spec["dtype"]) or DEFAULT_TOL.get(spec["dtype"], (1e-4, 1e-5))
            bad = diff > atol + rtol * w64.abs()
            if bool(bad.any()):
                idx = [int(i) for i in bad.nonzero()[0]]
                return max_abs, max_rel, "output %s differs beyond rtol=%g atol=%g: %d element(s), first at %s: %r vs reference %r" % (
                    spec["name"], rtol, atol, int(bad.sum()), idx, float(g64[tuple(idx)]), float(w64[tuple(idx)]))
        elif bool((diff != 0).any()):
            idx = [int(i) for i in (diff != 0).nonzero()[0]]
            return max_abs, max_rel, "output %s differs (exact for %s): %d element(s), first at %s: %r vs reference %r" % (
                spec["name"], spec["dtype"], int((diff != 0).sum()), idx, g64[tuple(idx)].item(), w64[tuple(idx)].item())
    return max_abs, max_rel, None


def check_reference(torch, case, outs):
    """A problem with the reference's outputs against the opdef, or None."""
    if len(outs) != len(case["outputs"]):
        return "the reference returns %d outputs, the opdef has %d" % (len(outs), len(case["outputs"]))
    for spec, o in zip(case["outputs"], outs):
        if not isinstance(o, torch.Tensor):
            return "the reference returns %s for output %s, not a tensor" % (type(o).__name__, spec["name"])
        if o.dtype != getattr(torch, spec["dtype"]):
            return "the reference returns dtype %s for output %s, the opdef says %s" % (o.dtype, spec["name"], spec["dtype"])
        if spec.get("shape") is not None and list(o.shape) != spec["shape"]:
            return "the reference returns shape %s for output %s, the opdef says %s" % (list(o.shape), spec["name"], spec["shape"])
    return None


# --- targets -----------------------------------------------------------------

class ExecuTorch:
    """torch.export of a module calling the op, then the exported program on CPU."""

    def __init__(self, torch, job):
        self.torch = torch
        self.path = job["impl"]["path"]
        self.mod = load("opforge_verify_executorch_" + job["package"], self.path)
        by_qnn = {qnn: name for name, qnn in self.mod.QNN_OP_TYPES.items()}
        self.by_qnn = by_qnn

    def run(self, op, case, inputs):
        torch = self.torch
        name = self.by_qnn.get(op["op"])
        if name is None:
            raise LookupError("%s registers no torch op for %s" % (self.path, op["op"]))
        fn = getattr(getattr(torch.ops, self.mod.NAMESPACE), name).default
        kw = {}
        for p in case["params"]:
            v = p["value"]
            kw[p["name"]] = p.get("index", 0) if p["kind"] == "enum" else list(v) if p.get("array") else v
        present = [i for i, x in enumerate(inputs) if x is not None]

        class Call(torch.nn.Module):
            def forward(self, *xs):
                args = [None] * len(inputs)
                for i, x in zip(present, xs):
                    args[i] = x
                return fn(*args, **kw)

        args = tuple(inputs[i] for i in present)
        ep = torch.export.export(Call(), args)
        return as_list(ep.module()(*args))


def ir_value(v):
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(ir_value(e) for e in v) + "]"
    return str(v)


class AIPU:
    """The OPT plugin's float forward in the open-source Compass Optimizer."""

    quant = False

    def __init__(self, torch, job):
        sys.path.insert(0, os.environ["COMPASS_OPTIMIZER_DIR"])
        os.environ.setdefault("AIPUOPT_SILENTLOADING", "1")
        from AIPUBuilder.Optimizer.framework import register_optype, traverse_opt_plugins, QuantizeGraph
        from AIPUBuilder.Optimizer.utils import Dtype, dtype2torch_type
        self.torch, self.register_optype, self.QuantizeGraph = torch, register_optype, QuantizeGraph
        self.Dtype, self.dtype2torch_type = Dtype, dtype2torch_type
        self.case_step = None
        traverse_opt_plugins()

    def quantize_input(self, x):
        """(q, scale): a float input as symmetric int8 (q = round(x * scale), scale = 127 / max|x|);
        other inputs as they are, scale 1."""
        torch = self.torch
        if not x.is_floating_point():
            return x, 1.0
        m = float(x.abs().max()) if x.numel() else 0.0
        scale = 127.0 / m if m > 0 else 1.0
        return torch.clamp(torch.round(x.double() * scale), -128, 127).to(torch.int8), scale

    def reference_inputs(self, inputs):
        """What the reference is compared on: the quantized forward's inputs, dequantized."""
        if not self.quant:
            return inputs
        out = []
        for x in inputs:
            q, scale = self.quantize_input(x)
            out.append((q.double() / scale).to(x.dtype) if x.is_floating_point() else x)
        return out

    def run(self, op, case, inputs):
        torch = self.torch
        optype = self.register_optype(op["layer_type"])
        shape = lambda s: "[" + ",".join(str(d) for d in s) + "]"  # noqa: E731
        secs = []
        names = ["t_" + t["name"] for t in case["inputs"]]
        for i, t in enumerate(case["inputs"]):
            secs.append([("layer_id", i), ("layer_name", "input_%d" % i), ("layer_type", "Input"),
                         ("layer_bottom", "[]"), ("layer_bottom_shape", "[]"), ("layer_bottom_type", "[]"),
                         ("layer_top", "[%s]" % names[i]), ("layer_top_shape", "[%s]" % shape(t["shape"])),
                         ("layer_top_type", "[%s]" % t["native"])])
        outs = ["o_" + t["name"] for t in case["outputs"]]
        oshape = lambda t: t["shape"] if t.get("shape") is not None else [1] * 2  # noqa: E731
        layer = [("layer_id", len(secs)), ("layer_name", "plugin0"), ("layer_type", op["layer_type"]),
                 ("layer_bottom", "[%s]" % ",".join(names)),
                 ("layer_bottom_shape", "[%s]" % ",".join(shape(t["shape"]) for t in case["inputs"])),
                 ("layer_bottom_type", "[%s]" % ",".join(t["native"] for t in case["inputs"])),
                 ("layer_top", "[%s]" % ",".join(outs)),
                 ("layer_top_shape", "[%s]" % ",".join(shape(oshape(t)) for t in case["outputs"])),
                 ("layer_top_type", "[%s]" % ",".join(t["native"] for t in case["outputs"]))]
        layer += [(p["name"], ir_value(p["value"])) for p in case["params"]]
        secs.append(layer)
        header = [("model_name", "opforge_verify"), ("layer_number", len(secs)), ("precision", "float32"),
                  ("model_bin", "./verify.bin"), ("input_tensors", "[%s]" % ",".join(names)),
                  ("output_tensors", "[%s]" % ",".join(outs))]
        with tempfile.TemporaryDirectory() as d:
            txt, binf = os.path.join(d, "verify.txt"), os.path.join(d, "verify.bin")
            with open(txt, "w") as f:
                for sec in [header] + secs:
                    f.write("".join("%s=%s\n" % kv for kv in sec) + "\n")
            open(binf, "wb").close()
            graph = self.QuantizeGraph.parse(txt, binf)
        node = [n for n in graph.nodes if n.type == optype][0]
        if not self.quant:
            for tensor, x in zip(node.inputs, inputs):
                tensor.betensor = x
            node.quantized = False
            node.forward()
            return [o.betensor for o in node.outputs]
        # Quantized: the inputs as int8 (or their integers), the plugin's quantize sets the outputs'
        # dtype, scale and zero point, the forward runs on the integers; outputs come back dequantized.
        Dtype = self.Dtype
        for tensor, x in zip(node.inputs, inputs):
            q, scale = self.quantize_input(x)
            if x.is_floating_point():
                tensor.dtype, tensor.qbits, tensor.qinvariant = Dtype.INT8, 8, False
            else:
                tensor.dtype = {torch.int8: Dtype.INT8, torch.uint8: Dtype.UINT8, torch.int16: Dtype.INT16,
                                torch.int32: Dtype.INT32}.get(x.dtype, Dtype.INT32)
                tensor.qbits, tensor.qinvariant = torch.iinfo(x.dtype).bits if x.dtype != torch.bool else 8, True
            tensor.scale, tensor.zerop = scale, 0
            tensor.qmin, tensor.qmax = (-128, 127) if x.is_floating_point() else (int(torch.iinfo(x.dtype).min), int(torch.iinfo(x.dtype).max))
            tensor.betensor = q
        # The plugin's own quantize function (what node.quantize() dispatches to once the
        # Optimizer's calibration has set the node up; there is none here).
        from AIPUBuilder.Optimizer.framework import QUANT_OP_DICT
        QUANT_OP_DICT[node.type](node)
        node.quantized = True
        node.forward()
        got, step = [], {}
        for spec, o in zip(case["outputs"], node.outputs):
            want = getattr(torch, spec["dtype"])
            if want.is_floating_point:
                # scale and zerop may be 1-element tensors: keep the output's shape (0-D stays 0-D).
                got.append(((o.betensor.double() + o.zerop) / o.scale).reshape(o.betensor.shape).to(want))
                # One quantization step of the output (its rounding), added to the tolerance.
                step[spec["dtype"]] = max(step.get(spec["dtype"], 0.0), 1.0 / float(o.scale))
            else:
                got.append(o.betensor.to(want))
        self.case_step = step
        return got


class Unavailable(Exception):
    """The target cannot run here (no GPU, no tensorrt.plugin): every case is a skip."""


class NotTaken(Exception):
    """The implementation does not take this case (a dtype combination it refuses): a skip."""


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


class HTP:
    """The HTP op package built for x86, run in Qualcomm's HTP backend through ONNX Runtime's QNN
    execution provider (opforge's htp_qnn.py under the Python that has onnxruntime-qnn), one process
    per case: a one-node model carrying every param as an attribute, inputs and outputs as .npy."""

    def __init__(self, torch, job):
        import subprocess
        self.torch, self.subprocess = torch, subprocess
        impl = job["impl"]
        self.python, self.script, self.library = impl["python"], impl["script"], impl["library"]
        self.interface, self.domain, self.mismatch = impl["interface"], impl["domain"], impl.get("mismatch", "")

    def attrs(self, op, case):
        specs = {p["ident"]: p for p in op["htp"]["params"]}
        out = []
        for p in case["params"]:
            spec = specs[p["name"]]
            v = p["value"]
            if p["kind"] == "enum":
                out.append(dict(name=spec["name"], type="int", value=p.get("index", 0)))
            elif p["kind"] == "bool":
                out.append(dict(name=spec["name"], type="int", value=int(bool(v))))
            elif p["kind"] == "string":
                out.append(dict(name=spec["name"], type="string", value=v))
            elif p.get("array"):
                out.append(dict(name=spec["name"], type="floats" if spec["float"] else "ints", value=list(v)))
            elif p["kind"] == "tensor":
                raise NotTaken("verify does not pass tensor params to HTP op packages yet")
            else:
                out.append(dict(name=spec["name"], type="float" if spec["float"] else "int", value=v))
        return out

    DTYPES = ("float32", "float16", "int32", "uint8", "int8", "int16", "uint16", "bool", "int64")

    def run(self, op, case, inputs):
        import numpy as np
        torch = self.torch
        for spec in case["inputs"] + case["outputs"]:
            if spec["dtype"] not in self.DTYPES:
                raise NotTaken("verify does not hand %s tensors to HTP op packages" % spec["dtype"])
        for p in case["params"]:
            if p.get("array") and not p["value"]:
                raise NotTaken("an empty array param cannot be an ONNX attribute (no element type)")
        with tempfile.TemporaryDirectory() as d:
            req = dict(library=self.library, interface=self.interface, op_type=op["op"], domain=self.domain,
                       attrs=self.attrs(op, case), inputs=[], outputs=[])
            for i, x in enumerate(inputs):
                if x is None:
                    req["inputs"].append(None)
                    continue
                if isinstance(x, list):
                    raise NotTaken("verify does not pass variadic inputs to HTP op packages yet")
                path = os.path.join(d, "in%d.npy" % i)
                np.save(path, x.detach().cpu().numpy())
                req["inputs"].append(dict(path=path))
            for i, spec in enumerate(case["outputs"]):
                req["outputs"].append(dict(path=os.path.join(d, "out%d.npy" % i), dtype=spec["dtype"], shape=spec.get("shape")))
            path = os.path.join(d, "request.json")
            with open(path, "w") as fh:
                json.dump(req, fh)
            p = self.subprocess.run([self.python, self.script, "run", path], capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                import re
                log = re.sub(r"\x1b\[[0-9;]*m", "", p.stdout + p.stderr).strip().splitlines()
                stage = "the package did not run"
                text = "\n".join(log)
                if "session created" in text:
                    stage = "the session was created, the run failed"
                elif "Starting stage: Graph Optimizations" in text:
                    stage = "the package registered, the backend failed in graph preparation"
                elif "Successfully register the op package" in text:
                    stage = "the package registered, graph finalization failed"
                why = "%s (exit %d): %s" % (stage, p.returncode, " | ".join(log[-3:])[:600])
                if self.mismatch:
                    raise NotTaken(self.mismatch + "; " + why)
                raise RuntimeError(why)
            return [torch.from_numpy(np.load(o["path"])) for o in req["outputs"]]


class AIPUQuantized(AIPU):
    """The OPT plugin's quantized forward in the Compass Optimizer: int8 inputs, the plugin's
    quantize, the forward on the integers, compared (dequantized) with the reference on the
    dequantized inputs within one output quantization step."""

    quant = True


TARGETS = {"executorch": ExecuTorch, "aipu": AIPU, "aipu-quant": AIPUQuantized, "trt": TRT, "trt-python": TRTPython, "htp": HTP}


def main():
    job = json.load(sys.stdin)
    import torch
    tol = {k: tuple(v) for k, v in (job.get("tolerances") or {}).items()}
    ref_path = job["reference"]["path"]
    target = None
    target_error = None
    try:
        ref = load(job["reference"]["module"], ref_path)
    except BaseException as e:  # noqa: BLE001 - reported per case
        ref, ref_error = None, "the reference module %s does not import: %s" % (ref_path, short(e))
    unavailable = None
    try:
        target = TARGETS[job["target"]](torch, job)
    except Unavailable as e:
        unavailable = str(e)
    except BaseException as e:  # noqa: BLE001
        target_error = "%s does not load: %s" % (job["target"], short(e))
    for op in job["ops"]:
        for case in op["cases"]:
            res = dict(op=op["op"], case=case["name"], status="fail", reason="", max_abs=0.0, max_rel=0.0)
            if ref is None:
                res["reason"] = ref_error
                emit(**res)
                continue
            inputs = make_inputs(torch, case)
            ref_inputs = inputs
            if target is not None and hasattr(target, "reference_inputs"):
                ref_inputs = target.reference_inputs(inputs)
            try:
                want = as_list(ref.OPS[op["op"]](*clone(torch, ref_inputs), **ref_params(case)))
            except BaseException as e:  # noqa: BLE001
                if not_written(e):
                    res.update(status="skip", reason="no reference written: region reference:%s of %s" % (op["op"], ref_path))
                else:
                    res["reason"] = "the reference raises: " + short(e)
                emit(**res)
                continue
            problem = check_reference(torch, case, want)
            if problem:
                res["reason"] = problem
                emit(**res)
                continue
            if unavailable is not None:
                res.update(status="skip", reason=unavailable)
                emit(**res)
                continue
            if target is None:
                res["reason"] = target_error
                emit(**res)
                continue
            try:
                got = target.run(op, case, clone(torch, inputs))
            except NotTaken as e:
                res.update(status="skip", reason=str(e))
                emit(**res)
                continue
            except BaseException as e:  # noqa: BLE001
                if not_written(e):
                    res.update(status="skip", reason="no %s implementation written (%s)" % (job["target"], short(e)))
                else:
                    res["reason"] = "%s raises: %s" % (job["target"], short(e))
                emit(**res)
                continue
            case_tol = {k: tuple(v) for k, v in (op.get("tolerances") or {}).items()} or dict(tol)
            # A quantized run's output step adds to whatever tolerance applies.
            for dt, step in (getattr(target, "case_step", None) or {}).items():
                rtol, atol = case_tol.get(dt) or DEFAULT_TOL.get(dt, (1e-4, 1e-5))
                case_tol[dt] = (rtol, atol + step)
            a, r, problem = compare(torch, got, want, case, case_tol)
            res.update(max_abs=a, max_rel=r)
            if problem:
                res["reason"] = problem
            else:
                res["status"] = "pass"
            emit(**res)


if __name__ == "__main__":
    main()
