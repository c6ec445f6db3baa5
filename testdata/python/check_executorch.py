"""Checks generated ExecuTorch modules against a plan computed by the Go test.

Usage: python check_executorch.py PLAN.json
For every module: it imports, defines the functional and .out operators,
its fake implementations give the declared output shapes and dtypes, a model
calling each operator exports with torch.export, and op_package_options()
builds the documented QnnExecuTorchOpPackageInfo records (checked against a
stand-in of executorch's qc_schema with the documented fields).
"""

import dataclasses
import enum
import importlib.util
import json
import sys
import types
from typing import List


sys.dont_write_bytecode = True  # never leave __pycache__ in the generated trees

import torch  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv

failures = []


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
    left out, so the schema's defaults are exercised)."""
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


def check_fake(ns, case):
    op = getattr(getattr(torch.ops, ns), case["op"])
    with FakeTensorMode(shape_env=ShapeEnv()):
        args, kwargs = make_args(case, lambda shape, dtype: torch.empty(shape, dtype=dtype))
        outs = op(*args, **kwargs)
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
                fail(f"{ns}::{case['op']} {want['name']} dim {i}: {g}, want {w}")
        if str(got.dtype) != "torch." + want["dtype"]:
            fail(f"{ns}::{case['op']} {want['name']}: dtype {got.dtype}, want torch.{want['dtype']}")


def check_export(ns, case):
    op = getattr(getattr(torch.ops, ns), case["op"])
    args, kwargs = make_args(case, lambda shape, dtype: torch.zeros(shape, dtype=dtype))
    example = tuple(a for a in args if a is not None)

    class Model(torch.nn.Module):
        def forward(self, *xs):
            it = iter(xs)
            call = [next(it) if a is not None else None for a in args]
            return op(*call, **kwargs)

    try:
        ep = torch.export.export(Model(), example)
    except Exception as e:  # noqa: BLE001 - report every failure
        fail(f"{ns}::{case['op']}: torch.export failed: {type(e).__name__}: {e}")
        return
    targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
    if not any(t.startswith(f"{ns}.{case['op']}") for t in targets):
        fail(f"{ns}::{case['op']}: exported graph does not call the op: {targets}")


def check_module(m):
    spec = importlib.util.spec_from_file_location(m["namespace"], m["path"])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ns = mod.NAMESPACE
    for case in m["cases"]:
        packet = getattr(getattr(torch.ops, ns), case["op"])
        for overload in ("default", "out"):
            if overload not in packet.overloads():
                fail(f"{ns}::{case['op']}: no .{overload} overload")
        check_fake(ns, case)
        if not case.get("skip_export"):
            check_export(ns, case)
        # The generated eager implementation is a stub until the user writes it.
        try:
            args, kwargs = make_args(case, lambda shape, dtype: torch.zeros(shape, dtype=dtype))
            packet(*args, **kwargs)
            fail(f"{ns}::{case['op']}: the default reference implementation did not raise")
        except NotImplementedError:
            pass
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
    print(f"{checked - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
