"""Checks generated ExecuTorch modules against a plan computed by the Go test.

Usage: python check_executorch.py PLAN.json
For every module: it imports, defines the functional and .out operators
with schemas declaring no defaults, its fake implementations give the
declared output shapes and dtypes, a model calling each operator exports
with torch.export with the node carrying every schema argument (through
ops.<name> with the defaults left out and passed, and through the torch op
by keyword), the eager implementation calls the package's reference
module with the params as the reference takes them (and, while the
reference is not written, raises NotImplementedError naming quantization
calibration), and op_package_options()
builds the documented QnnExecuTorchOpPackageInfo records (checked against a
stand-in of executorch's qc_schema with the documented fields).
"""

import re
import dataclasses
import enum
import importlib.util
import inspect
import json
import sys
import types
from typing import List


sys.dont_write_bytecode = True  # never leave __pycache__ in the generated trees

import torch  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv

failures = []
counted = []  # exported calls whose node carried every argument


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def install_qc_schema_standin():
    """The documented executorch.backends.qualcomm.serialization.qc_schema types."""

    class QnnExecuTorchOpPackageTarget(enum.IntEnum):
        UNKNOWN = 0
        CPU = 1
        HTP = 2

    class QnnExecuTorchOpPackagePlatform(enum.IntEnum):
        UNKNOWN = 0
        X86_64 = 1
        AARCH64_ANDROID = 2

    @dataclasses.dataclass
    class QnnExecuTorchOpPackageInfo:
        op_package_name: str = ""
        op_package_path: str = ""
        interface_provider: str = ""
        target: QnnExecuTorchOpPackageTarget = QnnExecuTorchOpPackageTarget.UNKNOWN
        custom_op_name: str = ""
        qnn_op_type_name: str = ""
        platform: QnnExecuTorchOpPackagePlatform = QnnExecuTorchOpPackagePlatform.UNKNOWN

    @dataclasses.dataclass
    class QnnExecuTorchOpPackageOptions:
        op_package_infos: List[QnnExecuTorchOpPackageInfo] = dataclasses.field(default_factory=list)

    names = ["executorch", "executorch.backends", "executorch.backends.qualcomm",
             "executorch.backends.qualcomm.serialization", "executorch.backends.qualcomm.serialization.qc_schema"]
    for n in names:
        sys.modules[n] = types.ModuleType(n)
    qc = sys.modules[names[-1]]
    for cls in (QnnExecuTorchOpPackageTarget, QnnExecuTorchOpPackagePlatform,
                QnnExecuTorchOpPackageInfo, QnnExecuTorchOpPackageOptions):
        setattr(qc, cls.__name__, cls)
    return qc


