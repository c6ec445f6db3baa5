"""Runs generated OPT plugins in the open-source Compass Optimizer.

Usage: COMPASS_OPTIMIZER_DIR=<Compass_Optimizer checkout> python check_aipu_opt.py PLAN.json
Each package runs in a process of its own, the way aipuopt runs: the built-in
ops are imported, then traverse_opt_plugins() imports every aipubt_* module of
the package's opt/ directory (alone on AIPUPLUGIN_PATH). Per op: the plugin's
forward and quantize are the ones registered for its layer type (also over a
built-in of the same name when the opdef overrides it); a Compass IR holding
Input layers and the op's layer, with the params exactly as the Parser plugins
write them and its constants, parses with the Optimizer's reader; forward on
zero inputs gives outputs of the declared shapes, and quantize sets dtype,
scale, zero point, bits, invariance and range of every output.
"""

import ast
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True

from aipu_common import ir_value, per_package  # noqa: E402


def shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def write_ir(op, directory):
    """The op's layer after an Input layer per layer input; constants (zeros) in the .bin."""
    import numpy as np
    name = lambda t: "t_" + t["name"]  # noqa: E731
    layer_inputs = [t for t in op["inputs"] if not t.get("static")]
    sections, blob = [], b""
    for i, t in enumerate(layer_inputs):
        sections.append([("layer_id", i), ("layer_name", "input_%d" % i), ("layer_type", "Input"),
                         ("layer_bottom", "[]"), ("layer_bottom_shape", "[]"), ("layer_bottom_type", "[]"),
                         ("layer_top", "[%s]" % name(t)), ("layer_top_shape", "[%s]" % shape_text(t["shape"])),
                         ("layer_top_type", "[%s]" % t["dtype"])])
    layer = [("layer_id", len(layer_inputs)), ("layer_name", "plugin0"), ("layer_type", op["layer_type"]),
             ("layer_bottom", "[%s]" % ",".join(name(t) for t in layer_inputs)),
             ("layer_bottom_shape", "[%s]" % ",".join(shape_text(t["shape"]) for t in layer_inputs)),
             ("layer_bottom_type", "[%s]" % ",".join(t["dtype"] for t in layer_inputs)),
             ("layer_top", "[%s]" % ",".join(name(t) for t in op["outputs"])),
             ("layer_top_shape", "[%s]" % ",".join(shape_text(t["shape"]) for t in op["outputs"])),
             ("layer_top_type", "[%s]" % ",".join(t["dtype"] for t in op["outputs"]))]
    layer += [(k, ir_value(v)) for k, v in op["params"]]
    for c in op["constants"]:
        data = np.zeros(c["shape"], dtype=c["dtype"]).tobytes()
        layer += [(c["key"] + "_type", c["dtype"]), (c["key"] + "_offset", len(blob)),
                  (c["key"] + "_size", len(data)), (c["key"] + "_shape", shape_text(c["shape"]))]
        blob += data
    sections.append(layer)
    header = [("model_name", "opforge_" + op["stem"]), ("layer_number", len(sections)), ("precision", "float32"),
              ("model_bin", "./%s.bin" % op["stem"]),
              ("input_tensors", "[%s]" % ",".join(name(t) for t in layer_inputs)),
              ("output_tensors", "[%s]" % ",".join(name(t) for t in op["outputs"]))]
    txt = os.path.join(directory, op["stem"] + ".txt")
    binf = os.path.join(directory, op["stem"] + ".bin")
    with open(txt, "w") as f:
        for sec in [header] + sections:
            f.write("".join("%s=%s\n" % kv for kv in sec) + "\n")
    with open(binf, "wb") as f:
        f.write(blob)
    return txt, binf


