"""opforge verify's runner: runs one implementation of some ops and their
references on the cases opforge built, and compares the outputs.

Input (stdin, JSON): {"target", "package", "reference": {"module", "path"},
"implementation": {"file", "class"}, "impl": {...}, "ops": [{"op", the
runner's own fields..., "cases": [...]}], "tolerances"}.
Output (stdout): one JSON object per case: op, case, status (pass, fail,
skip), reason, max_abs, max_rel, check, engine; and, before each stage
(importing torch, loading the reference or the implementation, running a
case), a progress object {"stage": ...} that opforge's watchdog reads to name
what was running when a runner hangs or crashes. Written by opforge; not
vendor code.

This is the harness every runner shares. The implementation is a class in a
module of the runner's own (a target's runners/), which verify writes beside
this file: the harness imports implementation.file and makes
implementation.class(torch, job), which may raise Unavailable (every case a
skip); its run(op, case, inputs) returns the outputs or raises NotTaken (the
case a skip). It may also have reference_inputs(inputs) (what the reference
is compared on) and case_step (set by run: per float dtype, a step added to
that case's atol). The module imports what it shares from here as opforge_runner.

The class says what a pass of it proves, as attributes the harness reports
with every case (it may set them in __init__ or run, once it knows): check is
"kernel" when code the user wrote for the target ran in a real engine (CUDA,
Triton, OpenCL, HTP C++, a quantized forward) and "wiring" when the target's
glue ran the reference; engine names the engine and its version.
"""

import importlib.util
import json
import math
import os
import sys
import traceback

sys.dont_write_bytecode = True


def emit(**kw):
    sys.stdout.write(json.dumps(kw, sort_keys=True) + "\n")
    sys.stdout.flush()


def stage(what):
    """Tells opforge what runs next, so a hang or a crash is reported with it."""
    emit(stage=what)


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
        elif t.get("range"):
            lo, hi = t["range"]
            x = torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64).to(dt)
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
    """The reference's outputs, one tensor each: a variadic output's list gives its tensors in order."""
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    return [t for r in items for t in (r if isinstance(r, (tuple, list)) else [r])]


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


class Result(dict):
    """A case's result; what the implementation proves (check, engine) is read when it is emitted,
    as the implementation may learn it only while running."""

    def __init__(self, target, **kw):
        dict.__init__(self, **kw)
        self.target = target


def report(res, ran=False):
    """Emits res; check and engine only where the implementation ran on the case (a skip, or a
    failure before it ran, proves nothing about it)."""
    if ran and res.target is not None:
        res.setdefault("check", getattr(res.target, "check", "") or "")
        res.setdefault("engine", getattr(res.target, "engine", "") or "")
    emit(**res)


class Unavailable(Exception):
    """The implementation cannot run here (a device or library missing): every case is a skip."""


class Broken(Exception):
    """The implementation's code cannot be made to run (it does not build): the case fails, but no
    kernel ran, so it is no kernel check."""


class NotTaken(Exception):
    """The implementation does not take this case (a dtype combination it refuses): a skip."""


def main():
    job = json.load(sys.stdin)
    stage("import torch")
    import torch
    tol = {k: tuple(v) for k, v in (job.get("tolerances") or {}).items()}
    ref_path = job["reference"]["path"]
    target = None
    target_error = None
    stage("load the reference module " + ref_path)
    try:
        ref = load(job["reference"]["module"], ref_path)
    except BaseException as e:  # noqa: BLE001 - reported per case
        ref, ref_error = None, "the reference module %s does not import: %s" % (ref_path, short(e))
    unavailable = None
    # The implementation module imports the harness by this name (the script runs as __main__).
    sys.modules.setdefault("opforge_runner", sys.modules[__name__])
    stage("load the %s implementation (%s)" % (job["target"], job["implementation"]["class"]))
    try:
        impl = job["implementation"]
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), impl["file"])
        target = getattr(load(os.path.splitext(impl["file"])[0], path), impl["class"])(torch, job)
    except Unavailable as e:
        unavailable = str(e)
    except BaseException as e:  # noqa: BLE001
        target_error = "%s does not load: %s" % (job["target"], short(e))
    for op in job["ops"]:
        for case in op["cases"]:
            stage("case %s/%s [%s]" % (op["op"], job["target"], case["name"]))
            res = Result(target, op=op["op"], case=case["name"], status="fail", reason="", max_abs=0.0, max_rel=0.0)
            if ref is None:
                res["reason"] = ref_error
                report(res)
                continue
            inputs = make_inputs(torch, case)
            ref_inputs = inputs
            if target is not None and hasattr(target, "reference_inputs"):
                ref_inputs = target.reference_inputs(inputs)
            try:
                want = as_list(ref.OPS[op["op"]](*clone(torch, ref_inputs), **ref_params(case)))
            except BaseException as e:  # noqa: BLE001
                if not_written(e):
                    res.update(status="skip", reason="no reference written: region reference:%s of %s" % (op["op"], ref_path))
                else:
                    res["reason"] = "the reference raises: " + short(e)
                report(res)
                continue
            problem = check_reference(torch, case, want)
            if problem:
                res["reason"] = problem
                report(res)
                continue
            if unavailable is not None:
                res.update(status="skip", reason=unavailable)
                report(res)
                continue
            if target is None:
                res["reason"] = target_error
                report(res)
                continue
            try:
                got = target.run(op, case, clone(torch, inputs))
            except NotTaken as e:
                res.update(status="skip", reason=str(e), not_taken=True)
                report(res)
                continue
            except Broken as e:
                res["reason"] = "%s: %s" % (job["target"], e)
                report(res)
                continue
            except BaseException as e:  # noqa: BLE001
                if not_written(e):
                    res.update(status="skip", reason="no %s implementation written (%s)" % (job["target"], short(e)))
                    report(res)
                else:
                    res["reason"] = "%s raises: %s" % (job["target"], short(e))
                    report(res, ran=True)
                continue
            case_tol = {k: tuple(v) for k, v in (op.get("tolerances") or {}).items()} or dict(tol)
            # A quantized run's output step adds to whatever tolerance applies.
            for dt, step in (getattr(target, "case_step", None) or {}).items():
                rtol, atol = case_tol.get(dt) or DEFAULT_TOL.get(dt, (1e-4, 1e-5))
                case_tol[dt] = (rtol, atol + step)
            a, r, problem = compare(torch, got, want, case, case_tol)
            res.update(max_abs=a, max_rel=r)
            if problem:
                res["reason"] = problem
            else:
                res["status"] = "pass"
            report(res, ran=True)


if __name__ == "__main__":
    main()
