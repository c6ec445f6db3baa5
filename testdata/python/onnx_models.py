"""Builds ONNX models for the import/rewrite tests, and checks rewritten ones.

Usage:
  python onnx_models.py build DIR
      writes DIR/symbolic.onnx and DIR/external/model.onnx (+ weights.bin),
      built with the onnx package, each passing onnx.checker.
  python onnx_models.py check ORIGINAL REWRITTEN EXPECT.json
      EXPECT maps node names to {"op_type", "domain", "plugin_namespace",
      "plugin_version"}. The rewritten model must pass
      onnx.checker.check_model(full_check=True); the named nodes must have
      the expected op type, domain and plugin attributes with every other
      attribute unchanged; every other node, initializer (external data
      entries included), value info, function and metadata must be equal to
      the original's; tensor data must load the same. Problems are printed,
      one per line, and make the exit status 1.
"""

import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper


def symbolic(path):
    # A custom op with every attribute kind over symbolic dims, a standard
    # op TensorRT lacks with a data-dependent output, and in an If's
    # bodies a custom op and a standard op TensorRT lacks, both reading an
    # outer value.
    x = h.make_tensor_value_info("x", T.FLOAT, ["N", "C", "H", "W"])
    rois = h.make_tensor_value_info("rois", T.FLOAT, ["R", 5])
    cond = h.make_tensor_value_info("cond", T.BOOL, [])
    pooled = h.make_tensor_value_info("pooled", T.FLOAT, ["R", "C", 7, 7])
    uniq = h.make_tensor_value_info("uniq", T.FLOAT, ["U"])
    branch = h.make_tensor_value_info("branch", T.FLOAT, ["N", "C", "H", "W"])
    scale = numpy_helper.from_array(np.arange(4, dtype=np.float32), "scale")
    table = numpy_helper.from_array(np.ones((2, 3), dtype=np.float32), "table")
    then_body = h.make_graph(
        [h.make_node("Swish3", ["x"], ["t"], name="swish_then", domain="custom", beta=1.5)],
        "then", [], [h.make_tensor_value_info("t", T.FLOAT, ["N", "C", "H", "W"])])
    else_body = h.make_graph(
        [h.make_node("Bernoulli", ["x"], ["e"], name="bernoulli_else", seed=1.0)],
        "else", [], [h.make_tensor_value_info("e", T.FLOAT, ["N", "C", "H", "W"])])
    nodes = [
        h.make_node("RoiAlignLite", ["x", "rois", "scale"], ["pooled"], name="roi", domain="custom",
                    sampling_ratio=2, spatial_scale=0.25, mode="avg", pooled_hw=[7, 7],
                    ratios=[0.5, 1.0, 2.0], labels=["cat", "dog"], table=table),
        h.make_node("Flatten", ["x"], ["flat"], name="flatten", axis=0),
        h.make_node("Unique", ["flat"], ["uniq"], name="unique", sorted=1),
        h.make_node("If", ["cond"], ["branch"], name="if", then_branch=then_body, else_branch=else_body),
        h.make_node("Swish3", ["x"], ["sw"], name="swish_top", domain="custom", beta=2.0),
    ]
    g = h.make_graph(nodes, "symbolic", [x, rois, cond], [pooled, uniq, branch,
                     h.make_tensor_value_info("sw", T.FLOAT, ["N", "C", "H", "W"])],
                     initializer=[scale],
                     value_info=[h.make_tensor_value_info("flat", T.FLOAT, [1, "NCHW"])])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17), h.make_opsetid("custom", 1)],
                     producer_name="opforge-test")
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, path)


def external(path):
    # Weights in weights.bin next to the model, one of them feeding a
    # standard op TensorRT lacks.
    x = h.make_tensor_value_info("x", T.FLOAT, ["B", 16])
    y = h.make_tensor_value_info("y", T.FLOAT, ["B", 16])
    w = numpy_helper.from_array(np.linspace(0, 1, 256, dtype=np.float32).reshape(16, 16), "w")
    b = numpy_helper.from_array(np.linspace(1, 2, 16, dtype=np.float32), "b")
    nodes = [
        h.make_node("MatMul", ["x", "w"], ["xw"], name="matmul"),
        h.make_node("BiasGelu", ["xw", "b"], ["y"], name="bias_gelu", domain="custom", approximate="tanh"),
    ]
    g = h.make_graph(nodes, "external", [x], [y], initializer=[w, b],
                     value_info=[h.make_tensor_value_info("xw", T.FLOAT, ["B", 16])])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17), h.make_opsetid("custom", 1)])
    m.ir_version = 8
    os.makedirs(os.path.dirname(path), exist_ok=True)
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="weights.bin", size_threshold=0)
    onnx.checker.check_model(path, full_check=True)


