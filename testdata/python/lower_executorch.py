"""Lowers calls of a generated ExecuTorch op with the real executorch wheel.

Usage: python lower_executorch.py PLAN.json builder|delegate|calibrate
The plan names the generated module, the op, its sample inputs and required
params, the op package directory and the SoC; for an op imported from a
torch.library op (opforge import torch), torch_module names the .py file
that defines it: imported first, as the user's model does, and the models
call torch.ops.<namespace>.<op> directly.

Two stages:

builder   For a call leaving every default out and one passing each
          explicitly: torch.export, then to_edge with the Qualcomm pass
          pipeline, then the Qualcomm CustomOp builder (the node visitor the
          partitioner runs, made from the generated op_package_options())
          must accept the node: it returns no op wrapper when the node's
          argument count differs from the schema's. Needs executorch only.
delegate  to_edge_transform_and_lower_to_qnn with the Qualcomm partitioner
          and the generated op_package_options(): the custom node must end
          up inside the delegate (no call of it left in the edge graph, one
          executorch_call_delegate). Needs the QNN HTP backend (libQnnHtp.so
          on LD_LIBRARY_PATH, QNN_SDK_ROOT set so that executorch does not
          try to download an SDK) and the package's x86 build at the path
          op_package_options() registers.

calibrate PT2E quantization with the Qualcomm quantizer, for both calls, of
          the module at calibrate_module (a copy whose reference module has
          the op written): calibration runs the prepared model eagerly, so
          the op's eager implementation must call the reference and return
          what it returns; convert_pt2e must then succeed. Needs executorch
          only.

Exit status 1 when the stage failed.
"""

import collections
import importlib.util
import inspect
import json
import os
import sys
import traceback
import warnings

sys.dont_write_bytecode = True  # never leave __pycache__ in the generated trees

import torch  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


DTYPES = {name: getattr(torch, name) for name in ["float16", "float32", "int32", "uint8"]}


def load(plan):
    if "torch_module" in plan:
        # The user's model imports the module that defines the op, by its
        # name, before the generated ExecuTorch module.
        sys.path.insert(0, os.path.dirname(plan["torch_module"]))
        importlib.import_module(os.path.splitext(os.path.basename(plan["torch_module"]))[0])
    spec = importlib.util.spec_from_file_location(plan["namespace"], plan["module"])
    mod = importlib.util.module_from_spec(spec)
    # Registered as an import would: strict torch.export (dynamo) looks the
    # module's globals up by the module's name.
    sys.modules[plan["namespace"]] = mod
    spec.loader.exec_module(mod)
    return mod


def models(mod, plan):
    """One model leaving the defaults out, one passing each explicitly. A
    plan with torch_module (an op imported from it) calls the op as a model
    written against that module does, torch.ops.<namespace>.<op>, with the
    defaults of its schema; else the generated module's ops.<op>."""
    if "torch_module" in plan:
        call = getattr(getattr(torch.ops, plan["namespace"]), plan["op"])
        defaults = {a.name: a.default_value for a in call.default._schema.arguments if a.has_default_value()}
    else:
        call = getattr(mod.ops, plan["op"])
        defaults = {n: p.default for n, p in inspect.signature(call).parameters.items() if p.default is not inspect.Parameter.empty}
    if not defaults:
        fail(f"{plan['op']}: the op has no defaulted param, so the test proves nothing")
    required = plan["required"]

    class LeftOut(torch.nn.Module):
        def forward(self, *xs):
            return call(*xs, **required)

    class Passed(torch.nn.Module):
        def forward(self, *xs):
            return call(*xs, **required, **defaults)

    return {"defaults left out": LeftOut(), "defaults passed": Passed()}


def sample(plan):
    return tuple(torch.rand(a["shape"], dtype=DTYPES[a["dtype"]]) for a in plan["inputs"])


def custom_nodes(gm, target):
    """The calls of target (by the name the partitioner looks visitors up by:
    an edge op's __name__ is the torch op's)."""
    return [n for n in gm.graph.nodes if n.op == "call_function" and getattr(n.target, "__name__", "") == target]


def compiler_specs(mod, plan):
    from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset, _soc_info_table
    from executorch.backends.qualcomm.utils.utils import (
        generate_htp_compiler_spec,
        generate_qnn_executorch_compiler_spec,
    )

    soc = getattr(QcomChipset, plan["soc"])
    arch = _soc_info_table[soc].htp_info.htp_arch
    options = mod.op_package_options(plan["package_dir"], "/data/local/tmp/opforge", int(arch))
    specs = generate_qnn_executorch_compiler_spec(
        soc_model=soc,
        backend_options=generate_htp_compiler_spec(use_fp16=True),
        op_package_options=options,
    )
    return options, specs


