"""The reference module of ops imported from ONNX runs the model's ops.

  onnx_reference.py build DIR
      writes DIR/model.onnx: x [N, 3, 3] -> Det -> d; x -> LeakyRelu(alpha=0.2)
      -> l; l -> custom::Swish (a function of the model: v * Sigmoid(v)) -> s.
  onnx_reference.py check MODULE.py
      imports the generated reference module and checks each op against
      torch: det, leaky relu with the default and another alpha, swish.
"""

import importlib.util
import sys


def build(d):
    import onnx
    from onnx import TensorProto, helper

    swish = helper.make_function(
        "custom", "Swish", ["v"], ["w"],
        [helper.make_node("Sigmoid", ["v"], ["sv"]), helper.make_node("Mul", ["v", "sv"], ["w"])],
        [helper.make_opsetid("", 17)])
    nodes = [
        helper.make_node("Det", ["x"], ["d"], name="det"),
        helper.make_node("LeakyRelu", ["x"], ["l"], name="leaky", alpha=0.2),
        helper.make_node("Swish", ["l"], ["s"], name="swish", domain="custom"),
    ]
    g = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 3])],
        [helper.make_tensor_value_info("d", TensorProto.FLOAT, ["N"]),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, ["N", 3, 3])],
        value_info=[helper.make_tensor_value_info("l", TensorProto.FLOAT, ["N", 3, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("custom", 1)],
                          functions=[swish])
    m.ir_version = 10
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, d + "/model.onnx")


def check(module):
    import torch

    spec = importlib.util.spec_from_file_location("reference_under_test", module)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = torch.randn(5, 3, 3, generator=torch.Generator().manual_seed(0))
    cases = [
        ("DetPlugin", mod.OPS["DetPlugin"](x), torch.linalg.det(x)),
        ("LeakyReluPlugin", mod.OPS["LeakyReluPlugin"](x, alpha=0.2), torch.nn.functional.leaky_relu(x, 0.2)),
        ("LeakyReluPlugin alpha=0.5", mod.OPS["LeakyReluPlugin"](x, alpha=0.5), torch.nn.functional.leaky_relu(x, 0.5)),
        ("SwishPlugin", mod.OPS["SwishPlugin"](x), x * torch.sigmoid(x)),
    ]
    bad = 0
    for name, got, want in cases:
        err = float((got - want).abs().max())
        ok = got.shape == want.shape and got.dtype == want.dtype and err <= 1e-5
        print(f"{name}: shape {tuple(got.shape)} {got.dtype} max abs error {err:.2e} {'ok' if ok else 'MISMATCH'}")
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "build":
        build(sys.argv[2])
        sys.exit(0)
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
