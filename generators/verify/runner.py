"""opforge verify's runner: runs one target's implementation of some ops and
their references on the cases opforge built, and compares the outputs.

Input (stdin, JSON): {"target", "package", "reference": {"module", "path"},
"impl": {...}, "ops": [{"op", "layer_type", "cases": [...]}], "tolerances"}.
Output (stdout): one JSON object per case: op, case, status (pass, fail,
skip), reason, max_abs, max_rel. Written by opforge; not vendor code.
"""

import importlib.util
import json
import math
import os
import sys
import tempfile
import traceback

sys.dont_write_bytecode = True


def emit(**kw):
    sys.stdout.write(json.dumps(kw, sort_keys=True) + "\n")
    sys.stdout.flush()


def load(name, path):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[name]
        raise
    return mod


def not_written(exc):
    """True when exc (or what caused it) is a default body's NotImplementedError."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, NotImplementedError):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def short(exc):
    lines = traceback.format_exception_only(type(exc), exc)
    return " ".join(l.strip() for l in lines)[:500]


def make_inputs(torch, case):
    g = torch.Generator().manual_seed(case["seed"])
    out = []
    for t in case["inputs"]:
        if t.get("absent"):
            out.append(None)
            continue
        dt = getattr(torch, t["dtype"])
        shape = t["shape"]
        if t.get("values"):
            x = torch.tensor(t["values"], dtype=torch.int64).reshape(shape).to(dt)
        elif t["kind"] == "float":
            x = (torch.rand(shape, generator=g, dtype=torch.float64) * 4 - 2).to(dt)
        elif t["kind"] == "int":
            x = torch.randint(-5, 6, shape, generator=g, dtype=torch.int64).to(dt)
        elif t["kind"] == "uint":
            x = torch.randint(0, 11, shape, generator=g, dtype=torch.int64).to(dt)
        else:
            x = torch.randint(0, 2, shape, generator=g, dtype=torch.int64).bool()
        out.append([x] if t.get("variadic") else x)
    return out


def clone(torch, inputs):
    return [None if x is None else [e.clone() for e in x] if isinstance(x, list) else x.clone() for x in inputs]


def ref_params(case):
    return {p["name"]: tuple(p["value"]) if p.get("array") else p["value"] for p in case["params"]}


def as_list(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


DEFAULT_TOL = {"float64": (1e-7, 1e-9), "float32": (1e-4, 1e-5), "float16": (1e-2, 1e-3), "bfloat16": (2e-2, 1e-2)}


def compare(torch, got, want, case, tol):
    """(max_abs, max_rel, problem or None) over every output."""
    if len(got) != len(want):
        return 0.0, 0.0, "%d outputs, the reference gives %d" % (len(got), len(want))
    max_abs = max_rel = 0.0
    for spec, g, w in zip(case["outputs"], got, want):
        if not isinstance(g, torch.Tensor):
            return max_abs, max_rel, "output %s is %s, not a tensor" % (spec["name"], type(g).__name__)
        if g.dtype != w.dtype:
            return max_abs, max_rel, "output %s has dtype %s, the reference %s" % (spec["name"], g.dtype, w.dtype)
        if tuple(g.shape) != tuple(w.shape):
            return max_abs, max_rel, "output %s has shape %s, the reference %s" % (spec["name"], list(g.shape), list(w.shape))
        if g.numel() == 0:
            continue
        g64, w64 = g.detach().cpu().to(torch.float64), w.detach().cpu().to(torch.float64)
        diff = (g64 - w64).abs()
        nan_mismatch = bool((g64.isnan() != w64.isnan()).any())
        diff = torch.where(g64.isnan() & w64.isnan(), torch.zeros_like(diff), diff)
        a = float(diff.max())
        r = float((diff / w64.abs().clamp_min(1e-12)).max())
        max_abs, max_rel = max(max_abs, a), max(max_rel, r if not math.isinf(r) else a)
        if nan_mismatch:
            return max_abs, max_rel, "output %s has NaN where the reference has none (or the reverse)" % spec["name"]
        if spec["kind"] == "float":
            rtol, atol = tol.get(spec["dtype"]) or DEFAULT_TOL.get(spec["dtype"], (1e-4, 1e-5))
            bad = diff > atol + rtol * w64.abs()
            if bool(bad.any()):
                idx = [int(i) for i in bad.nonzero()[0]]
                return max_abs, max_rel, "output %s differs beyond rtol=%g atol=%g: %d element(s), first at %s: %r vs reference %r" % (
                    spec["name"], rtol, atol, int(bad.sum()), idx, float(g64[tuple(idx)]), float(w64[tuple(idx)]))
        elif bool((diff != 0).any()):
            idx = [int(i) for i in (diff != 0).nonzero()[0]]
            return max_abs, max_rel, "output %s differs (exact for %s): %d element(s), first at %s: %r vs reference %r" % (
                spec["name"], spec["dtype"], int((diff != 0).sum()), idx, g64[tuple(idx)].item(), w64[tuple(idx)].item())
    return max_abs, max_rel, None


def check_reference(torch, case, outs):
    """A problem with the reference's outputs against the opdef, or None."""
    if len(outs) != len(case["outputs"]):
        return "the reference returns %d outputs, the opdef has %d" % (len(outs), len(case["outputs"]))
    for spec, o in zip(case["outputs"], outs):
        if not isinstance(o, torch.Tensor):
            return "the reference returns %s for output %s, not a tensor" % (type(o).__name__, spec["name"])
        if o.dtype != getattr(torch, spec["dtype"]):
            return "the reference returns dtype %s for output %s, the opdef says %s" % (o.dtype, spec["name"], spec["dtype"])
        if spec.get("shape") is not None and list(o.shape) != spec["shape"]:
            return "the reference returns shape %s for output %s, the opdef says %s" % (list(o.shape), spec["name"], spec["shape"])
    return None


