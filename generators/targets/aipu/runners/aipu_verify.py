"""opforge verify's runners of the aipu target's implementations, imported by verify's runner.py
(the harness, importable as opforge_runner): AIPU (the OPT plugin's float forward in the Compass
Optimizer) and AIPUQuantized (its quantized forward). Written by opforge; not vendor code.
"""

import os
import sys
import tempfile


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
