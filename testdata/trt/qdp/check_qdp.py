"""Runs a generated Python plugin module on the real tensorrt.plugin package (the plain-Python
plugin/ directory of a tensorrt-cu1x-bindings wheel, OPFORGE_TRT_BINDINGS) with core/'s stand-in for
the compiled tensorrt core, and drives each plugin as TensorRT does, without a GPU:

  * the plugin is created twice: from attributes encoded as the ONNX parser sends them (int32 ints,
    float32 floats and float lists, strings with their trailing NUL) through the creator's
    create_plugin, and from Python values through trtp.op.<ns>.<Op>(...);
  * get_output_data_types and get_output_shapes on concrete dims (the register function);
  * the module's attribute check on what create_plugin decoded (the values the functions see);
  * get_supported_format_combinations (the autotune function);
  * for ahead-of-time ops, get_launch_params and get_kernel (aot_impl; its Triton kernel compiled to
    PTX for sm_80);
  * every "bad" attribute value: creating the plugin and asking for output types must fail with
    ValueError.

    python check_qdp.py <module.py> <cases.json>      (prints JSON)
"""

import importlib.util
import json
import os
import sys
import traceback
import typing

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "core"))

import numpy as np  # noqa: E402
import tensorrt as trt  # noqa: E402  (core/: the stand-in core)
import tensorrt.plugin as trtp  # noqa: E402  (the wheel's package)
from tensorrt.plugin import _lib  # noqa: E402

AOT_API = hasattr(trtp, "KernelLaunchParams")
AOT_API_PACKAGE = hasattr(trtp, "aot_impl")  # the package is 10.9 or newer, whatever the core


