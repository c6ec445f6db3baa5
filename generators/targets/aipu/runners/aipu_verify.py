"""opforge verify's runners of the aipu target's implementations, imported by verify's runner.py
(the harness, importable as opforge_runner): AIPU (the OPT plugin's float forward in the Compass
Optimizer), AIPUQuantized (its quantized forward) and AIPUOpenCL (the op's OpenCL kernel on an
OpenCL CPU device, PoCL, through pyopencl). Written by opforge; not vendor code.
"""

import os
import re
import sys
import tempfile

from opforge_runner import Broken, NotTaken, Unavailable


def ir_value(v):
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(ir_value(e) for e in v) + "]"
    return str(v)


def optimizer_engine(root, mode):
    """"Compass Optimizer <version> [<commit>] (<mode>)": its version.py's version and the
    checkout's commit where they can be read."""
    name = "Compass Optimizer"
    try:
        from AIPUBuilder.Optimizer.version import __OPT_VERSION__
        name += " " + str(__OPT_VERSION__)
    except Exception:  # noqa: BLE001 - the name alone then
        pass
    try:
        git = os.path.join(root, ".git")
        with open(os.path.join(git, "HEAD")) as f:
            head = f.read().strip()
        if head.startswith("ref: "):
            with open(os.path.join(git, head[5:])) as f:
                head = f.read().strip()
        if len(head) == 40:
            name += " " + head[:7]
    except OSError:
        pass
    return "%s (%s)" % (name, mode)


class AIPU:
    """The OPT plugin's float forward in the open-source Compass Optimizer: the target's glue
    (the IR the Parser writes, the params the forward reads) around the reference it calls."""

    quant = False
    check = "wiring"
    engine = "Compass Optimizer"

    def __init__(self, torch, job):
        sys.path.insert(0, os.environ["COMPASS_OPTIMIZER_DIR"])
        os.environ.setdefault("AIPUOPT_SILENTLOADING", "1")
        from AIPUBuilder.Optimizer.framework import register_optype, traverse_opt_plugins, QuantizeGraph
        from AIPUBuilder.Optimizer.utils import Dtype, dtype2torch_type
        self.torch, self.register_optype, self.QuantizeGraph = torch, register_optype, QuantizeGraph
        self.Dtype, self.dtype2torch_type = Dtype, dtype2torch_type
        self.case_step = None
        self.engine = optimizer_engine(os.environ["COMPASS_OPTIMIZER_DIR"], "quantized forward" if self.quant else "float forward")
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


class AIPUQuantized(AIPU):
    """The OPT plugin's quantized forward in the Compass Optimizer: int8 inputs, the plugin's
    quantize, the forward on the integers (code the user wrote), compared (dequantized) with the
    reference on the dequantized inputs within one output quantization step. A quantize or
    quantized forward still raising the skeleton's NotImplementedError is a skip naming its
    region, as an unwritten reference is."""

    quant = True
    check = "kernel"


OPENCL_INSTALL = ("install an OpenCL CPU runtime and pyopencl: apt-get install pocl-opencl-icd ocl-icd-opencl-dev; "
                  "pip install pyopencl (into the Python verify runs, OPFORGE_PYTHON)")

# Launch shapes (global size, local size), each several work-groups. The kernels are grid-stride
# loops over whatever they parallelize: the first spans 3 groups of 64 work items, the second 3 of 4,
# so small cases stride (a tail the loop skips shows) and large ones run many groups.
LAUNCHES = ((192, 64), (12, 4))
# What every byte of the output buffers holds before a launch; each launch runs once per fill, so
# an element the kernel does not write differs between the two (NaN, -1 or true against 0 or false).
FILLS = (0xFF, 0x00)
# Bytes past the end of each output buffer that must keep the fill (a write past the end fails).
GUARD = 4096

