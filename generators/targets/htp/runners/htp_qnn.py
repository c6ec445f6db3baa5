"""opforge verify's HTP runner: one case of an op of an HTP op package, run in
Qualcomm's HTP backend (x86) through ONNX Runtime's QNN execution provider
with the package registered (op_packages), CPU fallback disabled.

  htp_qnn.py versions
      prints onnxruntime, onnxruntime-qnn and QNN versions, and libQnnHtp.so.
  htp_qnn.py run REQUEST.json
      REQUEST: {"library", "interface", "op_type", "domain", "attrs": [{"name",
      "type": "int"|"float"|"string"|"ints"|"floats", "value"}], "inputs":
      [{"path" (.npy) or null}], "outputs": [{"path", "dtype", "shape" or null}]}.
      Writes each output's .npy. Exit 0: ran; 3: the run could not be set up
      or the backend refused the op (stdout says where it stopped).

Written by opforge from ONNX Runtime's documented provider options; not vendor code.
"""

import json
import os
import sys


def versions():
    import onnxruntime as ort
    import onnxruntime_qnn as oq
    from onnxruntime_qnn import build_and_package_info as info

    return ort.__version__, info.__version__, info.qnn_version, oq


ONNX_TYPES = {"float32": "FLOAT", "float16": "FLOAT16", "int32": "INT32", "uint8": "UINT8", "int8": "INT8",
              "int16": "INT16", "uint16": "UINT16", "bool": "BOOL", "int64": "INT64"}


def model(req, path):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    names, vis = [], []
    for i, x in enumerate(req["inputs"]):
        if x is None:
            names.append("")
            continue
        a = np.load(x["path"])
        names.append("in%d" % i)
        vis.append(helper.make_tensor_value_info("in%d" % i, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape)))
    outs = []
    for i, o in enumerate(req["outputs"]):
        outs.append(helper.make_tensor_value_info("out%d" % i, getattr(TensorProto, ONNX_TYPES[o["dtype"]]), o["shape"]))
    attrs = {}
    for a in req["attrs"]:
        v = a["value"]
        attrs[a["name"]] = [float(e) for e in v] if a["type"] == "floats" else [int(e) for e in v] if a["type"] == "ints" \
            else float(v) if a["type"] == "float" else int(v) if a["type"] == "int" else str(v)
    node = helper.make_node(req["op_type"], names, [o.name for o in outs], name="op", domain=req["domain"], **attrs)
    g = helper.make_graph([node], "opforge_verify_htp", vis, outs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(req["domain"], 1)])
    m.ir_version = 10  # readable by older onnxruntime releases too
    onnx.save(m, path)
    return [n for n in names if n]


def run(request):
    import numpy as np
    import onnxruntime as ort

    with open(request) as fh:
        req = json.load(fh)
    ort_v, wheel_v, qnn_v, oq = versions()
    print("onnxruntime %s, onnxruntime-qnn %s, QNN %s" % (ort_v, wheel_v, qnn_v), flush=True)
    path = request + ".onnx"
    feeds_names = model(req, path)
    so = ort.SessionOptions()
    so.log_severity_level = int(os.environ.get("OPFORGE_ORT_LOG_LEVEL", "2"))
    so.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    op_type = req["op_type"]
    # ONNX Runtime needs a schema for the custom node's domain to load the model.
    if b"ORT_QNN_CUSTOM_OP_DOMAINS" in open(oq.get_library_path(), "rb").read():
        os.environ["ORT_QNN_CUSTOM_OP_DOMAINS"] = "%s:%s" % (req["domain"], op_type)
    else:
        try:
            import onnx
            from onnxruntime_extensions import PyCustomOpDef, get_library_path, onnx_op
        except ImportError as e:
            print("this onnxruntime-qnn (< 2.7) needs onnxruntime-extensions for the node's schema: %s" % e, flush=True)
            return 3
        pytypes = {"float32": PyCustomOpDef.dt_float, "float16": PyCustomOpDef.dt_float16, "int32": PyCustomOpDef.dt_int32,
                   "uint8": PyCustomOpDef.dt_uint8, "int8": PyCustomOpDef.dt_int8, "int64": PyCustomOpDef.dt_int64,
                   "bool": PyCustomOpDef.dt_bool, "int16": PyCustomOpDef.dt_int16, "uint16": PyCustomOpDef.dt_uint16}
        m = onnx.load(path)
        ins = [pytypes[onnx.helper.tensor_dtype_to_np_dtype(v.type.tensor_type.elem_type).name] for v in m.graph.input]
        outs = [pytypes[o["dtype"]] for o in req["outputs"]]
        attrs = {a["name"]: {"int": PyCustomOpDef.dt_int64, "float": PyCustomOpDef.dt_float,
                             "string": PyCustomOpDef.dt_string}.get(a["type"], PyCustomOpDef.dt_string) for a in req["attrs"]}

        @onnx_op(op_type=op_type, inputs=ins, outputs=outs, attrs=attrs)
        def cpu_body(*args, **kwargs):
            raise RuntimeError("ran on the CPU: the QNN execution provider did not take the node")

        for n in m.graph.node:
            n.domain = "ai.onnx.contrib"
        kept = [o for o in m.opset_import if o.domain != req["domain"]]
        del m.opset_import[:]
        m.opset_import.extend(kept + [onnx.helper.make_opsetid("ai.onnx.contrib", 1)])
        onnx.save(m, path)
        so.register_custom_ops_library(get_library_path())
    ort.register_execution_provider_library(oq.EP_NAME, oq.get_library_path())
    devices = [d for d in ort.get_ep_devices() if d.ep_name == oq.EP_NAME]
    if not devices:
        print("no QNN execution provider device", flush=True)
        return 3
    # Target CPU: on x86 the package runs in the host process.
    so.add_provider_for_devices(devices[:1], {"backend_path": oq.get_qnn_htp_path(),
                                             "op_packages": "%s:%s:%s:CPU" % (op_type, req["library"], req["interface"])})
    try:
        sess = ort.InferenceSession(path, sess_options=so)
    except Exception as e:  # noqa: BLE001 - the stage is the answer
        print("the session was not created: %s" % str(e).strip().splitlines()[-1][:400], flush=True)
        return 3
    print("session created", flush=True)
    feeds = {}
    k = 0
    for x in req["inputs"]:
        if x is not None:
            feeds[feeds_names[k]] = np.load(x["path"])
            k += 1
    results = sess.run(None, feeds)
    for o, r in zip(req["outputs"], results):
        np.save(o["path"], np.ascontiguousarray(r))
    return 0


def main(argv):
    if argv == ["versions"]:
        ort_v, wheel_v, qnn_v, oq = versions()
        print(ort_v, wheel_v, qnn_v, oq.get_qnn_htp_path())
        return 0
    if len(argv) == 2 and argv[0] == "run":
        return run(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