def stage_builder(mod, plan):
    """The CustomOp node visitor on the edge graph, without a QNN backend."""
    from executorch.backends.qualcomm._passes.qnn_pass_manager import QnnPassManager
    from executorch.backends.qualcomm.builders import node_visitor_manager
    from executorch.backends.qualcomm.utils.utils import qnn_edge_config
    from executorch.exir import to_edge_transform_and_lower

    options, specs = compiler_specs(mod, plan)
    target = f"{plan['namespace']}.{plan['op']}.default"
    for what, model in models(mod, plan).items():
        # What to_edge_transform_and_lower_to_qnn does, less the partitioner.
        ep = torch.export.export(model, sample(plan), strict=True)
        # A fresh pass manager for each step, as the vendor's function does
        # (one left holding the export pipeline's passes breaks 1.0's edge
        # step).
        aten = QnnPassManager().transform_for_export_pipeline(ep)
        passes = QnnPassManager()
        # executorch 1.0 takes no compiler_specs here; later releases do.
        extra = {"compiler_specs": specs} if "compiler_specs" in inspect.signature(passes.get_to_edge_transform_passes).parameters else {}
        edge = to_edge_transform_and_lower(
            aten,
            transform_passes=passes.get_to_edge_transform_passes(ep, **extra),
            compile_config=qnn_edge_config(),
        ).exported_program()
        nodes = custom_nodes(edge.graph_module, target)
        if len(nodes) != 1:
            fail(f"builder ({what}): {len(nodes)} calls of {target} in the edge graph, want 1: {[str(n.target) for n in edge.graph_module.graph.nodes if n.op == 'call_function']}")
            continue
        node = nodes[0]
        visitors = node_visitor_manager.get_node_visitors(edge, op_package_infos=options.op_package_infos)
        visitor = visitors.get(node.target.__name__)
        if visitor is None:
            fail(f"builder ({what}): no CustomOp visitor for {node.target.__name__}; visitors from op_package_options: {[k for k in visitors if '.' in k and plan['namespace'] in k]}")
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            wrapper = visitor.define_node(node, collections.defaultdict(dict))
        if wrapper is None:
            fail(f"builder ({what}): the Qualcomm CustomOp builder refused the node ({len(node.args)} args, schema {len(node.target._schema.arguments)}): {[str(w.message) for w in caught]}")
            continue
        print(f"builder ({what}): accepted, {len(node.args)} args for {len(node.target._schema.arguments)} schema arguments")


def stage_delegate(mod, plan):
    """The full lowering with the Qualcomm partitioner."""
    from executorch.backends.qualcomm.utils.utils import to_edge_transform_and_lower_to_qnn

    _, specs = compiler_specs(mod, plan)
    target = f"{plan['namespace']}.{plan['op']}.default"
    for what, model in models(mod, plan).items():
        try:
            edge = to_edge_transform_and_lower_to_qnn(model, sample(plan), specs)
        except Exception as e:  # noqa: BLE001 - report how far it got
            fail(f"delegate ({what}): lowering raised {type(e).__name__}: {e}\n{traceback.format_exc()}")
            continue
        gm = edge.exported_program().graph_module
        left = custom_nodes(gm, target)
        delegates = [n for n in gm.graph.nodes if n.op == "call_function" and "executorch_call_delegate" in str(n.target)]
        if left or len(delegates) != 1:
            fail(f"delegate ({what}): {len(left)} calls of {target} left outside the delegate, {len(delegates)} delegate calls:\n{gm.graph}")
            continue
        print(f"delegate ({what}): delegated")


def stage_calibrate(mod, plan):
    """Calibration through the eager implementation and the reference."""
    from executorch.backends.qualcomm.quantizer.quantizer import QnnQuantizer
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    ref = mod._reference_module()
    real = ref.OPS[plan["qnn_op"]]
    calls = []

    def counted(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    ref.OPS[plan["qnn_op"]] = counted
    for what, model in models(mod, plan).items():
        calls.clear()
        xs = sample(plan)
        prepared = prepare_pt2e(torch.export.export(model, xs, strict=True).module(), QnnQuantizer())
        got = prepared(*xs)
        if not calls:
            fail(f"calibrate ({what}): the prepared model ran without calling the reference")
            continue
        args, kwargs = calls[-1]
        want = real(*args, **kwargs)
        if not torch.equal(got, want):
            fail(f"calibrate ({what}): the prepared model returned {got}, the reference {want}")
            continue
        convert_pt2e(prepared)
        print(f"calibrate ({what}): the reference ran {len(calls)} time(s) with {kwargs}; converted")


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    if sys.argv[2] == "calibrate":
        plan = dict(plan, module=plan["calibrate_module"])
    mod = load(plan)
    stage = {"builder": stage_builder, "delegate": stage_delegate, "calibrate": stage_calibrate}[sys.argv[2]]
    try:
        stage(mod, plan)
    except Exception as e:  # noqa: BLE001
        fail(f"{sys.argv[2]}: {type(e).__name__}: {e}\n{traceback.format_exc()}")
    print(f"{len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