# The numpy type of each OpenCL scalar type a kernel argument may have.
SCALARS = {"char": "int8", "uchar": "uint8", "short": "int16", "ushort": "uint16", "int": "int32",
           "uint": "uint32", "half": "float16", "float": "float32"}


class KernelBuildError(Broken):
    """The kernel does not build for the OpenCL device (the variant and the compiler's log)."""


class KernelOutputError(Exception):
    """The kernel leaves output elements unwritten, or its outputs depend on the launch shape."""


class AIPUOpenCL:
    """The op's Compass OpenCL kernel (out/aipu/<Package>/kernels/<op>.cl, the code the user wrote),
    built with the -D flags of the variant the case's dtypes pick and run on an OpenCL CPU device
    (PoCL) with the arguments the GBuilder plugin's generate_params passes: at every launch shape,
    from two fills of the outputs (the kernel must write every element), the launch shapes agreeing;
    the first launch's outputs are compared with the reference."""

    check = "kernel"
    engine = "PoCL through pyopencl (not available here)"  # until __init__ reads the platform

    def __init__(self, torch, job):
        try:
            import numpy as np
            import pyopencl as cl
        except ImportError as e:
            raise Unavailable("pyopencl does not import (%s): %s" % (e, OPENCL_INSTALL))
        self.torch, self.np, self.cl = torch, np, cl
        self.device = self.pick_device()
        self.engine = self.describe()
        self.ctx = cl.Context([self.device])
        self.queue = cl.CommandQueue(self.ctx)
        self.fp16 = "cl_khr_fp16" in self.device.extensions.split()
        self.aipu_dir = job["impl"]["aipu_dir"]
        self.programs = {}

    def pick_device(self):
        """A CPU device, PoCL's first: what the runner is written for."""
        cl = self.cl
        try:
            platforms = cl.get_platforms()
        except cl.Error as e:
            raise Unavailable("no OpenCL platform (%s): %s" % (str(e).strip().splitlines()[0], OPENCL_INSTALL))
        devices = []
        for p in platforms:
            try:
                devices += [(0 if "PoCL" in p.version else 1, d) for d in p.get_devices(cl.device_type.CPU)]
            except cl.Error:
                continue
        if not devices:
            names = ", ".join("%s (%s)" % (p.name, p.version) for p in platforms) or "none"
            raise Unavailable("no OpenCL CPU device on the platforms found (%s): %s" % (names, OPENCL_INSTALL))
        return sorted(devices, key=lambda e: e[0])[0][1]

    def describe(self):
        """E.g. "PoCL 3.1+debian (pyopencl 2026.1.4, CPU)", read from the platform."""
        platform = self.device.platform
        m = re.search(r"PoCL\s+(\S+)", platform.version)
        name = "PoCL " + m.group(1) if m else "%s (%s)" % (platform.name.strip(), platform.version.strip())
        return "%s (pyopencl %s, CPU)" % (name, self.cl.VERSION_TEXT)

    def program(self, ocl, variant):
        """The variant's kernel, built once per run; a build error is raised again for every case."""
        key = (ocl["source"], variant["entry"])
        if key not in self.programs:
            self.programs[key] = self.build(ocl, variant)
        k = self.programs[key]
        if isinstance(k, Exception):
            raise k
        return k

    def build(self, ocl, variant):
        """The variant's kernel, or a KernelBuildError with the compiler's first lines."""
        cl = self.cl
        path = os.path.join(self.aipu_dir, ocl["source"])
        with open(path) as f:
            prg = cl.Program(self.ctx, f.read())
        try:
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # pyopencl's warning that the compiler said something
                prg.build(options=list(variant["defines"]), devices=[self.device])
            return getattr(prg, variant["entry"])
        except cl.Error as e:
            try:
                log = prg.get_build_info(self.device, cl.program_build_info.LOG)
            except cl.Error:
                log = str(e)
        # The compiler reads a copy of the source (PoCL: a temporary file) with the source's lines,
        # so the log names the source instead.
        shown = os.path.relpath(path)
        if shown.startswith(".."):
            shown = path
        # PoCL (clang) writes "error: FILE:LINE:COL: message"; say "FILE:LINE:COL: error: message".
        log = re.sub(r"\b(error|warning|note): [^\s:]*\.cl:(\d+):(\d+): ", lambda m: "%s:%s:%s: %s: " % (shown, m.group(2), m.group(3), m.group(1)), log)
        log = re.sub(r"[^\s:]*\.cl:(\d+)", lambda m: "%s:%s" % (shown, m.group(1)), log)
        lines = [l.strip() for l in log.splitlines() if l.strip()]
        return KernelBuildError("the kernel does not build (variant %s: %s) on %s: %s" % (
            variant["entry"], " ".join(variant["defines"]), self.engine, " | ".join(lines[:6])[:1200]))

    def variant(self, ocl, case):
        """The variant taking the case's dtypes."""
        for v in ocl["variants"]:
            if all(t.get("absent") or t["dtype"] in allowed for t, allowed in zip(case["inputs"], v["inputs"])) and \
                    all(t["dtype"] in allowed for t, allowed in zip(case["outputs"], v["outputs"])):
                return v
        raise NotTaken("no kernel variant takes dtypes %s" % ", ".join(t["name"] + "=" + t["dtype"] for t in case["inputs"] + case["outputs"]))

    def raw(self, x):
        """x's bytes as a numpy array of an integer type of x's element size (bool as bytes 0 and 1)."""
        torch = self.torch
        ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
        x = x.detach().contiguous().cpu()
        return x.view(ints[x.element_size()]).numpy().reshape(-1)

    def scalar(self, a, case):
        """The value of scalar argument a in case, as its OpenCL type."""
        ty = self.np.dtype(SCALARS[a["type"]]).type
        if a["kind"] in ("rank", "dim"):
            t = case[a["tensor"] + "s"][a["index"]]
            if t.get("absent") or t.get("shape") is None:
                raise NotTaken("%s %s has no shape in this case: the kernel's %s cannot be given" % (a["tensor"], t["name"], a["name"]))
            shape = t["shape"]
            if a["kind"] == "rank":
                return ty(len(shape))
            return ty(shape[a["dim"]] if a["dim"] < len(shape) else 1)
        p = next(p for p in case["params"] if p["name"] == a["param"])
        v = p["value"]
        if a["encode"] == "bool":
            v = int(bool(v))
        elif a["encode"] == "enum":
            v = p.get("index", 0)
        elif a["encode"] == "element":
            v = v[a["element"]]
        return ty(v)

    def run(self, op, case, inputs):
        torch, np, cl = self.torch, self.np, self.cl
        ocl = op["opencl"]
        variant = self.variant(ocl, case)
        if variant["fp16"] and not self.fp16:
            raise NotTaken("the OpenCL device (%s) has no cl_khr_fp16, which variant %s needs for its half data: not run" % (self.engine, variant["entry"]))
        kernel = self.program(ocl, variant)
        mf = cl.mem_flags
        buffers = []  # kept alive until the launches are done

        def buffer(host, flags):
            # OpenCL has no empty buffers: an empty tensor gets one unused byte.
            b = cl.Buffer(self.ctx, flags | mf.COPY_HOST_PTR, hostbuf=host if host.nbytes else np.zeros(1, np.uint8))
            buffers.append(b)
            return b

        # The arguments but the outputs, which every launch makes afresh: (kind, output index) or a value.
        args = []
        for a in ocl["args"]:
            kind = a["kind"]
            if kind == "input":
                x = inputs[a["index"]]
                if x is None:
                    raise NotTaken("input %s is absent: the GBuilder plugin passes the kernel every input" % case["inputs"][a["index"]]["name"])
                args.append(buffer(self.raw(x), mf.READ_ONLY))
            elif kind == "output":
                if case["outputs"][a["index"]].get("shape") is None:
                    raise NotTaken("output %s has a data-dependent shape" % case["outputs"][a["index"]]["name"])
                args.append(("output", a["index"]))
            elif kind in ("param", "rank", "dim"):
                args.append(self.scalar(a, case))
            else:
                raise NotTaken("kernel argument %s (%s) is not one verify can make" % (a["name"], kind))
        sizes = [int(np.prod(t["shape"], dtype=np.int64)) * torch.empty((), dtype=getattr(torch, t["dtype"])).element_size()
                 for t in case["outputs"]]

        def launch(gsize, lsize, fill):
            """The outputs' bytes after one launch from outputs filled with fill. Each output buffer
            has GUARD bytes more than the tensor, which must keep the fill: a write past the end
            fails (PoCL does not bound-check a buffer)."""
            hosts = [np.full(n + GUARD, fill, np.uint8) for n in sizes]
            outs = [buffer(h, mf.READ_WRITE) for h in hosts]
            kernel(self.queue, (gsize,), (lsize,), *[outs[a[1]] if isinstance(a, tuple) else a for a in args])
            for h, b in zip(hosts, outs):
                cl.enqueue_copy(self.queue, h, b)
            self.queue.finish()
            for t, n, h in zip(case["outputs"], sizes, hosts):
                past = np.flatnonzero(h[n:] != fill)
                if past.size:
                    raise KernelOutputError("the kernel writes past the end of output %s (%d bytes): %d of the %d bytes after it changed, "
                                            "the first %d bytes past the end, at global %d, local %d" % (
                                                t["name"], n, int(past.size), GUARD, int(past[0]), gsize, lsize))
            return [h[:n] for n, h in zip(sizes, hosts)]

        results = []
        for gsize, lsize in LAUNCHES:
            runs = [launch(gsize, lsize, fill) for fill in FILLS]
            for t, a, b in zip(case["outputs"], runs[0], runs[1]):
                self.check_written(t, a, b, gsize, lsize)
            results.append([self.tensor(t, h) for t, h in zip(case["outputs"], runs[0])])
        import opforge_runner
        for got, (gsize, lsize) in zip(results[1:], LAUNCHES[1:]):
            _, _, problem = opforge_runner.compare(torch, got, results[0], case, {})
            if problem:
                raise KernelOutputError("the outputs depend on the launch shape: at global %d, local %d against global %d, local %d: %s" % (
                    gsize, lsize, LAUNCHES[0][0], LAUNCHES[0][1], problem.replace("the reference", "the first launch")))
        return results[0]

    def check_written(self, t, a, b, gsize, lsize):
        """Raises unless the kernel wrote every element of output t: a and b are its bytes after
        launches from the two fills."""
        np = self.np
        if np.array_equal(a, b):
            return
        width = len(a) // max(1, int(np.prod(t["shape"], dtype=np.int64)))
        bad = (a.reshape(-1, width) != b.reshape(-1, width)).any(axis=1)
        first = [int(i) for i in np.unravel_index(int(np.argmax(bad)), t["shape"])] if t["shape"] else []
        raise KernelOutputError("the kernel leaves %d of the %d elements of output %s unwritten at global %d, local %d (first at %s); "
                                "a kernel runs at any launch size: loop grid-stride, "
                                "for (int i = get_global_id(0); i < n; i += get_global_size(0))" % (
                                    int(bad.sum()), len(bad), t["name"], gsize, lsize, first))

    def tensor(self, t, host):
        """Output t as a torch tensor from its bytes."""
        torch = self.torch
        dt = getattr(torch, t["dtype"])
        if host.nbytes == 0:
            return torch.empty(t["shape"], dtype=dt)
        y = torch.from_numpy(host.copy())
        y = y != 0 if dt == torch.bool else y.view(dt)
        return y.reshape(t["shape"])