# --- targets -----------------------------------------------------------------

class ExecuTorch:
    """torch.export of a module calling the op, then the exported program on CPU."""

    def __init__(self, torch, job):
        self.torch = torch
        self.path = job["impl"]["path"]
        self.mod = load("opforge_verify_executorch_" + job["package"], self.path)
        by_qnn = {qnn: name for name, qnn in self.mod.QNN_OP_TYPES.items()}
        self.by_qnn = by_qnn

    def run(self, op, case, inputs):
        torch = self.torch
        name = self.by_qnn.get(op["op"])
        if name is None:
            raise LookupError("%s registers no torch op for %s" % (self.path, op["op"]))
        fn = getattr(getattr(torch.ops, self.mod.NAMESPACE), name).default
        kw = {}
        for p in case["params"]:
            v = p["value"]
            kw[p["name"]] = p.get("index", 0) if p["kind"] == "enum" else list(v) if p.get("array") else v
        present = [i for i, x in enumerate(inputs) if x is not None]

        class Call(torch.nn.Module):
            def forward(self, *xs):
                args = [None] * len(inputs)
                for i, x in zip(present, xs):
                    args[i] = x
                return fn(*args, **kw)

        args = tuple(inputs[i] for i in present)
        ep = torch.export.export(Call(), args)
        return as_list(ep.module()(*args))


def ir_value(v):
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(ir_value(e) for e in v) + "]"
    return str(v)


