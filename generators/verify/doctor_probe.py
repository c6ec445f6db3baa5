"""opforge doctor's Python probe: imports the modules verify's runners need and reads facts of
them, for every runner at once.

Reads {"probes": [{"module", "path": [dirs], "facts": {name: expression over m}}]} on stdin and
prints JSON lines: first {"python", "version"}, then per probe {"start": module} before its import
and {"module", "version", "error", "facts", "fact_errors"} after it, so that a probe that hangs
names the module it hung in. What the imported modules print goes to stderr. Written by opforge.
"""

import importlib
import json
import os
import platform
import sys


def short(e):
    text = str(e).strip().splitlines()
    return "%s: %s" % (type(e).__name__, text[-1] if text else "")


def jsonable(v):
    try:
        json.dumps(v)
        return v
    except (TypeError, ValueError):
        return str(v)


def version(m):
    v = getattr(m, "__version__", None)
    if v is None:
        try:
            from importlib import metadata
            v = metadata.version(m.__name__.split(".")[0])
        except Exception:
            return ""
    return str(v)


def main():
    # The protocol keeps fd 1 to itself: a module that prints (from Python or C) writes to stderr.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def emit(d):
        out.write(json.dumps(d) + "\n")
        out.flush()

    req = json.load(sys.stdin)
    emit({"python": sys.executable, "version": platform.python_version()})
    for p in req["probes"]:
        for d in reversed(p.get("path") or []):
            if d not in sys.path:
                sys.path.insert(0, d)
        emit({"start": p["module"]})
        r = {"module": p["module"]}
        try:
            m = importlib.import_module(p["module"])
        except BaseException as e:  # a module may exit or raise anything while importing
            r["error"] = short(e)
            emit(r)
            continue
        r["version"] = version(m)
        facts, errors = {}, {}
        for name, expr in sorted((p.get("facts") or {}).items()):
            try:
                facts[name] = jsonable(eval(expr, {"m": m}))
            except BaseException as e:
                errors[name] = short(e)
        r["facts"], r["fact_errors"] = facts, errors
        emit(r)


if __name__ == "__main__":
    main()
