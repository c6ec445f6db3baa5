"""Runs an opforge-built HTP op package inside Qualcomm's HTP backend (x86)
through ONNX Runtime's QNN execution provider (the onnxruntime-qnn wheel).

  qnn_ep_run.py model OUT.onnx
      writes a one-node model y = Relu(x), x float32 [1, 2, 3, 4], node "r0",
      for `opforge rewrite onnx --for htp` to retarget to the package's op.
  qnn_ep_run.py versions
      prints the onnxruntime, onnxruntime-qnn and bundled QNN versions and
      the path of the wheel's libQnnHtp.so.
  qnn_ep_run.py run MODEL.onnx PACKAGE.so OP_TYPE INTERFACE_PROVIDER
      runs MODEL with the package registered (op_packages) on the HTP
      backend, CPU fallback disabled, and compares y with max(x, 0).

Exit status: 0 output matches, 1 output differs, 2 the run could not be set up.
ONNX Runtime needs a schema for the custom node's domain to load the model:
with ORT_QNN_CUSTOM_OP_DOMAINS (onnxruntime-qnn >= 2.7) the provider
registers one for the node's own domain; otherwise onnxruntime-extensions
registers OP_TYPE in its domain "ai.onnx.contrib" (the node is moved there;
the QNN provider matches custom nodes by op type alone) with a Python body
that raises, so a CPU run cannot pass for the package's.
"""

import os
import sys


def versions():
    import onnxruntime as ort
    import onnxruntime_qnn as oq
    from onnxruntime_qnn import build_and_package_info as info

    return ort.__version__, info.__version__, info.qnn_version, oq


def make_model(out):
    import onnx
    from onnx import TensorProto, helper

    shape = [1, 2, 3, 4]
    node = helper.make_node("Relu", ["x"], ["y"], name="r0")
    g = helper.make_graph(
        [node], "opforge_qnn_run",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 10  # readable by older onnxruntime releases too
    onnx.save(m, out)


def run(model, lib, op_type, interface):
    import numpy as np
    import onnx
    import onnxruntime as ort

    ort_v, qnn_wheel_v, qnn_v, oq = versions()
    print(f"onnxruntime {ort_v}, onnxruntime-qnn {qnn_wheel_v}, QNN {qnn_v}", flush=True)
    m = onnx.load(model)
    custom = [n for n in m.graph.node if n.op_type == op_type]
    if not custom:
        print(f"the model has no {op_type} node", flush=True)
        return 2
    so = ort.SessionOptions()
    so.log_severity_level = int(os.environ.get("OPFORGE_ORT_LOG_LEVEL", "1"))
    so.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    provider_lib = open(oq.get_library_path(), "rb").read()
    if b"ORT_QNN_CUSTOM_OP_DOMAINS" in provider_lib:
        doms = sorted({n.domain for n in custom})
        os.environ["ORT_QNN_CUSTOM_OP_DOMAINS"] = ",".join(f"{d}:{op_type}" for d in doms)
        print(f"schema: ORT_QNN_CUSTOM_OP_DOMAINS={os.environ['ORT_QNN_CUSTOM_OP_DOMAINS']}", flush=True)
    else:
        from onnxruntime_extensions import PyCustomOpDef, get_library_path, onnx_op

        @onnx_op(op_type=op_type, inputs=[PyCustomOpDef.dt_float], outputs=[PyCustomOpDef.dt_float])
        def cpu_body(x):
            raise RuntimeError("ran on the CPU: the QNN execution provider did not take the node")

        old = {n.domain for n in custom}
        for n in custom:
            n.domain = "ai.onnx.contrib"
        kept = [o for o in m.opset_import if o.domain not in old]
        del m.opset_import[:]
        m.opset_import.extend(kept + [onnx.helper.make_opsetid("ai.onnx.contrib", 1)])
        model = model + ".contrib.onnx"
        onnx.save(m, model)
        so.register_custom_ops_library(get_library_path())
        print(f"schema: onnxruntime-extensions, node domain {sorted(old)} -> ai.onnx.contrib", flush=True)
    ort.register_execution_provider_library(oq.EP_NAME, oq.get_library_path())
    devices = [d for d in ort.get_ep_devices() if d.ep_name == oq.EP_NAME]
    if not devices:
        print("no QNN execution provider device", flush=True)
        return 2
    # Target CPU: on x86 the package runs in the host process (without a
    # target the HTP backend answers QNN_BACKEND_ERROR_NOT_SUPPORTED).
    packages = f"{op_type}:{lib}:{interface}:CPU"
    so.add_provider_for_devices(devices[:1], {"backend_path": oq.get_qnn_htp_path(), "op_packages": packages})
    print(f"op_packages={packages}", flush=True)
    sess = ort.InferenceSession(model, sess_options=so)
    print("session created", flush=True)
    x = np.linspace(-3.0, 3.0, 24, dtype=np.float32).reshape(1, 2, 3, 4)
    y = sess.run(None, {"x": x})[0]
    want = np.maximum(x, 0.0)
    err = float(np.abs(y - want).max())
    print(f"output {y.ravel().tolist()}", flush=True)
    print(f"max abs error {err}", flush=True)
    return 0 if err == 0.0 else 1


def main(argv):
    if len(argv) == 2 and argv[0] == "model":
        make_model(*argv[1:])
        return 0
    if argv and argv[0] == "versions":
        ort_v, qnn_wheel_v, qnn_v, oq = versions()
        print(ort_v, qnn_wheel_v, qnn_v, oq.get_qnn_htp_path())
        return 0
    if len(argv) == 5 and argv[0] == "run":
        return run(*argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
