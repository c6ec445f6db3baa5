"""Drives generated GBuilder plugins the way GBuilder would, against stand-ins.

Usage: python check_aipu_builder.py PLAN.json
AIPUBuilder.core and AIPUBuilder.plugin_loader are closed; compass_stubs/ holds
stand-ins with the documented names. For every op and every kernel variant:
the plugin registers as a Builder plugin for its layer type, accepts exactly its
targets and dtypes, names the variant's kernel entry and object, sets one layout
per tensor, and generate_params appends the kernel's arguments in the order of
the plan (restated from the opdef by the Go test), scalars encoded as GBuilder
takes them: np.<dtype>(value).view("int<bits>").
"""

import ast
import importlib.util
import json
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "compass_stubs"))

from AIPUBuilder import core, plugin_loader  # noqa: E402  (the stand-ins)

failures = []


def fail(where, msg):
    failures.append("%s: %s" % (where, msg))
    print("FAIL: %s: %s" % (where, msg))


class FakeTensor(object):
    def __init__(self, tag, dtype, shape):
        self.tag, self.dtype, self.shape = tag, dtype, list(shape)

    def __repr__(self):
        return "<%s %s %s>" % (self.tag, self.dtype, self.shape)


class FakeNode(object):
    def __init__(self, name, inputs, outputs, params):
        self.name, self.inputs, self.outputs, self.params = name, inputs, outputs, params


class FakeSubgraphNode(object):
    def __init__(self, node, constants):
        self.inputs, self.outputs = node.inputs, node.outputs
        self.constants = {node.name + "/" + k: v for k, v in constants.items()}
        self.attrs = {}


def opt_typed(text):
    """An IR value the way the Optimizer's reader types it (GBuilder's reader is closed)."""
    value = ast.literal_eval(text)
    if value in ("true", "false"):
        return value == "true"
    return value


def ir_text(text):
    """The same value as the raw IR string: lists without spaces, bools as true/false."""
    value = ast.literal_eval(text)
    if isinstance(value, list):
        return str(value).replace(" ", "")
    return str(value)


def raw(numpy, value):
    """The documented encoding, restated: the value's bits as a signed int of its width."""
    v = np.array(value).astype(numpy)
    return int(v.view("int%d" % (8 * v.dtype.itemsize)))


def expected_args(op, node, sg, typed):
    out = []
    for a in op["args"]:
        kind = a["kind"]
        if kind == "input":
            out.append(node.inputs[a["index"]])
        elif kind == "output":
            out.append(node.outputs[a["index"]])
        elif kind == "constant":
            out.append(sg.constants[node.name + "/" + a["key"]])
        elif kind == "dim":
            t = node.inputs[a["index"]] if a["index"] >= 0 else sg.constants[node.name + "/" + a["key"]]
            out.append(int(t.shape[a["dim"]]))
        elif kind in ("rank", "rankdim"):
            if a.get("output"):
                t = node.outputs[a["index"]]
            else:
                t = node.inputs[a["index"]] if a["index"] >= 0 else sg.constants[node.name + "/" + a["key"]]
            if kind == "rank":
                out.append(len(t.shape))
            else:
                out.append(int(t.shape[a["dim"]]) if a["dim"] < len(t.shape) else 1)
        else:
            value = typed[a["param"]]
            if a["element"] >= 0:
                value = value[a["element"]]
            if a.get("bool"):
                value = 1 if value in (True, "true") else 0
            elif a.get("enum"):
                value = a["enum"].index(value)
            out.append(raw(a["numpy"], value))
    return out


def base_target(target):
    head, sep, cores = target.rpartition("MP")
    return head if sep and head and cores.isdigit() else target