DTYPES = {name: getattr(torch, name) for name in [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64"]}


def make_args(case, make_tensor):
    """Inputs positionally; required params by keyword (defaulted ones are
    left out, so the wrapper's defaults are exercised)."""
    args = []
    for a in case["args"]:
        args.append(make_tensor(a["shape"], DTYPES[a["dtype"]]) if a["kind"] == "tensor" else None)
    kwargs = {}
    for k in case["kwargs"]:
        if k["kind"] == "tensor":
            kwargs[k["name"]] = make_tensor(k["shape"], DTYPES[k["dtype"]])
        else:
            kwargs[k["name"]] = k["value"]
    return args, kwargs


def wrapper(mod, case):
    """The generated ops.<name>: the call that fills in the defaults."""
    return getattr(mod.ops, case["op"])


def explicit_defaults(mod, case):
    """Every defaulted param of the wrapper, passed explicitly by keyword
    with its default value."""
    sig = inspect.signature(wrapper(mod, case))
    return {n: p.default for n, p in sig.parameters.items() if p.default is not inspect.Parameter.empty}


def check_fake(mod, case):
    ns = mod.NAMESPACE
    with FakeTensorMode(shape_env=ShapeEnv()):
        args, kwargs = make_args(case, lambda shape, dtype: torch.empty(shape, dtype=dtype))
        outs = wrapper(mod, case)(*args, **kwargs)
        # An axis param past the input's rank: the fake says so.
        for name, value in case.get("bad_axes", {}).items():
            try:
                wrapper(mod, case)(*args, **dict(kwargs, **{name: value}))
                fail(f"{ns}::{case['op']}: {name}={value} is no axis of the input, but the fake implementation accepted it")
            except IndexError as e:
                if not re.search(r"(?<![\w.-])" + re.escape(str(value)) + r"(?![\w.])", str(e)):
                    fail(f"{ns}::{case['op']}: {name}={value}: the IndexError does not name the axis: {e}")
    if not isinstance(outs, (tuple, list)):
        outs = (outs,)
    if len(outs) != len(case["outputs"]):
        fail(f"{ns}::{case['op']}: {len(outs)} outputs, want {len(case['outputs'])}")
        return
    for got, want in zip(outs, case["outputs"]):
        shape = list(got.shape)
        if len(shape) != len(want["shape"]):
            fail(f"{ns}::{case['op']} {want['name']}: rank {len(shape)}, want {len(want['shape'])}")
            continue
        for i, (g, w) in enumerate(zip(shape, want["shape"])):
            if w is None:  # data-dependent
                if isinstance(g, int):
                    fail(f"{ns}::{case['op']} {want['name']} dim {i}: {g}, want a data-dependent size")
            elif g != w:
                fail(f"{ns}::{case['op']} {want['name']}: dim {i}: {g}, want {w}")
        if str(got.dtype) != "torch." + want["dtype"]:
            fail(f"{ns}::{case['op']} {want['name']}: dtype {got.dtype}, want torch.{want['dtype']}")


def export_call(mod, case, call, what):
    """Exports a model making one call of the op and checks the exported
    node carries every argument of the schema positionally: ExecuTorch's
    Qualcomm custom-op builder zips node.args with the schema arguments and
    refuses the node when the counts differ (node.kwargs are not read)."""
    ns = mod.NAMESPACE
    args, kwargs = make_args(case, lambda shape, dtype: torch.zeros(shape, dtype=dtype))
    example = tuple(a for a in args if a is not None)

    class Model(torch.nn.Module):
        def forward(self, *xs):
            it = iter(xs)
            return call([next(it) if a is not None else None for a in args], kwargs)

    try:
        ep = torch.export.export(Model(), example)
    except Exception as e:  # noqa: BLE001 - report every failure
        fail(f"{ns}::{case['op']} ({what}): torch.export failed: {type(e).__name__}: {e}")
        return
    nodes = [n for n in ep.graph.nodes if n.op == "call_function" and str(n.target) == f"{ns}.{case['op']}.default"]
    if len(nodes) != 1:
        targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
        fail(f"{ns}::{case['op']} ({what}): exported graph does not call the op once: {targets}")
        return
    node = nodes[0]
    schema = node.target._schema.arguments
    if len(node.args) != len(schema) or node.kwargs:
        fail(f"{ns}::{case['op']} ({what}): exported node has {len(node.args)} args and kwargs {dict(node.kwargs)}, schema has {len(schema)} arguments")
        return
    counted.append(f"{ns}::{case['op']} ({what})")


def check_export(mod, case):
    op = getattr(getattr(torch.ops, mod.NAMESPACE), case["op"]).default
    call = wrapper(mod, case)
    defaults = explicit_defaults(mod, case)
    export_call(mod, case, lambda a, kw: call(*a, **kw), "defaults left out")
    export_call(mod, case, lambda a, kw: call(*a, **kw, **defaults), "defaults passed")
    # The schema itself, every argument passed by keyword: torch.export
    # still records them positionally.
    names = [arg.name for arg in op._schema.arguments]

    def direct(a, kw):
        values = dict(zip(names, a))
        values.update(kw)
        values.update(defaults)
        return op(**values)

    export_call(mod, case, direct, "torch op, keywords")


def check_schema(mod, case):
    """The schemas declare no defaults, so a direct call cannot leave an
    argument out and have torch.export drop it."""
    ns = mod.NAMESPACE
    packet = getattr(getattr(torch.ops, ns), case["op"])
    for overload in ("default", "out"):
        if overload not in packet.overloads():
            fail(f"{ns}::{case['op']}: no .{overload} overload")
            continue
        for arg in getattr(packet, overload)._schema.arguments:
            if arg.has_default_value():
                fail(f"{ns}::{case['op']}.{overload}: argument {arg.name} has a schema default")
    if explicit_defaults(mod, case):
        args, kwargs = make_args(case, lambda shape, dtype: torch.empty(shape, dtype=dtype, device="meta"))
        try:
            packet.default(*args, **kwargs)
            fail(f"{ns}::{case['op']}: a direct call leaving out a defaulted argument was accepted")
        except RuntimeError:
            pass


class _Called(Exception):
    """Raised by the stand-in reference: the call it recorded ends there."""


def check_reference_call(mod, case):
    """The eager implementation calls the package's reference module (a
    stand-in put in sys.modules under its name): OPS[<QNN op>] with the
    inputs positionally and every param by keyword as the reference takes
    it (enums by value name, arrays as tuples)."""
    ns = mod.NAMESPACE
    calls = []

    def record(*args, **kwargs):
        calls.append((args, kwargs))
        raise _Called()

    stub = types.ModuleType(mod._REFERENCE)
    stub.OPS = {case["qnn_op"]: record}
    saved = sys.modules.get(mod._REFERENCE)
    sys.modules[mod._REFERENCE] = stub
    try:
        args, kwargs = make_args(case, lambda shape, dtype: torch.zeros(shape, dtype=dtype))
        try:
            wrapper(mod, case)(*args, **kwargs)
        except _Called:
            pass
    finally:
        if saved is None:
            del sys.modules[mod._REFERENCE]
        else:
            sys.modules[mod._REFERENCE] = saved
    if len(calls) != 1:
        fail(f"{ns}::{case['op']}: the eager implementation called the reference {len(calls)} times, want once")
        return
    got_args, got_kwargs = calls[0]
    if len(got_args) != len(args) or any(g is not w for g, w in zip(got_args, args)):
        fail(f"{ns}::{case['op']}: the reference got inputs {got_args}, want the call's {args}")
    want = case["ref_params"]
    if set(got_kwargs) != set(want):
        fail(f"{ns}::{case['op']}: the reference got params {sorted(got_kwargs)}, want {sorted(want)}")
        return
    for name, w in want.items():
        g = got_kwargs[name]
        if w is None:
            ok = isinstance(g, torch.Tensor)
        elif isinstance(w, list):
            ok = isinstance(g, tuple) and list(g) == w
        elif isinstance(w, str):
            ok = isinstance(g, str) and g == w
        else:
            ok = not isinstance(g, (str, list, tuple)) and g == w
        if not ok:
            fail(f"{ns}::{case['op']}: the reference got {name}={g!r}, want {w!r}")


def check_module(m):
    spec = importlib.util.spec_from_file_location(m["namespace"], m["path"])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ns = mod.NAMESPACE
    for case in m["cases"]:
        check_schema(mod, case)
        check_fake(mod, case)
        if not case.get("skip_export"):
            check_export(mod, case)
        # The generated eager implementation is a stub until the user writes it.
        try:
            args, kwargs = make_args(case, lambda shape, dtype: torch.zeros(shape, dtype=dtype))
            wrapper(mod, case)(*args, **kwargs)
            fail(f"{ns}::{case['op']}: the default reference implementation did not raise")
        except NotImplementedError as e:
            if "quantization calibration" not in str(e):
                fail(f"{ns}::{case['op']}: the reference's error does not mention calibration: {e}")
        check_reference_call(mod, case)
    qc = sys.modules["executorch.backends.qualcomm.serialization.qc_schema"]
    opts = mod.op_package_options("/pkg", "/data/local/tmp/pkg", 75)
    infos = opts.op_package_infos
    if len(infos) != 3 * len(m["cases"]):
        fail(f"{ns}: {len(infos)} op package infos, want {3 * len(m['cases'])}")
    lib = "libQnn" + m["package"]
    want_places = {
        (f"/pkg/build/x86_64-linux-clang/{lib}.so", qc.QnnExecuTorchOpPackageTarget.CPU, qc.QnnExecuTorchOpPackagePlatform.X86_64),
        (f"/data/local/tmp/pkg/{lib}.so", qc.QnnExecuTorchOpPackageTarget.CPU, qc.QnnExecuTorchOpPackagePlatform.AARCH64_ANDROID),
        (f"/data/local/tmp/pkg/{lib}_HTP.so", qc.QnnExecuTorchOpPackageTarget.HTP, qc.QnnExecuTorchOpPackagePlatform.AARCH64_ANDROID),
    }
    for case in m["cases"]:
        mine = [i for i in infos if i.qnn_op_type_name == case["qnn_op"]]
        places = {(i.op_package_path, i.target, i.platform) for i in mine}
        if places != want_places:
            fail(f"{ns}::{case['op']}: placements {places}")
        for i in mine:
            if i.op_package_name != m["package"] or i.interface_provider != m["package"] + "InterfaceProvider":
                fail(f"{ns}::{case['op']}: package/provider {i.op_package_name}/{i.interface_provider}")
            if i.custom_op_name != f"{ns}.{case['op']}.default":
                fail(f"{ns}::{case['op']}: custom_op_name {i.custom_op_name}")
    # opforge build's layout: the variants under build/htp/<Package>/.
    built = mod.op_package_options("/pkg", "/data/local/tmp/pkg", 75, build_dir=f"/repo/build/htp/{m['package']}")
    x86 = {i.op_package_path for i in built.op_package_infos if i.platform == qc.QnnExecuTorchOpPackagePlatform.X86_64}
    if x86 != {f"/repo/build/htp/{m['package']}/x86_64-linux-clang/{lib}.so"}:
        fail(f"{ns}: x86 libraries with build_dir: {x86}")


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    install_qc_schema_standin()
    for m in plan["modules"]:
        try:
            check_module(m)
        except Exception as e:  # noqa: BLE001
            fail(f"{m['path']}: {type(e).__name__}: {e}")
    checked = sum(len(m["cases"]) for m in plan["modules"])
    exported = sum(1 for m in plan["modules"] for c in m["cases"] if not c.get("skip_export"))
    if len(counted) != 3 * exported:
        fail(f"{len(counted)} exported calls carried every argument, want {3 * exported}")
    print(f"exported calls carrying every schema argument: {len(counted)}")
    print(f"{checked} ops checked, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
