"""Runs the open-source Compass tools end to end on the generated plugins.

Usage: COMPASS_PARSER_DIR=... [COMPASS_OPTIMIZER_DIR=...] python check_aipu_pipeline.py PLAN.json WORKDIR
Per package: an ONNX model holding one node per op (static and shape-tensor
inputs as initializers, attributes only for params without a default) goes
through the Parser's main.py with the package's parser/ directory on
AIPUPLUGIN_PATH; the float IR must hold each op's layer with its layer type,
output shapes and dtypes, every param as the plan says and the constants.
With COMPASS_OPTIMIZER_DIR, that IR then goes through the Optimizer's
optimizer_main.py with the opt/ directory on AIPUPLUGIN_PATH: calibration with
zeros, quantization and serialization must succeed and keep every layer, params
included. Needs onnx and TensorFlow (the Parser imports it) and, for the
Optimizer's command, the packages its own plugins import; a missing one is
reported as a skip (exit status 3).
"""

import ast
import importlib.util
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
SKIP = 3

from aipu_common import ir_value  # noqa: E402


def need(*modules):
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    return missing


def build_model(pkg, path):
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper
    nodes, inputs, outputs, inits, shapes = [], [], [], [], []
    for op in pkg["ops"]:
        prefix = op["stem"] + "_"
        names = []
        for t in op["inputs"]:
            name = prefix + t["name"]
            names.append(name)
            if t.get("static") or t.get("values"):
                value = np.array(t["values"], dtype=t["dtype"]) if t.get("values") else np.zeros(t["shape"], dtype=t["dtype"])
                inits.append(numpy_helper.from_array(value, name))
            else:
                inputs.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(t["dtype"])), t["shape"]))
                shapes.append((name, t["shape"]))
        outs = [prefix + t["name"] for t in op["outputs"]]
        for t in op["outputs"]:
            outputs.append(helper.make_tensor_value_info(prefix + t["name"], helper.np_dtype_to_tensor_dtype(np.dtype(t["dtype"])), t["shape"]))
        attrs = {}
        for name, v in op["attrs"].items():
            attrs[name] = ast.literal_eval(v["literal"]) if v.get("literal") else np.zeros(v["shape"], dtype=v["dtype"])
            if isinstance(attrs[name], bool):
                attrs[name] = int(attrs[name])  # ONNX has no bool attributes
            if isinstance(attrs[name], np.ndarray):
                attrs[name] = numpy_helper.from_array(attrs[name])
        nodes.append(helper.make_node(op["framework_op"], names, outs, name=op["stem"], domain="opforge.test", **attrs))
    graph = helper.make_graph(nodes, pkg["package"], inputs, outputs, initializer=inits)
    model = helper.make_model(graph, producer_name="opforge-test",
                              opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("opforge.test", 1)])
    onnx.save_model(model, path)
    return shapes, [o.name for o in outputs]


def sections(path):
    out, cur = [], {}
    with open(path) as f:
        for line in f.read().splitlines() + [""]:
            if line.strip():
                k, v = line.split("=", 1)
                cur[k] = v
            elif cur:
                out.append(cur)
                cur = {}
    return out


