"""Checks the relations (requires:) of the relations golden tree where Python sees shapes: the ExecuTorch fakes
(torch._check, on meta tensors) and the Compass Parser's infer_shape (ValueError, on numpy arrays, with a stand-in
for the Compass SDK modules it imports). Each op accepts shapes that hold its relations and refuses shapes that
break one with a message naming the op. Usage: check_relations.py <out dir of testdata/gen/relations>."""

import importlib.util
import os
import sys
import types

import numpy as np
import torch

OUT = sys.argv[1]


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def refused(call, want):
    try:
        call()
    except Exception as e:  # torch._check raises RuntimeError, the Parser ValueError
        if want not in str(e):
            raise SystemExit(f"refused with {e!r}, not {want!r}")
        return
    raise SystemExit(f"accepted shapes that break {want!r}")


# (op, snake name, good args, bad args, message): shapes as tuples, params as ints.
CASES = [
    ("SpanAttention", "span_attention", [(2, 3, 4), (2, 3, 4)], [(2, 3, 5), (2, 3, 5)], {"span": 2},
     "SpanAttention: requires K == 2 * span"),
    ("GroupNorm", "group_norm", [(2, 6, 3, 3), (6,)], [(2, 7, 3, 3), (7,)], {"num_groups": 2},
     "GroupNorm: requires C % num_groups == 0"),
    ("ScatterAlong", "scatter_along", [(4, 5), (2, 5), (2, 5)], [(4, 5), (2, 5, 1), (2, 5, 1)], {"axis": 0},
     "ScatterAlong: requires rank(data) == rank(indices)"),
    ("ScatterAlong", "scatter_along", [(4, 5), (2, 5), (2, 5)], [(4, 5), (2, 5), (2, 4)], {"axis": 0},
     "ScatterAlong: requires shape(indices) == shape(updates)"),
    ("ClassBoxes", "class_boxes", [(2, 3, 5), (2, 3, 5, 4)], [(2, 3, 5), (2, 3, 6, 4)], {},
     "ClassBoxes: requires shape(boxes) in ([B, N, 4], [B, N, C, 4])"),
]


def fakes():
    load("relations", os.path.join(OUT, "htp", "Relations", "executorch", "relations.py"))
    for _, snake, good, bad, params, want in CASES:
        op = getattr(torch.ops.relations, snake)
        meta = lambda shapes: [torch.empty(s, device="meta") for s in shapes]
        op(*meta(good), *params.values())
        refused(lambda: op(*meta(bad), *params.values()), want)


def parsers():
    # The Compass Parser modules import AIPUBuilder; infer_shape needs none of it.
    plugin_op = types.ModuleType("AIPUBuilder.Parser.plugin_op")

    class ParserOp:
        def __init__(self, framework, attrs):
            self.params, self.constants = {}, {}

    plugin_op.ParserOp = ParserOp
    loader = types.ModuleType("AIPUBuilder.Parser.plugin_loader")
    loader.register_plugin = lambda *a, **k: (lambda cls: cls)
    loader.PluginType = types.SimpleNamespace(Parser=0)
    for name, module in [("AIPUBuilder", types.ModuleType("AIPUBuilder")), ("AIPUBuilder.Parser", types.ModuleType("AIPUBuilder.Parser")),
                         ("AIPUBuilder.Parser.plugin_op", plugin_op), ("AIPUBuilder.Parser.plugin_loader", loader)]:
        sys.modules.setdefault(name, module)
    if "ml_dtypes" not in sys.modules:
        try:
            import ml_dtypes  # noqa: F401
        except ImportError:
            sys.modules["ml_dtypes"] = types.ModuleType("ml_dtypes")
    for op, snake, good, bad, params, want in CASES:
        module = load("parser_" + snake, os.path.join(OUT, "aipu", "Relations", "parser", "aipubt_parser_" + snake + ".py"))
        cls = next(v for v in vars(module).values() if isinstance(v, type) and issubclass(v, ParserOp) and v is not ParserOp)
        parser = cls.__new__(cls)
        parser.params, parser.constants = dict(params), {}
        arrays = lambda shapes: [np.zeros(s, dtype=np.float32) for s in shapes]
        parser.infer_shape(arrays(good))
        refused(lambda: parser.infer_shape(arrays(bad)), want)


fakes()
parsers()
print("relations: %d cases refused by the ExecuTorch fakes and the Compass Parser" % len(CASES))