def walk(graph):
    for n in graph.node:
        yield n
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from walk(a.g)
            for sub in a.graphs:
                yield from walk(sub)


def strip_subgraphs(node):
    # Nodes holding an edited subgraph differ only inside it; compare the rest.
    n = onnx.NodeProto()
    n.CopyFrom(node)
    for a in n.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            a.g.Clear()
        del a.graphs[:]
    return n


def check(original, rewritten, expect_path):
    problems = []
    with open(expect_path) as f:
        expect = json.load(f)
    try:
        onnx.checker.check_model(rewritten, full_check=True)
    except Exception as e:  # noqa: BLE001 - report whatever the checker says
        problems.append("onnx.checker: %s" % e)
    a = onnx.load(original, load_external_data=False)
    b = onnx.load(rewritten, load_external_data=False)
    na, nb = list(walk(a.graph)), list(walk(b.graph))
    if len(na) != len(nb):
        problems.append("node count %d -> %d" % (len(na), len(nb)))
    seen = set()
    for x, y in zip(na, nb):
        want = expect.get(x.name)
        if want is None:
            if strip_subgraphs(x) != strip_subgraphs(y):
                problems.append("node %s changed:\n%s\n->\n%s" % (x.name, x, y))
            continue
        seen.add(x.name)
        if y.op_type != want["op_type"] or y.domain != want["domain"]:
            problems.append("node %s: op %s domain %r, want %s %r" % (x.name, y.op_type, y.domain, want["op_type"], want["domain"]))
        if list(x.input) != list(y.input) or list(x.output) != list(y.output) or x.name != y.name:
            problems.append("node %s: inputs, outputs or name changed" % x.name)
        attrs = {at.name: at for at in y.attribute}
        for k in ("plugin_namespace", "plugin_version"):
            at = attrs.pop(k, None)
            if at is None or at.type != onnx.AttributeProto.STRING or at.s.decode() != want[k]:
                problems.append("node %s: %s is %s, want the string %r" % (x.name, k, at, want[k]))
        before = {at.name: at for at in x.attribute if at.name not in ("plugin_namespace", "plugin_version")}
        if before != attrs:
            problems.append("node %s: attributes changed" % x.name)
    for name in set(expect) - seen:
        problems.append("node %s not found" % name)
    for field in ("initializer", "input", "output", "value_info", "sparse_initializer"):
        if list(getattr(a.graph, field)) != list(getattr(b.graph, field)):
            problems.append("graph.%s changed" % field)
    for field in ("functions", "metadata_props", "training_info"):
        if list(getattr(a, field)) != list(getattr(b, field)):
            problems.append("model.%s changed" % field)
    for field in ("ir_version", "producer_name", "producer_version", "domain", "model_version", "doc_string"):
        if getattr(a, field) != getattr(b, field):
            problems.append("model.%s changed" % field)
    missing = [o for o in a.opset_import if o not in b.opset_import]
    if missing:
        problems.append("opset imports dropped: %s" % missing)
    # External data resolves next to the rewritten model and holds the same values.
    fa, fb = onnx.load(original), onnx.load(rewritten)
    for ta, tb in zip(fa.graph.initializer, fb.graph.initializer):
        if not np.array_equal(numpy_helper.to_array(ta), numpy_helper.to_array(tb)):
            problems.append("initializer %s data differs" % ta.name)
    for p in problems:
        print(p)
    return 1 if problems else 0


def main():
    if sys.argv[1] == "build":
        d = sys.argv[2]
        os.makedirs(d, exist_ok=True)
        symbolic(os.path.join(d, "symbolic.onnx"))
        external(os.path.join(d, "external", "model.onnx"))
        return 0
    if sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3], sys.argv[4])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