def run_package(pkg):
    """In the child: load the built-ins and the package's OPT plugins, check every op."""
    sys.path.insert(0, os.environ["COMPASS_OPTIMIZER_DIR"])
    os.environ.setdefault("AIPUOPT_SILENTLOADING", "1")
    import torch
    from AIPUBuilder.Optimizer.framework import OP_DICT, QUANT_OP_DICT, register_optype, traverse_opt_plugins, QuantizeGraph
    from AIPUBuilder.Optimizer.utils import str2dtype, dtype2torch_type, bits2dtype, is_float, dtype2bits

    builtins = set(OP_DICT)
    traverse_opt_plugins()
    failures = []

    def fail(where, msg):
        failures.append(msg)
        print("FAIL: %s/%s: %s" % (pkg["package"], where, msg))

    for op in pkg["ops"]:
        where = op["op"]
        module = sys.modules.get("aipubt_opt_" + op["stem"])
        if module is None:
            fail(where, "traverse_opt_plugins did not import aipubt_opt_%s" % op["stem"])
            continue
        optype = register_optype(op["layer_type"])
        if OP_DICT.get(optype) is not getattr(module, op["stem"] + "_forward") or \
                QUANT_OP_DICT.get(optype) is not getattr(module, op["stem"] + "_quantize"):
            fail(where, "the registered forward/quantize of %s are not the plugin's" % op["layer_type"])
        if op["override"] and optype not in builtins:
            print("note: %s overrides %s, which this Optimizer has no built-in of" % (where, op["layer_type"]))
        with tempfile.TemporaryDirectory() as d:
            txt, binf = write_ir(op, d)
            graph = QuantizeGraph.parse(txt, binf)
        nodes = [n for n in graph.nodes if n.type == optype]
        if len(nodes) != 1:
            fail(where, "the IR has %d %s layers" % (len(nodes), op["layer_type"]))
            continue
        node = nodes[0]
        for k, v in op["params"]:
            want = ast.literal_eval(v)
            want = {"true": True, "false": False}.get(want, want) if isinstance(want, str) else want
            if k in (op.get("dtype_params") or []):
                want = str2dtype(want)  # a dtype name: the IR reader makes it a Dtype, which the plugin relies on
            if k not in node.params or node.params[k] != want or type(node.params[k]) is not type(want):
                fail(where, "param %s reads back as %r, want %r" % (k, node.params.get(k), want))
        layer_inputs = [t for t in op["inputs"] if not t.get("static")]
        for tensor, t in zip(node.inputs, layer_inputs):
            dt = dtype2torch_type(str2dtype(t["dtype"]))
            tensor.betensor = torch.tensor(t["values"], dtype=dt) if t.get("values") else torch.zeros(t["shape"], dtype=dt)
        node.forward()
        got = [list(o.betensor.shape) for o in node.outputs]
        want = [t["shape"] for t in op["outputs"]]
        if got != want:
            fail(where, "forward gives shapes %s, want %s" % (got, want))
        # Quantize: inputs as quantized activations (integers exact), outputs with a calibrated range.
        for tensor, t in zip(node.inputs, layer_inputs):
            dt = str2dtype(t["dtype"])
            tensor.dtype = bits2dtype(8, True) if is_float(dt) else dt
            tensor.scale, tensor.zerop = 1.0, 0
            tensor.qbits = dtype2bits(tensor.dtype)
            tensor.qinvariant = not is_float(dt)
        for o in node.outputs:
            o.min, o.max, o.key_axis = -1.0, 1.0, None
        node.attrs["q_mode_activation"] = "per_tensor_symmetric_restricted_range"
        node.attrs["q_bits_activation"] = 8
        node.attrs["q_mode_weight"] = "per_tensor_symmetric_restricted_range"
        node.attrs["q_bits_weight"] = 8
        node.quantized = False
        QUANT_OP_DICT[optype](node)
        for k in op.get("dtype_params") or []:
            # An output typed by the param: exact when the param names an
            # integer dtype, an 8-bit activation when it names a float one.
            chosen = node.params[k]
            for o, t in zip(node.outputs, op["outputs"]):
                if t.get("dtype_param") == k and not is_float(chosen) and o.dtype != chosen:
                    fail(where, "quantize gives %s dtype %s; param %s chose %s" % (o.name, o.dtype, k, chosen))
        for o in list(node.outputs) + [node.constants[c["key"]] for c in op["constants"]]:
            if None in (o.dtype, o.qbits, o.qmin, o.qmax, o.scale, o.zerop) or o.qinvariant is None:
                fail(where, "quantize leaves %s with dtype %s qbits %s range [%s, %s]" % (o.name, o.dtype, o.qbits, o.qmin, o.qmax))
    print("%s: %d OPT plugins registered, %d ops checked (forward shapes, quantize), %d failure(s)" % (
        pkg["package"], len(pkg["ops"]), len(pkg["ops"]), len(failures)))
    return 1 if failures else 0


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    per_package(__file__, plan, run_package, "opt")


if __name__ == "__main__":
    main()
