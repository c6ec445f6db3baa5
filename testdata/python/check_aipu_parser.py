"""Runs generated Parser plugins in the open-source Compass Parser.

Usage: COMPASS_PARSER_DIR=<Compass_Unified_Parser checkout> python check_aipu_parser.py PLAN.json
Each package runs in a process of its own, the way the Parser runs: its
parser/ directory alone on AIPUPLUGIN_PATH and the Parser's plugin_loader
importing every aipubt_* module there. Then, per op: the plugin is registered
for its framework op type (and upper-cased); built from the node attributes
(only those without a default) it holds the planned IR params in order and its
tensor params as constants; infer_shape on zero inputs returns arrays of the
declared output shapes and dtypes, moves static inputs into constants and
removes them from the inputs.
"""

import ast
import json
import os
import sys

sys.dont_write_bytecode = True

from aipu_common import per_package  # noqa: E402


def run_package(pkg):
    """In the child: load the package's Parser plugins and check every op."""
    import numpy as np
    sys.path.insert(0, os.environ["COMPASS_PARSER_DIR"])
    from AIPUBuilder.Parser import plugin_loader  # imports every aipubt_* module on AIPUPLUGIN_PATH

    failures = []

    def fail(where, msg):
        failures.append(msg)
        print("FAIL: %s/%s: %s" % (pkg["package"], where, msg))

    want_modules = sorted("aipubt_parser_" + op["stem"] for op in pkg["ops"])
    if sorted(plugin_loader.ALL_MODULES) != want_modules:
        fail("loader", "imported %s, want %s" % (sorted(plugin_loader.ALL_MODULES), want_modules))
    for op in pkg["ops"]:
        where = op["op"]
        cls = plugin_loader.PARSER_OP_DICT.get(op["framework_op"])
        if cls is None or plugin_loader.PARSER_OP_DICT.get(op["framework_op"].upper()) is not cls:
            fail(where, "no plugin registered for %r" % op["framework_op"])
            continue
        if cls.alias_op_type != (op["layer_type"] if op["alias"] else None) or cls.op_type != op["framework_op"]:
            fail(where, "op_type %r, alias_op_type %r" % (cls.op_type, cls.alias_op_type))
        if plugin_loader.VERSIONS[plugin_loader.PluginType.Parser].get(cls.__name__) != op["version"]:
            fail(where, "version %r" % plugin_loader.VERSIONS[plugin_loader.PluginType.Parser].get(cls.__name__))
        attrs = {"name": "node0", "type": op["framework_op"]}
        for name, v in op["attrs"].items():
            attrs[name] = ast.literal_eval(v["literal"]) if v.get("literal") else np.zeros(v["shape"], dtype=v["dtype"])
        plugin = cls("ONNX", attrs)
        want_params = [(k, ast.literal_eval(v)) for k, v in op["params"]]
        got_params = list(plugin.params.items())
        if [(k, v, type(v)) for k, v in got_params] != [(k, v, type(v)) for k, v in want_params]:
            fail(where, "params %r, want %r" % (got_params, want_params))
        inputs = []
        for t in op["inputs"]:
            a = np.zeros(t["shape"], dtype=t["dtype"])
            if t.get("values"):
                a = np.array(t["values"], dtype=t["dtype"])
            inputs.append(a)
        outputs = plugin.infer_shape(inputs)
        got = [(list(o.shape), str(o.dtype)) for o in outputs]
        want = [(t["shape"], t["dtype"]) for t in op["outputs"]]
        if got != want or not all(isinstance(o, np.ndarray) for o in outputs):
            fail(where, "infer_shape gives %s, want %s" % (got, want))
        got_constants = sorted((k, list(v.shape), str(v.dtype)) for k, v in plugin.constants.items()
                               if isinstance(v, np.ndarray))
        want_constants = sorted((c["key"], c["shape"], c["dtype"]) for c in op["constants"])
        if got_constants != want_constants or len(plugin.constants) != len(want_constants):
            fail(where, "constants %s, want %s" % (got_constants, want_constants))
        if sorted(plugin._inputs_to_remove) != sorted((0, i) for i in op["removed"]):
            fail(where, "removes inputs %s, want %s" % (plugin._inputs_to_remove, [(0, i) for i in op["removed"]]))
        # A required attribute that is missing is a clear error.
        for name, v in op["attrs"].items():
            if v.get("literal") is None:
                continue
            partial = {k: x for k, x in attrs.items() if k != name}
            try:
                cls("ONNX", partial)
                fail(where, "no error without attribute %r" % name)
            except ValueError as e:
                if name not in str(e):
                    fail(where, "error without attribute %r: %s" % (name, e))
    print("%s: %d Parser plugins registered, %d ops checked, %d failure(s)" % (
        pkg["package"], len(plugin_loader.ALL_MODULES), len(pkg["ops"]), len(failures)))
    return 1 if failures else 0


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    per_package(__file__, plan, run_package, "parser")


if __name__ == "__main__":
    main()