def check_layers(pkg, ir_txt, stage, fail):
    layers = {s.get("layer_type"): s for s in sections(ir_txt)[1:]}
    for op in pkg["ops"]:
        s = layers.get(op["layer_type"])
        if s is None:
            fail("%s: no layer of type %s in %s" % (stage, op["layer_type"], ir_txt))
            continue
        want_shapes = "[" + ",".join("[" + ",".join(str(d) for d in t["shape"]) + "]" for t in op["outputs"]) + "]"
        if s["layer_top_shape"] != want_shapes:
            fail("%s: %s layer_top_shape=%s, want %s" % (stage, op["op"], s["layer_top_shape"], want_shapes))
        if stage == "parser":
            want_types = "[" + ",".join(t["dtype"] for t in op["outputs"]) + "]"
            if s["layer_top_type"] != want_types:
                fail("%s: %s layer_top_type=%s, want %s" % (stage, op["op"], s["layer_top_type"], want_types))
        for k, v in op["params"]:
            if s.get(k) != ir_value(v):
                fail("%s: %s %s=%s, want %s" % (stage, op["op"], k, s.get(k), ir_value(v)))
        for c in op["constants"]:
            shape = "[" + ",".join(str(d) for d in c["shape"]) + "]"
            if s.get(c["key"] + "_shape") != shape or c["key"] + "_offset" not in s:
                fail("%s: %s constant %s: %s" % (stage, op["op"], c["key"], {k: v for k, v in s.items() if k.startswith(c["key"])}))


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    work = sys.argv[2]
    missing = need("onnx", "tensorflow")
    if missing:
        print("skip: the Parser's main.py needs %s, not importable by %s" % (", ".join(missing), sys.executable))
        sys.exit(SKIP)
    failures = []

    def fail(msg):
        failures.append(msg)
        print("FAIL:", msg)

    opt_dir = os.environ.get("COMPASS_OPTIMIZER_DIR")
    opt_missing = need("cv2", "scipy", "editdistance", "torchvision", "tqdm") if opt_dir else []
    for pkg in plan:
        d = os.path.join(work, pkg["package"])
        os.makedirs(d)
        model = os.path.join(d, pkg["package"] + ".onnx")
        shapes, outs = build_model(pkg, model)
        cfg = os.path.join(d, "parser.cfg")
        with open(cfg, "w") as f:
            f.write("[Common]\nmodel_type = onnx\nmodel_name = %s\ninput_model = %s\ninput = %s\ninput_shape = %s\noutput = %s\noutput_dir = %s\n" % (
                pkg["package"], model, ", ".join(n for n, _ in shapes), ", ".join(str(s) for _, s in shapes), ", ".join(outs), d))
        env = dict(os.environ, AIPUPLUGIN_PATH=os.path.join(pkg["dir"], "parser"), TF_CPP_MIN_LOG_LEVEL="3")
        r = subprocess.run([sys.executable, os.path.join(os.environ["COMPASS_PARSER_DIR"], "main.py"), "-c", cfg],
                           cwd=d, env=env, capture_output=True, text=True)
        ir_txt = os.path.join(d, pkg["package"] + ".txt")
        if r.returncode != 0 or not os.path.exists(ir_txt) or "[E]" in r.stdout + r.stderr:
            fail("%s: Parser main.py failed (%d):\n%s" % (pkg["package"], r.returncode, (r.stdout + r.stderr)[-4000:]))
            continue
        check_layers(pkg, ir_txt, "parser", fail)
        print("%s: Parser main.py wrote %s with %d plugin layers" % (pkg["package"], ir_txt, len(pkg["ops"])))
        if not opt_dir:
            continue
        if opt_missing:
            print("skip: the Optimizer's optimizer_main.py imports %s, not importable by %s" % (", ".join(opt_missing), sys.executable))
            continue
        # Quantized (integer activations and weights), then with the layers kept float.
        for mode, extra in (("quantized", ""), ("float", "trigger_float_op = float32_preferred\n")):
            out = os.path.join(d, "opt_" + mode)
            os.makedirs(out)
            cfg = os.path.join(d, "opt_%s.cfg" % mode)
            with open(cfg, "w") as f:
                f.write("[Common]\ngraph = %s\nbin = %s\nmodel_name = %s\noutput_dir = %s\n%s" % (
                    ir_txt, ir_txt[:-4] + ".bin", pkg["package"], out, extra))
            env = dict(os.environ, AIPUPLUGIN_PATH=os.path.join(pkg["dir"], "opt"),
                       PYTHONPATH=opt_dir + os.pathsep + os.environ.get("PYTHONPATH", ""))
            r = subprocess.run([sys.executable, os.path.join(opt_dir, "AIPUBuilder/Optimizer/tools/optimizer_main.py"), "--cfg", cfg],
                               cwd=d, env=env, capture_output=True, text=True)
            opt_txt = os.path.join(out, pkg["package"] + "_o.txt")
            if r.returncode != 0 or not os.path.exists(opt_txt):
                fail("%s: optimizer_main.py (%s) failed (%d):\n%s" % (pkg["package"], mode, r.returncode, (r.stdout + r.stderr)[-4000:]))
                continue
            check_layers(pkg, opt_txt, "optimizer", fail)
            print("%s: optimizer_main.py (%s) wrote %s" % (pkg["package"], mode, opt_txt))
    if failures:
        sys.exit("%d failure(s)" % len(failures))


if __name__ == "__main__":
    main()