def load(path):
    spec = importlib.util.spec_from_file_location("qdp_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def array_dtype(annotation):
    if typing.get_origin(annotation) is np.ndarray:
        return typing.get_args(typing.get_args(annotation)[1])[0]
    return None


def python_value(annotation, value):
    dtype = array_dtype(annotation)
    return np.array(value, dtype=dtype) if dtype is not None else annotation(value)


def onnx_field(name, annotation, value):
    """The PluginField the ONNX parser makes of the attribute (its type from the ONNX attribute)."""
    dtype = array_dtype(annotation)
    if annotation is str:
        return trt.PluginField(name, value.encode() + b"\0", trt.PluginFieldType.CHAR)
    if annotation is float or (dtype is not None and np.issubdtype(dtype, np.floating)):
        return trt.PluginField(name, np.array(value, dtype=np.float32).reshape(-1), trt.PluginFieldType.FLOAT32)
    return trt.PluginField(name, np.array(value, dtype=np.int32).reshape(-1), trt.PluginFieldType.INT32)


def plain(v):
    if isinstance(v, np.ndarray):
        return {"dtype": str(v.dtype), "values": v.tolist()}
    if isinstance(v, (np.generic,)):
        return v.item()
    return v


def create(case, pd, attrs, style, aot):
    ns, name = case["id"].split("::")
    request = [trt.QuickPluginCreationRequest.STRICT_AOT] if aot else []
    if style == "onnx":
        fields = trt.PluginFieldCollection([onnx_field(k, pd.input_attrs[k], attrs[k]) for k in pd.input_attrs])
        creator = trt.get_plugin_registry().get_creator(name, "1", ns)
        return creator.create_plugin(name, ns, fields, trt.TensorRTPhase.BUILD, *request)
    # Keyword arguments in the order register declares them: tensorrt.plugin compares the order.
    values = {k: python_value(pd.input_attrs[k], attrs[k]) for k in pd.input_attrs}
    made = pd(*[trt.ITensor() for _ in case["inputs"]], **values)
    if callable(made):  # 10.9 on: a function of the creation request
        made = made(*request)
    return made[2]


def tensor_desc(dims, dtype):
    d = trt.DynamicPluginTensorDesc()
    d.desc.dims, d.desc.type = trt.Dims(dims), dtype
    return d


class Setter(list):
    def __init__(self):
        super().__init__()
        self.nbSymExprs = 0

    def __setitem__(self, i, v):
        while len(self) <= i:
            self.append(None)
        super().__setitem__(i, v)


class Launch:
    pass


def run(case, pd, module, style, aot, triton_ok):
    result = {}
    plugin = create(case, pd, case["attrs"], style, aot)
    types = [getattr(trt.DataType, i["dtype"]) for i in case["inputs"]]
    out_types = plugin.get_output_data_types(types, [len(i["dims"]) for i in case["inputs"]])
    builder = trt.IExprBuilder()
    in_exprs = [trt.DimsExprs([builder.constant(d) for d in i["dims"]]) for i in case["inputs"]]
    shapes = plugin.get_output_shapes(in_exprs, [], builder)
    # A data-dependent dim reads as its size tensor's upper bound; the size tensor output gets the
    # (opt, upper) it was declared with.
    outputs, sizes = [], {}
    for dtype, exprs in zip(out_types, shapes):
        o = {"dtype": dtype.name, "dims": []}
        for e in exprs:
            if e.size is not None:
                sizes[e.size[0]] = [e.size[1], e.size[2]]
            o["dims"].append(e.value if e.size is None else e.size[2])
        outputs.append(o)
    for index, size in sizes.items():
        outputs[index]["size"] = size
    for i, o in enumerate(plugin.output_descs):
        if o.get_aliased() is not None:
            outputs[i]["aliased"] = True
    result["outputs"] = outputs
    if case.get("attrs_func"):
        seen = getattr(module, case["attrs_func"])(*[plugin.attrs[k] for k in pd.input_attrs])
        result["attrs"] = {k: plain(v) for k, v in zip(pd.input_attrs, seen)}
    out_dims = [o["dims"] for o in outputs]
    in_out = [tensor_desc(i["dims"], t) for i, t in zip(case["inputs"], types)]
    in_out += [tensor_desc(d, t) for d, t in zip(out_dims, out_types)]
    combos = plugin.get_supported_format_combinations(in_out, len(types))
    n = len(in_out)
    result["autotune"] = [
        [[c.type.name for c in combos[k : k + n]], [c.format.name for c in combos[k : k + n]]] for k in range(0, len(combos), n)
    ]
    if aot:
        if not triton_ok:
            result["aot"] = "skipped: no triton"
            return result
        plugin.set_tactic(0)
        launch, setter = Launch(), Setter()
        plugin.get_launch_params(in_exprs, in_out, len(types), launch, setter, builder)
        kernel, ptx = plugin.get_kernel([d.desc for d in in_out[: len(types)]], [d.desc for d in in_out[len(types) :]])
        kernel = kernel.decode() if isinstance(kernel, bytes) else kernel
        ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
        result["aot"] = {
            "kernel": kernel,
            "ptx_has_entry": (".entry " + kernel) in ptx,
            "grid_x": launch.grid_x.expr.value,
            "extra_args": [e.expr.value for e in setter],
        }
    return result


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


OLD_SCALARS = "tensorrt.plugin before 10.9 decodes scalar attributes with int(array), which numpy >= 2 refuses"


def old_scalar_decoding(e):
    return not AOT_API_PACKAGE and "only 0-dimensional arrays" in str(e)


def main():
    module_path, cases_path = sys.argv[1], sys.argv[2]
    triton_ok = compile_for_sm80()
    module = load(module_path)
    with open(cases_path) as f:
        cases = json.load(f)
    results = []
    for case in cases:
        pd = _lib.QDP_REGISTRY[case["id"]]
        aot = getattr(pd, "aot_impl_func", None) is not None  # no such field before 10.9
        result = {"id": case["id"], "impl": pd.impl_func is not None, "aot_api": AOT_API, "styles": {}}
        for style in ("onnx", "python"):
            try:
                result["styles"][style] = run(case, pd, module, style, aot and style == "onnx", triton_ok)
            except TypeError as e:
                if old_scalar_decoding(e):
                    result["styles"][style] = {"skipped": OLD_SCALARS}
                else:
                    result["styles"][style] = {"error": traceback.format_exc()}
            except Exception:  # noqa: BLE001 - reported to the Go test
                result["styles"][style] = {"error": traceback.format_exc()}
        bad = []
        for b in case.get("bad", []):
            attrs = dict(case["attrs"], **{b["attr"]: b["value"]})
            try:
                plugin = create(case, pd, attrs, "onnx", False)
                plugin.get_output_data_types([getattr(trt.DataType, i["dtype"]) for i in case["inputs"]], [len(i["dims"]) for i in case["inputs"]])
                bad.append({"attr": b["attr"], "error": None})
            except ValueError as e:
                bad.append({"attr": b["attr"], "error": str(e)})
            except TypeError as e:
                if not old_scalar_decoding(e):
                    raise
                bad.append({"attr": b["attr"], "skipped": OLD_SCALARS})
        result["bad"] = bad
        results.append(result)
    json.dump(results, sys.stdout, indent=1)


main()