class AIPU:
    """The OPT plugin's float forward in the open-source Compass Optimizer."""

    def __init__(self, torch, job):
        sys.path.insert(0, os.environ["COMPASS_OPTIMIZER_DIR"])
        os.environ.setdefault("AIPUOPT_SILENTLOADING", "1")
        from AIPUBuilder.Optimizer.framework import register_optype, traverse_opt_plugins, QuantizeGraph
        self.torch, self.register_optype, self.QuantizeGraph = torch, register_optype, QuantizeGraph
        traverse_opt_plugins()

    def run(self, op, case, inputs):
        torch = self.torch
        optype = self.register_optype(op["layer_type"])
        shape = lambda s: "[" + ",".join(str(d) for d in s) + "]"  # noqa: E731
        secs = []
        names = ["t_" + t["name"] for t in case["inputs"]]
        for i, t in enumerate(case["inputs"]):
            secs.append([("layer_id", i), ("layer_name", "input_%d" % i), ("layer_type", "Input"),
                         ("layer_bottom", "[]"), ("layer_bottom_shape", "[]"), ("layer_bottom_type", "[]"),
                         ("layer_top", "[%s]" % names[i]), ("layer_top_shape", "[%s]" % shape(t["shape"])),
                         ("layer_top_type", "[%s]" % t["compass"])])
        outs = ["o_" + t["name"] for t in case["outputs"]]
        oshape = lambda t: t["shape"] if t.get("shape") is not None else [1] * 2  # noqa: E731
        layer = [("layer_id", len(secs)), ("layer_name", "plugin0"), ("layer_type", op["layer_type"]),
                 ("layer_bottom", "[%s]" % ",".join(names)),
                 ("layer_bottom_shape", "[%s]" % ",".join(shape(t["shape"]) for t in case["inputs"])),
                 ("layer_bottom_type", "[%s]" % ",".join(t["compass"] for t in case["inputs"])),
                 ("layer_top", "[%s]" % ",".join(outs)),
                 ("layer_top_shape", "[%s]" % ",".join(shape(oshape(t)) for t in case["outputs"])),
                 ("layer_top_type", "[%s]" % ",".join(t["compass"] for t in case["outputs"]))]
        layer += [(p["name"], ir_value(p["value"])) for p in case["params"]]
        secs.append(layer)
        header = [("model_name", "opforge_verify"), ("layer_number", len(secs)), ("precision", "float32"),
                  ("model_bin", "./verify.bin"), ("input_tensors", "[%s]" % ",".join(names)),
                  ("output_tensors", "[%s]" % ",".join(outs))]
        with tempfile.TemporaryDirectory() as d:
            txt, binf = os.path.join(d, "verify.txt"), os.path.join(d, "verify.bin")
            with open(txt, "w") as f:
                for sec in [header] + secs:
                    f.write("".join("%s=%s\n" % kv for kv in sec) + "\n")
            open(binf, "wb").close()
            graph = self.QuantizeGraph.parse(txt, binf)
        node = [n for n in graph.nodes if n.type == optype][0]
        for tensor, x in zip(node.inputs, inputs):
            tensor.betensor = x
        node.quantized = False
        node.forward()
        return [o.betensor for o in node.outputs]


TARGETS = {"executorch": ExecuTorch, "aipu": AIPU}


def main():
    job = json.load(sys.stdin)
    import torch
    tol = {k: tuple(v) for k, v in (job.get("tolerances") or {}).items()}
    ref_path = job["reference"]["path"]
    target = None
    target_error = None
    try:
        ref = load(job["reference"]["module"], ref_path)
    except BaseException as e:  # noqa: BLE001 - reported per case
        ref, ref_error = None, "the reference module %s does not import: %s" % (ref_path, short(e))
    try:
        target = TARGETS[job["target"]](torch, job)
    except BaseException as e:  # noqa: BLE001
        target_error = "%s does not load: %s" % (job["target"], short(e))
    for op in job["ops"]:
        for case in op["cases"]:
            res = dict(op=op["op"], case=case["name"], status="fail", reason="", max_abs=0.0, max_rel=0.0)
            if ref is None:
                res["reason"] = ref_error
                emit(**res)
                continue
            inputs = make_inputs(torch, case)
            try:
                want = as_list(ref.OPS[op["op"]](*clone(torch, inputs), **ref_params(case)))
            except BaseException as e:  # noqa: BLE001
                if not_written(e):
                    res.update(status="skip", reason="no reference written: region reference:%s of %s" % (op["op"], ref_path))
                else:
                    res["reason"] = "the reference raises: " + short(e)
                emit(**res)
                continue
            problem = check_reference(torch, case, want)
            if problem:
                res["reason"] = problem
                emit(**res)
                continue
            if target is None:
                res["reason"] = target_error
                emit(**res)
                continue
            try:
                got = target.run(op, case, clone(torch, inputs))
            except BaseException as e:  # noqa: BLE001
                if not_written(e):
                    res.update(status="skip", reason="no %s implementation written (%s)" % (job["target"], short(e)))
                else:
                    res["reason"] = "%s raises: %s" % (job["target"], short(e))
                emit(**res)
                continue
            a, r, problem = compare(torch, got, want, case, tol)
            res.update(max_abs=a, max_rel=r)
            if problem:
                res["reason"] = problem
            else:
                res["status"] = "pass"
            emit(**res)


if __name__ == "__main__":
    main()
