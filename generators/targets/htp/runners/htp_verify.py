"""opforge verify's runners of the htp target's implementations, imported by verify's runner.py
(the harness, importable as opforge_runner): ExecuTorch (the generated ExecuTorch module's ops),
HTP (the op package built for x86 in Qualcomm's HTP backend) and HTPHost (each op's impl function
compiled with g++ against opforge's host harness). Written by opforge; not vendor code.
"""

import json
import os
import tempfile

from opforge_runner import Broken, NotTaken, as_list, load


class ExecuTorch:
    """torch.export of a module calling the op, then the exported program on CPU. The eager op is
    the generated registration calling the package's reference, so a pass proves the wiring (the
    registration, the fake kernel's shapes and dtypes, the export), never an HTP kernel."""

    check = "wiring"

    def __init__(self, torch, job):
        self.engine = "torch %s eager (ExecuTorch registration, torch.export)" % torch.__version__
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
        # The module's wrapper: every argument passed, to the package's own
        # torch op or to the one an imported op's module defines.
        fn = getattr(self.mod.ops, name)
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


class HTP:
    """The HTP op package built for x86, run in Qualcomm's HTP backend through ONNX Runtime's QNN
    execution provider (opforge's htp_qnn.py under the Python that has onnxruntime-qnn), one process
    per case: a one-node model carrying every param as an attribute, inputs and outputs as .npy."""

    def __init__(self, torch, job):
        import subprocess
        self.torch, self.subprocess = torch, subprocess
        impl = job["impl"]
        self.python, self.script, self.library = impl["python"], impl["script"], impl["library"]
        self.interface, self.domain, self.mismatch = impl["interface"], impl["domain"], impl.get("mismatch", "")
        self.engine = impl.get("engine", "QNN HTP backend (x86)")

    check = "kernel"

    def attrs(self, op, case):
        specs = {p["ident"]: p for p in op["htp"]["params"]}
        out = []
        for p in case["params"]:
            spec = specs[p["name"]]
            v = p["value"]
            if p["kind"] == "enum":
                out.append(dict(name=spec["name"], type="int", value=p.get("index", 0)))
            elif p["kind"] == "bool":
                out.append(dict(name=spec["name"], type="int", value=int(bool(v))))
            elif p["kind"] == "string":
                out.append(dict(name=spec["name"], type="string", value=v))
            elif p.get("array"):
                out.append(dict(name=spec["name"], type="floats" if spec["float"] else "ints", value=list(v)))
            elif p["kind"] == "tensor":
                raise NotTaken("verify does not pass tensor params to HTP op packages yet")
            else:
                out.append(dict(name=spec["name"], type="float" if spec["float"] else "int", value=v))
        return out

    DTYPES = ("float32", "float16", "int32", "uint8", "int8", "int16", "uint16", "bool", "int64")

    def run(self, op, case, inputs):
        import numpy as np
        torch = self.torch
        for spec in case["inputs"] + case["outputs"]:
            if spec["dtype"] not in self.DTYPES:
                raise NotTaken("verify does not hand %s tensors to HTP op packages" % spec["dtype"])
        for p in case["params"]:
            if p.get("array") and not p["value"]:
                raise NotTaken("an empty array param cannot be an ONNX attribute (no element type)")
        with tempfile.TemporaryDirectory() as d:
            req = dict(library=self.library, interface=self.interface, op_type=op["op"], domain=self.domain,
                       attrs=self.attrs(op, case), inputs=[], outputs=[])
            for i, x in enumerate(inputs):
                if x is None:
                    req["inputs"].append(None)
                    continue
                if isinstance(x, list):
                    raise NotTaken("verify does not pass variadic inputs to HTP op packages yet")
                path = os.path.join(d, "in%d.npy" % i)
                np.save(path, x.detach().cpu().numpy())
                req["inputs"].append(dict(path=path))
            for i, spec in enumerate(case["outputs"]):
                req["outputs"].append(dict(path=os.path.join(d, "out%d.npy" % i), dtype=spec["dtype"], shape=spec.get("shape")))
            path = os.path.join(d, "request.json")
            with open(path, "w") as fh:
                json.dump(req, fh)
            p = self.subprocess.run([self.python, self.script, "run", path], capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                import re
                log = re.sub(r"\x1b\[[0-9;]*m", "", p.stdout + p.stderr).strip().splitlines()
                stage = "the package did not run"
                text = "\n".join(log)
                if "session created" in text:
                    stage = "the session was created, the run failed"
                elif "Starting stage: Graph Optimizations" in text:
                    stage = "the package registered, the backend failed in graph preparation"
                elif "Successfully register the op package" in text:
                    stage = "the package registered, graph finalization failed"
                why = "%s (exit %d): %s" % (stage, p.returncode, " | ".join(log[-3:])[:600])
                if self.mismatch:
                    raise NotTaken(self.mismatch + "; " + why)
                raise RuntimeError(why)
            return [torch.from_numpy(np.load(o["path"])) for o in req["outputs"]]


# The dims an HTP tensor holds (the generated tensor helpers, htpDims4 and the like, are 4-D): a
# case of a higher rank is one no HTP implementation takes, so it is not run, not failed.
HTP_MAX_RANK = 4
# What every byte of the outputs starts as, one run of a case per fill.
FILLS = (0x00, 0xFF)


class HTPHost:
    """Each op's impl function (src/ops/<Op>.cpp as written) compiled with g++ against opforge's host
    harness, a stand-in for the HTP tensor API the generated sources use, one process per case.
    Inputs keep the case's ranks; a scalar param is a [1, 1, 1, 1] tensor and an array param a
    [1, 1, 1, n] one; integer tensors are read and written as quantized ones of scale 1 and offset 0
    (writes round half away from zero and saturate). It checks the kernel's arithmetic, not the op
    package in Qualcomm's backend."""

    check = "kernel"
    DTYPES = ("float32", "float16", "int8", "uint8", "int16", "uint16", "int32", "int64", "bool")

    def __init__(self, torch, job):
        import subprocess
        self.torch, self.subprocess = torch, subprocess
        self.bin, self.engine = job["impl"]["bin"], job["impl"]["engine"]
        self.timeout = job.get("case_timeout") or 300

    def param_line(self, spec, p):
        v = p["value"]
        if p["kind"] in ("string", "tensor"):
            raise NotTaken("the host harness does not pass %s params" % p["kind"])
        if p["kind"] == "enum":
            return "param %s uint32 0 %d" % (spec["name"], p.get("index", 0))
        if p["kind"] == "bool":
            return "param %s bool 0 %d" % (spec["name"], int(bool(v)))
        dtype = "float32" if spec["float"] else {"uint8": "uint32", "uint16": "uint32", "uint32": "uint32"}.get(spec["dtype"], "int32")
        values = list(v) if p.get("array") else [v]
        if p.get("array") and not values:
            raise NotTaken("the host harness does not pass empty array params")
        return "param %s %s %d %s" % (spec["name"], dtype, len(values) if p.get("array") else 0,
                                      " ".join(repr(float(e)) if spec["float"] else str(int(e)) for e in values))

    def run(self, op, case, inputs):
        import numpy as np
        torch = self.torch
        exe = os.path.join(self.bin, op["op"])
        if os.path.exists(exe + ".error"):
            with open(exe + ".error") as fh:
                # The op's own source failing to compile is the kernel's failure, not a case the harness
                # does not take (a call of HTP API the stand-in lacks says so in the message).
                raise Broken("%s's source does not compile against the host harness (the HTP tensor API stand-in; "
                                   "a call it lacks runs only in the backend, --target htp): %s" % (op["op"], fh.read().strip()[:600]))
        for spec in case["inputs"] + case["outputs"]:
            if spec.get("shape") is not None and len(spec["shape"]) > HTP_MAX_RANK:
                raise NotTaken("HTP tensors hold at most %d dims; %s has %d here" % (HTP_MAX_RANK, spec["name"], len(spec["shape"])))
        for spec in case["inputs"] + case["outputs"]:
            if spec["dtype"] not in self.DTYPES:
                raise NotTaken("the host harness has no %s tensors" % spec["dtype"])
        specs = {p["ident"]: p for p in op["htp"]["params"]}
        with tempfile.TemporaryDirectory() as d:
            lines = ["op " + op["op"]]
            outs = []
            for i, spec in enumerate(case["outputs"]):
                dims = spec.get("shape")
                grow = dims is None
                if grow:
                    dims = spec.get("upper") or []
                path = os.path.join(d, "out%d.bin" % i)
                outs.append((path, spec["dtype"]))
                lines.append("out %s %d %d %s %s" % (spec["dtype"], int(grow), len(dims), " ".join(str(x) for x in dims), path))
            for i, x in enumerate(inputs):
                if x is None:
                    raise NotTaken("the host harness passes every input (this case leaves one out)")
                if isinstance(x, list):
                    raise NotTaken("the host harness does not pass variadic inputs")
                path = os.path.join(d, "in%d.bin" % i)
                a = np.ascontiguousarray(x.detach().cpu().numpy())
                a.tofile(path)
                lines.append("in %s %d %s %s" % (case["inputs"][i]["dtype"], a.ndim, " ".join(str(s) for s in a.shape), path))
            for p in case["params"]:
                lines.append(self.param_line(specs[p["name"]], p))
            # Each case runs from two fills of the outputs (all-zero, then all-ones bytes): an element
            # the impl leaves unwritten differs between the two runs.
            runs = []
            for fill in FILLS:
                req = os.path.join(d, "request-%d.txt" % fill)
                with open(req, "w") as fh:
                    fh.write("\n".join(lines[:1] + ["fill %d" % fill] + lines[1:]) + "\n")
                p = self.subprocess.run([exe, req], capture_output=True, text=True, timeout=self.timeout)
                if p.returncode != 0:
                    what = "the impl crashed (signal %d)" % -p.returncode if p.returncode < 0 else "exit %d" % p.returncode
                    raise RuntimeError("%s: %s" % (what, (p.stderr or p.stdout).strip()[:600]))
                dims = {}
                for line in p.stdout.splitlines():
                    f = line.split()
                    if f and f[0] == "dims":
                        dims[int(f[1])] = [int(e) for e in f[2:]]
                runs.append([np.fromfile(path, dtype=np.dtype(dtype)).reshape(dims[i]) for i, (path, dtype) in enumerate(outs)])
            for spec, a, b in zip(case["outputs"], runs[0], runs[1]):
                if a.shape != b.shape or a.tobytes() != b.tobytes():
                    differ = (a.view(np.uint8) != b.view(np.uint8)).reshape(a.shape + (-1,)).any(axis=-1) if a.shape == b.shape else None
                    where = "" if differ is None else ": %d of %d elements, first at %s" % (
                        int(differ.sum()), differ.size, [int(i) for i in np.argwhere(differ)[0]])
                    raise RuntimeError("the impl leaves output %s unwritten where the output starts as other bytes%s" % (spec["name"], where))
            return [torch.from_numpy(a.copy()) for a in runs[0]]
