"""Imports a generated Python plugin module against the tensorrt.plugin stand-in beside this file
and runs what can run without a GPU: every register function on concrete dims, every autotune
function, and every aot_impl (its Triton kernel compiled to PTX for sm_80). Prints JSON.

    python check_qdp.py <module.py> <cases.json>

cases.json: [{"id": "ns::Op", "inputs": [{"dims": [..], "dtype": "FLOAT"}], "attrs": {"name": value}}]
"""

import importlib.util
import json
import os
import sys
import typing

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorrt as trt  # noqa: E402  (the stand-in)
import tensorrt.plugin as trtp  # noqa: E402


def load(path):
    spec = importlib.util.spec_from_file_location("qdp_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def attr_value(annotation, value):
    if typing.get_origin(annotation) is np.ndarray:
        dtype = typing.get_args(typing.get_args(annotation)[1])[0]
        return np.array(value, dtype=dtype)
    return annotation(value)


def describe(desc):
    out = {"dims": [d.value for d in desc.shape_expr], "dtype": desc.dtype.name if desc.dtype else None}
    if isinstance(desc, trtp.SizeTensorDesc):
        out["size"] = [desc.opt.value, desc.upper_bound.value]
    if desc.aliased_to is not None:
        out["aliased"] = True
    return out


def compile_for_sm80():
    """triton.compile for sm_80 without a GPU: aot_impl calls it without a target."""
    try:
        import triton
        from triton.backends.compiler import GPUTarget
    except ImportError:
        return False
    real = triton.compile

    def compile(src, target=None, options=None):
        return real(src, target=target or GPUTarget("cuda", 80, 32), options=options)

    triton.compile = compile
    return True


def main():
    module_path, cases_path = sys.argv[1], sys.argv[2]
    aot_possible = compile_for_sm80()
    load(module_path)
    with open(cases_path) as f:
        cases = json.load(f)
    results = []
    for case in cases:
        plugin = trtp.PLUGINS[case["id"]]
        inputs = [trtp.TensorDesc(i["dims"], getattr(trt.DataType, i["dtype"])) for i in case["inputs"]]
        attrs = {name: attr_value(plugin.attrs[name], v) for name, v in case["attrs"].items()}
        outputs = plugin.register(*inputs, **attrs)
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        result = {"id": case["id"], "outputs": [describe(o) for o in outputs], "impl": plugin.impl is not None}
        if len(outputs) != plugin.nb_outputs:
            result["error"] = f"register returned {len(outputs)} outputs, annotated {plugin.nb_outputs}"
        if plugin.autotune is not None:
            combos = plugin.autotune(*inputs, outputs=outputs)
            result["autotune"] = [[c.io_types, c.layouts] for c in combos]
        if plugin.aot_impl is not None:
            if aot_possible:
                kwargs = {a: attrs[a] for a in plugin.attrs if a in plugin.aot_impl.__code__.co_varnames}
                name, ptx, launch, extra = plugin.aot_impl(*inputs, **kwargs, outputs=outputs, tactic=0)
                ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
                name = name.decode() if isinstance(name, bytes) else name
                result["aot"] = {
                    "kernel": name,
                    "ptx_has_entry": (".entry " + name) in ptx,
                    "grid_x": launch.grid_x.value if isinstance(launch.grid_x, trtp.ShapeExpr) else launch.grid_x,
                    "block_x": launch.block_x,
                    "extra_args": [e.value for e in extra],
                }
            else:
                result["aot"] = "skipped: no triton"
        results.append(result)
    json.dump(results, sys.stdout, indent=1)


main()