def check(pkg, op):
    where = "%s/%s" % (pkg["package"], op["op"])
    path = os.path.join(pkg["dir"], "builder", "aipubt_builder_%s.py" % op["stem"])
    before = len(plugin_loader.REGISTERED)
    spec = importlib.util.spec_from_file_location("aipubt_builder_%s__%s" % (op["stem"], pkg["package"]), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    registered = plugin_loader.REGISTERED[before:]
    if len(registered) != 1 or registered[0][:2] != (plugin_loader.PluginType.Builder, 0):
        fail(where, "registrations %s, want one Builder plugin at version 0" % registered)
        return
    cls = registered[0][2]
    if not issubclass(cls, core.BuilderOpPlugin):
        fail(where, "%s is not a BuilderOpPlugin" % cls.__name__)
    plugin = cls()
    nodes, edges = plugin.get_graph_pattern()
    if len(nodes) != 1 or nodes[0][1] is not core.register_optype(op["layer_type"]) or edges != []:
        fail(where, "graph pattern %r" % ((nodes, edges),))
    if not isinstance(plugin.get_score(), int):
        fail(where, "get_score is not an int")

    params_typed = {k: opt_typed(v) for k, v in op["params"]}
    params_text = {k: ir_text(v) for k, v in op["params"]}
    layer_inputs = [t for t in op["inputs"] if not t.get("static")]
    constants = {c["key"]: FakeTensor("constant:" + c["key"], c["dtype"], c["shape"]) for c in op["constants"]}
    for target in op["targets"] + [t + "MP2" for t in op["targets"] if "MP" not in t]:
        for variant in op["variants"]:
            for params in (params_typed, params_text):
                plugin = cls()
                if not plugin.set_target(target):
                    fail(where, "set_target(%r) is False" % target)
                node = FakeNode(
                    "layer0",
                    [FakeTensor("input:%d" % i, d, t["shape"]) for i, (d, t) in enumerate(zip(variant["inputs"], layer_inputs))],
                    [FakeTensor("output:%d" % i, d, t["shape"]) for i, (d, t) in enumerate(zip(variant["outputs"], op["outputs"]))],
                    params)
                sg = FakeSubgraphNode(node, constants)
                if not plugin.check_params([node]):
                    fail(where, "check_params rejects %s on %s" % (variant, target))
                    continue
                if not plugin.setup(sg, [node]):
                    fail(where, "setup returned False")
                layouts = (sg.attrs.get("valid_input_layouts"), sg.attrs.get("valid_output_layouts"))
                if [len(layouts[0][0]), len(layouts[1][0])] != [len(node.inputs), len(node.outputs)] or \
                        not all(isinstance(l, core.DataLayout) for l in layouts[0][0] + layouts[1][0]):
                    fail(where, "layouts %s for %d inputs, %d outputs" % (layouts, len(node.inputs), len(node.outputs)))
                if plugin.generate_kernel(sg, [node]) != variant["entry"]:
                    fail(where, "kernel %r, want %r" % (plugin.generate_kernel(sg, [node]), variant["entry"]))
                want_code = "%s/%s.o" % (base_target(target), variant["entry"])
                if plugin.generate_code_name(sg, [node]) != want_code:
                    fail(where, "code name %r, want %r" % (plugin.generate_code_name(sg, [node]), want_code))
                ro = plugin.generate_params(sg, [node])
                if not isinstance(ro, core.BuilderParams):
                    fail(where, "generate_params returned %r" % type(ro))
                want = expected_args(op, node, sg, params_typed)
                if len(ro) != len(want) or any((g is not w) if isinstance(w, FakeTensor) else (g != w or type(g) is not int)
                                               for g, w in zip(ro, want)):
                    fail(where, "generate_params %r, want %r" % (list(ro), want))
            # A dtype outside the kernel's, and an unknown target, are refused.
            plugin = cls()
            plugin.set_target(target)
            bad = FakeNode("layer0", [FakeTensor("in", "float64", t["shape"]) for t in layer_inputs],
                           [FakeTensor("out", "float64", t["shape"]) for t in op["outputs"]], params_typed)
            if plugin.check_params([bad]):
                fail(where, "check_params accepts float64 tensors")
    plugin = cls()
    if plugin.set_target("Z9_0000") or plugin.check_params([FakeNode("n", [], [], {})]):
        fail(where, "an unknown target is accepted")
    return len(op["variants"])


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    ops = variants = 0
    for pkg in plan:
        for op in pkg["ops"]:
            variants += check(pkg, op) or 0
            ops += 1
    if failures:
        sys.exit("%d failure(s)" % len(failures))
    print("%d GBuilder plugins, %d kernel variants: targets, dtypes, layouts, entries, objects and generate_params as planned" % (ops, variants))


if __name__ == "__main__":
    main()
