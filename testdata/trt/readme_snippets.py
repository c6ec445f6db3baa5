"""Runs the snippets of generated TensorRT package READMEs as written.

Usage: readme_snippets.py README.md...

- Each ONNX snippet (`node = onnx.helper.make_node(...)` and its `opset`) is
  executed and the node put in a model that imports the snippet's opset; the
  model must pass onnx.checker.
- Each nvtripy call (`tp.plugin(...)`) is evaluated against the real
  overloads of nvtripy's `tp.plugin` (frontend/ops/plugin.py for C++
  plugins, plugin_qdp.py for Python plugins), matched by nvtripy's own
  function registry: exactly one overload must accept the call, and it must
  be the one the snippet means. nvtripy's package __init__ needs TensorRT,
  so only the modules dispatch reads are loaded, from the installed wheel's
  files; the names they import that dispatch never calls are stubbed.
- `add_plugin_v3` calls must pass the shape tensors in the second list.

Prints one line per snippet and exits 1 on the first failure.
"""

import importlib.util
import os
import re
import sys
import types

import onnx
from onnx import helper

BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def load_file(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


class Tensor:
    """Stands for nvtripy.Tensor: dispatch only checks isinstance."""


class DType:
    def __init__(self, name):
        self.name = name


def nvtripy_overloads():
    """Returns nvtripy's FunctionRegistry holding the two real `plugin`
    overloads, and the functions themselves."""
    spec = importlib.util.find_spec("nvtripy")
    if spec is None:
        sys.exit("nvtripy is not installed (testdata/requirements-nodeps.txt)")
    root = spec.submodule_search_locations[0]
    pkg = types.ModuleType("nvtripy")
    pkg.__path__ = [root]
    pkg.Tensor, pkg.dtype = Tensor, DType
    sys.modules["nvtripy"] = pkg
    for sub in ("utils", "common", "frontend", "frontend.ops", "trace", "trace.ops"):
        m = types.ModuleType("nvtripy." + sub)
        m.__path__ = [os.path.join(root, *sub.split("."))]
        sys.modules[m.__name__] = m
    # Names the plugin modules import but dispatch never calls.
    export = types.ModuleType("nvtripy.export")
    export.public_api = lambda **kw: (lambda f: f)
    sys.modules["nvtripy.export"] = export
    pkg.export = export
    pkg.utils = sys.modules["nvtripy.utils"]
    for name, attrs in {
        "nvtripy.frontend.ops.utils": {"create_op": None},
        "nvtripy.trace.ops.plugin": {"Plugin": object},
        "nvtripy.common.exception": {"raise_error": None},
        "nvtripy.common.datatype": {d: DType(d) for d in ("float32", "float16", "float8", "bfloat16", "int4", "int8", "int32", "int64", "bool")},
    }.items():
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        sys.modules[name] = m
    trt = types.ModuleType("tensorrt")
    for d in ("float32", "float16", "fp8", "bfloat16", "int4", "int8", "int32", "int64", "bool"):
        setattr(trt, d, "trt." + d)
    sys.modules["tensorrt"] = trt
    load_file("nvtripy.utils.types", os.path.join(root, "utils", "types.py"))
    load_file("nvtripy.utils.result", os.path.join(root, "utils", "result.py"))
    registry_mod = load_file("nvtripy.utils.function_registry", os.path.join(root, "utils", "function_registry.py"))
    cpp = load_file("nvtripy.frontend.ops.plugin", os.path.join(root, "frontend", "ops", "plugin.py")).plugin
    qdp = load_file("nvtripy.frontend.ops.plugin_qdp", os.path.join(root, "frontend", "ops", "plugin_qdp.py")).plugin
    registry = registry_mod.FunctionRegistry()
    registry("plugin")(cpp)
    registry("plugin")(qdp)
    return registry, {cpp: "C++ plugin", qdp: "Python plugin"}


class Names(dict):
    """Snippet globals: every unknown name (an input tensor) is a Tensor."""

    def __missing__(self, key):
        return Tensor()


def check_onnx(where, code):
    ns = {}
    exec(code, ns)
    node, opset = ns["node"], ns["opset"]
    graph = helper.make_graph(
        [node],
        "snippet",
        [helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, ["d"]) for n in node.input if n],
        [helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, ["d"]) for n in node.output if n],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), opset])
    onnx.checker.check_model(model)
    print(f"ok   {where}: onnx.checker accepts {node.op_type} in domain {node.domain!r}")


def check_tripy(where, code, registry, kinds):
    import numpy as np

    calls = []

    class TP:
        def __getattr__(self, name):
            return DType(name)

        def plugin(self, *args, **kwargs):
            calls.append((args, kwargs))

    for line in code.strip().splitlines():
        if line.startswith("import "):
            # nvtripy itself needs TensorRT: the harness gives `tp`.
            continue
        calls.clear()
        g = Names(tp=TP(), np=np)
        exec(line, {}, g)
        (args, kwargs), = calls
        matched = [o for o in registry.overloads["plugin"] if o.matches_arg_types(args, kwargs)]
        want = "Python plugin" if "# the Python plugin" in line else "C++ plugin"
        got = [kinds[o.func] for o in matched]
        if got != [want]:
            sys.exit(f"FAIL {where}: nvtripy dispatches {line.strip()!r} to {got or 'no overload'}, want the {want} form")
        print(f"ok   {where}: tp.plugin dispatches to the {want} form")


def check_network(where, code, shape_inputs):
    m = re.search(r"add_plugin_v3\(\[(.*?)\], \[(.*?)\], plugin\)", code)
    if not m:
        return
    regular = [s.strip() for s in m.group(1).split(",") if s.strip()]
    shapes = [s.strip() for s in m.group(2).split(",") if s.strip()]
    if sorted(shapes) != sorted(shape_inputs) or set(regular) & set(shape_inputs):
        sys.exit(f"FAIL {where}: add_plugin_v3 gets tensors {regular} and shape tensors {shapes}; the shape inputs are {shape_inputs}")
    print(f"ok   {where}: add_plugin_v3 takes {len(shapes)} shape tensor(s) in the second list")


def main(paths):
    registry, kinds = nvtripy_overloads()
    for path in paths:
        text = open(path, encoding="utf-8").read()
        for section in re.split(r"\n### ", text)[1:]:
            op = section.split("\n", 1)[0]
            where = f"{os.path.basename(os.path.dirname(path))}/{op}"
            shape_inputs = []
            for block in BLOCK.findall(section):
                if "onnx.helper.make_node" in block:
                    check_onnx(where, block)
                    idx = re.search(r"tensorrt_plugin_shape_input_indices=\[([0-9, ]*)\]", block)
                    ins = re.search(r"make_node\([^,]+, \[(.*?)\]", block).group(1)
                    names = [s.strip().strip('"') for s in ins.split(",")]
                    if idx:
                        shape_inputs = [names[int(i)] for i in idx.group(1).split(",")]
                elif "tp.plugin" in block:
                    check_tripy(where, block, registry, kinds)
                elif "add_plugin_v3" in block:
                    check_network(where, block, shape_inputs)


if __name__ == "__main__":
    main(sys.argv[1:])
