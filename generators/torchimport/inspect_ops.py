"""opforge import torch's inspector: imports a module that registers ops with
torch.library and describes each requested op as JSON, from torch's own
machinery: the schema (arguments, types, defaults), the dtypes its fake
kernel (and its CPU kernel, where it has one) accepts, and its output shapes
from running the fake kernel under FakeTensorMode with a ShapeEnv, every
input dim a fresh symbol, printed as opforge shape expressions.

Input (stdin, JSON): {"module", "ops": ["ns::name", ...], "dtypes": [...],
"check": [{"op", "inputs": [[dims] | null], "params": {...}}]}.
Output (stdout): one JSON object {"ops": [...]} or, with "check", {"shapes":
[[dims] | "error text"]}: the fake kernel's output shapes for concrete input
shapes (what the tests compare opforge's expressions with).
Written by opforge; not vendor code.
"""

import importlib
import importlib.util
import itertools
import json
import logging
import os
import sys
import traceback

import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext

CANDIDATE_DTYPES = ["float32", "float16", "bfloat16", "int32", "int64", "int8", "uint8", "bool"]
MAX_RANK = 6
# Every symbolic dim's hint: equal hints let a kernel's own checks that two
# dims agree (a concat's other axes, an add's operands) hold, and ShapeEnv
# then records them as one symbol. Not 0 or 1, which torch specializes.
HINT = 8
# Distinct values for the elements of int list params, so a constant in an
# output dim that equals one names that element (kernel[0], ...).
LIST_SENTINELS = [3, 5, 7, 11, 13, 17, 19, 23]


MODULE_NAME = [""]


def load_module(spec):
    if spec.endswith(".py") or os.path.sep in spec:
        path = os.path.abspath(spec)
        name = os.path.splitext(os.path.basename(path))[0]
        sys.path.insert(0, os.path.dirname(path))
        module_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        MODULE_NAME[0] = name
        module_spec.loader.exec_module(module)
        return module
    MODULE_NAME[0] = spec
    return importlib.import_module(spec)


def arg_kind(a):
    """The argument's opforge kind, or ("unsupported", text)."""
    t = a.type
    text = str(t)
    kind = t.kind()
    if kind == "TensorType":
        return {"kind": "tensor"}
    if kind == "OptionalType":
        inner = t.getElementType()
        if inner.kind() == "TensorType":
            return {"kind": "tensor", "optional": True}
        k = arg_kind_of_type(inner)
        if k:
            return dict(k, optional=True)
    k = arg_kind_of_type(t, getattr(a, "N", None))
    if k:
        return k
    return {"kind": "unsupported", "text": text}


def arg_kind_of_type(t, n=None):
    kind = t.kind()
    scalars = {"IntType": "int", "SymIntType": "int", "FloatType": "float", "BoolType": "bool", "StringType": "str"}
    if kind in scalars:
        return {"kind": scalars[kind]}
    if kind == "ListType":
        elem = t.getElementType().kind()
        if elem in ("IntType", "SymIntType", "FloatType", "BoolType"):
            return {"kind": "list", "elem": scalars[elem], "n": n}
    return None


def jsonable(v):
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    return str(v)


def describe_schema(op):
    s = op._schema
    args = []
    for a in s.arguments:
        d = {"name": a.name, "type": str(a.type), "kwarg_only": a.kwarg_only}
        d.update(arg_kind(a))
        if a.has_default_value():
            d["default"] = jsonable(a.default_value)
            d["has_default"] = True
        if d.get("kind") == "list" and d.get("n") and isinstance(d.get("default"), (int, float)):
            d["default"] = [d["default"]] * d["n"]
        args.append(d)
    rets = []
    for i, r in enumerate(s.returns):
        rets.append({"name": r.name or "", "type": str(r.type), "tensor": r.type.kind() == "TensorType"})
    return str(s), args, rets


def probe_value(a, sentinel=False):
    """A value for a param in a probe: its default, else a neutral one."""
    k = a["kind"]
    if sentinel and k == "list" and a["elem"] == "int":
        n = a.get("n") or len(a.get("default") or [1])
        return LIST_SENTINELS[:n]
    if a.get("has_default") and a.get("default") is not None:
        return a["default"]
    return {"int": 0, "float": 1.0, "bool": False, "str": "", "list": [1] * (a.get("n") or 1)}.get(k)


class Probe:
    """One run of the fake kernel on symbolic inputs of given ranks."""

    def __init__(self, op, args, ranks, dtype, params, concrete=None):
        self.env = ShapeEnv()
        self.mode = FakeTensorMode(shape_env=self.env)
        self.inputs = {}
        call = []
        for a in args:
            if a["kind"] != "tensor":
                call.append(params[a["name"]])
                continue
            r = ranks.get(a["name"])
            if r is None:
                call.append(None)
                continue
            dims = concrete[a["name"]] if concrete else [HINT] * r
            real = torch.empty(dims, dtype=getattr(torch, dtype))
            # Concrete shapes stay static; the ShapeEnv is still there for a
            # kernel's data-dependent sizes.
            dynamic = DimDynamic.STATIC if concrete else DimDynamic.DYNAMIC
            ctx = StatelessSymbolicContext(dynamic_sizes=[dynamic] * r)
            t = self.mode.from_tensor(real, symbolic_context=ctx)
            self.inputs[a["name"]] = t
            call.append(t)
        with self.mode:
            out = op(*call)
        self.outputs = list(out) if isinstance(out, (tuple, list)) else [out]

    def expr(self, d):
        if isinstance(d, int):
            import sympy
            return sympy.Integer(d)
        return self.env.replace(d.node.expr)


def accepts(op, args, ranks, dtype, params):
    try:
        Probe(op, args, ranks, dtype, params)
        return True
    except Exception:
        return False


def runs_on_cpu(op, args, ranks, dtype, params):
    """Whether the op's own CPU kernel takes small inputs of dtype (None when
    it has none to ask)."""
    call = []
    for a in args:
        if a["kind"] != "tensor":
            call.append(params[a["name"]])
        elif ranks.get(a["name"]) is None:
            call.append(None)
        else:
            call.append(torch.ones([HINT] * ranks[a["name"]], dtype=getattr(torch, dtype)))
    try:
        op(*call)
        return True
    except NotImplementedError:
        return None
    except Exception:
        return False


class Printer:
    """sympy expressions as opforge shape expressions."""

    def __init__(self, names, params):
        self.names = names  # sympy symbol -> opforge name
        self.params = params  # int constant -> param element name
        self.unknown = []

    def __call__(self, e, top=True):
        import sympy
        from torch.utils._sympy.functions import CeilDiv, FloorDiv

        if e.is_Integer:
            v = int(e)
            return self.params.get(v, str(v))
        if e.is_Symbol:
            if e in self.names:
                return self.names[e]
            self.unknown.append(str(e))
            return str(e)
        if isinstance(e, sympy.Add):
            # Terms in the order of their printed text, so that one sum
            # prints alike whatever symbols torch numbered it with.
            pos, neg = [], []
            for t in e.args:
                if t.is_number and t < 0:
                    neg.append((True, str(-int(t))))
                elif isinstance(t, sympy.Mul) and t.args[0].is_number and t.args[0] < 0:
                    neg.append((False, self(-t, False)))
                else:
                    pos.append((bool(t.is_number), self(t, False)))
            pos.sort()
            neg.sort()
            s = " + ".join(x for _, x in pos) if pos else "0"
            for _, x in neg:
                s += " - " + x
            return s if top else "(" + s + ")"
        if isinstance(e, sympy.Mul):
            return " * ".join(self(a, False) for a in e.args)
        if isinstance(e, FloorDiv):
            return self(e.args[0], False) + " // " + self(e.args[1], False)
        if isinstance(e, CeilDiv):
            return "ceil_div(" + self(e.args[0]) + ", " + self(e.args[1]) + ")"
        if isinstance(e, (sympy.Max, sympy.Min)):
            fn = "max" if isinstance(e, sympy.Max) else "min"
            s = self(e.args[0])
            for a in e.args[1:]:
                s = fn + "(" + s + ", " + self(a) + ")"
            return s
        self.unknown.append(str(e))
        return str(e)


def symbol_names(probe, tensor_args):
    """Each input dim's symbol -> its opforge name: the input's name in upper
    case and the axis (X0, X1, ...), the first input that has it naming it."""
    names, dims = {}, {}
    for a in tensor_args:
        t = probe.inputs.get(a["name"])
        if t is None:
            continue
        shape = []
        for i, d in enumerate(t.shape):
            e = probe.expr(d)
            if e.is_Symbol and e not in names:
                names[e] = a["name"].upper() + str(i)
            shape.append(e)
        dims[a["name"]] = shape
    return names, dims


def like_form(probes, tensor_args, out_index):
    """The input whose shape the output has at every probed rank, or None."""
    for a in tensor_args:
        if all(
            a["name"] in p.inputs and [p.expr(d) for d in p.outputs[out_index].shape] == [p.expr(d) for d in p.inputs[a["name"]].shape]
            for p in probes
        ):
            return a["name"]
    return None


def axis_form(op, args, tensor_args, ranks_ok, dtype, params, axis, out_index):
    """The output as an input's shape with the dim at int param axis
    removed, kept as 1 or replaced, at every rank and axis value, or None."""
    forms = set()
    for r in ranks_ok:
        for v in range(-r, r):
            ps = dict(params, **{axis["name"]: v})
            ranks = {a["name"]: r for a in tensor_args if not a.get("optional")}
            try:
                p = Probe(op, args, ranks, dtype, ps)
            except Exception:
                return None
            out = [p.expr(d) for d in p.outputs[out_index].shape]
            found = None
            for a in tensor_args:
                if a["name"] not in p.inputs:
                    continue
                ins = [p.expr(d) for d in p.inputs[a["name"]].shape]
                k = v % r
                rest = ins[:k] + ins[k + 1:]
                if out == rest:
                    found = (a["name"], "remove", None)
                elif len(out) == r and out[:k] + out[k + 1:] == rest and out[k] == 1:
                    found = (a["name"], "keep", None)
                elif len(out) == r and out[:k] + out[k + 1:] == rest:
                    names = {}
                    for b in tensor_args:
                        if b["name"] in p.inputs:
                            e = p.expr(p.inputs[b["name"]].shape[k])
                            if e.is_Symbol and e not in names:
                                names[e] = b["name"] + ".shape[" + axis["name"] + "]"
                    pr = Printer(names, {})
                    text = pr(out[k])
                    if pr.unknown:
                        continue
                    found = (a["name"], "replace", text)
                if found:
                    break
            if not found:
                return None
            forms.add(found)
    return forms.pop() if len(forms) == 1 else None


def analyze(op, qualname, args, rets, dtypes_wanted):
    notes, problems = [], []
    tensor_args = [a for a in args if a["kind"] == "tensor"]
    required = [a for a in tensor_args if not a.get("optional")]
    params = {a["name"]: probe_value(a) for a in args if a["kind"] not in ("tensor", "unsupported")}
    # Ranks the kernel accepts, every required input of one rank.
    def ranks_of(r):
        return {a["name"]: r for a in required}

    first_ok = None
    for dt in CANDIDATE_DTYPES:
        for r in range(0, MAX_RANK + 1):
            if accepts(op, args, ranks_of(r), dt, params):
                first_ok = dt
                break
        if first_ok:
            break
    if first_ok is None:
        return {"error": "the fake kernel takes no inputs of ranks 0-%d in any of %s with the params at their defaults" % (MAX_RANK, ", ".join(CANDIDATE_DTYPES))}
    ranks_ok = [r for r in range(1, MAX_RANK + 1) if accepts(op, args, ranks_of(r), first_ok, params)]
    if not ranks_ok:
        ranks_ok = [0]
    base_rank = ranks_ok[0]
    # dtypes: every candidate the fake kernel takes at base rank, less those
    # the CPU kernel refuses; each input and output of the probe's dtype
    # shares one type variable.
    dtype_source = "given by --dtypes"
    if dtypes_wanted:
        dtypes = list(dtypes_wanted)
    else:
        dtypes, cpu_refused, cpu_asked = [], [], False
        for dt in CANDIDATE_DTYPES:
            if not accepts(op, args, ranks_of(base_rank), dt, params):
                continue
            cpu = runs_on_cpu(op, args, ranks_of(base_rank), dt, params)
            cpu_asked = cpu_asked or cpu is not None
            if cpu is False:
                cpu_refused.append(dt)
                continue
            dtypes.append(dt)
        dtype_source = "those the fake kernel takes" + (" and the CPU kernel runs" if cpu_asked else "")
        if cpu_refused:
            notes.append("the CPU kernel refused " + ", ".join(cpu_refused))
    base = Probe(op, args, ranks_of(base_rank), dtypes[0] if dtypes else first_ok, params)
    out_dtypes = []
    for o in base.outputs:
        out_dtypes.append("T" if str(o.dtype) == "torch." + (dtypes[0] if dtypes else first_ok) else str(o.dtype).replace("torch.", ""))
    # Optional inputs: the least rank with which the kernel takes them.
    optional_ranks = {}
    for a in tensor_args:
        if not a.get("optional"):
            continue
        for r in range(1, MAX_RANK + 1):
            rk = dict(ranks_of(base_rank), **{a["name"]: r})
            if accepts(op, args, rk, dtypes[0] if dtypes else first_ok, params):
                optional_ranks[a["name"]] = r
                break
    int_axes = [a for a in args if a["kind"] == "int" and not a.get("optional")]
    outputs = []
    # One probe at the base rank with every optional input present names
    # the dims of a fixed-rank op.
    full_ranks = dict(ranks_of(base_rank), **optional_ranks)
    sentinel_params = {a["name"]: probe_value(a, sentinel=True) for a in args if a["kind"] not in ("tensor", "unsupported")}
    dt0 = dtypes[0] if dtypes else first_ok
    try:
        fixed = Probe(op, args, full_ranks, dt0, sentinel_params)
        sentinels = {}
        for a in args:
            if a["kind"] == "list" and a["elem"] == "int":
                for i, v in enumerate(sentinel_params[a["name"]]):
                    sentinels[v] = a["name"] + "[" + str(i) + "]"
    except Exception:
        fixed = Probe(op, args, full_ranks, dt0, params)
        sentinels = {}
    names, in_dims = symbol_names(fixed, tensor_args)
    rank_range = None
    probes = [Probe(op, args, ranks_of(r), dt0, params) for r in ranks_ok]
    for i, o in enumerate(base.outputs):
        ret = rets[i] if i < len(rets) else {"name": ""}
        name = ret["name"] or ("out" if len(base.outputs) == 1 else "out" + str(i))
        entry = {"name": name, "dtype": out_dtypes[i]}
        like = like_form(probes, required, i) if len(ranks_ok) > 1 else None
        if like:
            entry["like"] = like
            rank_range = [ranks_ok[0], ranks_ok[-1]]
            outputs.append(entry)
            continue
        if len(ranks_ok) > 1:
            for ax in int_axes:
                form = axis_form(op, args, required, ranks_ok, dt0, params, ax, i)
                if form:
                    entry["like"], entry["mode"], entry["replace"] = form[0], form[1], form[2]
                    entry["axis"] = ax["name"]
                    rank_range = [ranks_ok[0], ranks_ok[-1]]
                    break
            if "like" in entry:
                # A bool param that changes this output's shape: when the
                # fake kernel keeps the axis dim as 1 with it true and
                # removes it with it false (keepdim), the opdef says so
                # (keep: <param>); any other change it cannot say.
                for b in args:
                    if b["kind"] == "bool":
                        flipped = dict(params, **{b["name"]: not params[b["name"]]})
                        ok = axis_form(op, args, required, ranks_ok, dt0, flipped, ax, i)
                        if ok == form:
                            continue
                        by_value = {params[b["name"]]: form, not params[b["name"]]: ok}
                        keeps = by_value[True] and by_value[True][1] == "keep"
                        removes = by_value[False] and by_value[False][1] == "remove"
                        if keeps and removes and by_value[True][0] == by_value[False][0] and "keep" not in entry:
                            entry["like"], entry["mode"], entry["replace"], entry["keep"] = by_value[True][0], "keep", None, b["name"]
                            continue
                        entry["confirm"] = ("the output's shape depends on %s: the opdef gives its shape for %s=%s (its default); "
                                            "with %s=%s the op's output shape differs, which one opdef cannot say" %
                                            (b["name"], b["name"], params[b["name"]], b["name"], not params[b["name"]]))
                outputs.append(entry)
                continue
        # A fixed shape at the base rank.
        pr = Printer(dict(names), sentinels)
        dims, data_dependent = [], []
        for d in fixed.outputs[i].shape:
            e = fixed.expr(d)
            free = [s for s in e.free_symbols if s not in names]
            for s in free:
                if str(s).startswith("u") and s not in pr.names:
                    k = "K" if "K" not in [x["name"] for x in data_dependent] else "K" + str(len(data_dependent))
                    pr.names[s] = k
                    data_dependent.append({"name": k, "sympy": str(s)})
            dims.append(pr(e))
        if pr.unknown:
            entry["unknown"] = pr.unknown
        entry["dims"] = dims
        if data_dependent:
            entry["data_dependent"] = data_dependent
        if len(ranks_ok) > 1:
            entry["fixed_rank_note"] = "the kernel takes ranks %d-%d, but this output's shape has no form over ranks; the opdef fixes rank %d" % (ranks_ok[0], ranks_ok[-1], base_rank)
        outputs.append(entry)
    inputs = []
    for a in tensor_args:
        d = {"name": a["name"], "optional": bool(a.get("optional")), "dtype": "T"}
        if rank_range is not None and not a.get("optional"):
            d["rank"] = rank_range
        else:
            d["dims"] = [Printer(names, {})(e) for e in in_dims.get(a["name"], [])]
            if a["name"] not in in_dims:
                d["absent"] = True
        inputs.append(d)
    return {"dtypes": dtypes, "dtype_source": dtype_source, "inputs": inputs, "outputs": outputs, "notes": notes,
            "ranks": ranks_ok}


def check_shapes(requests):
    """The fake kernel's output shapes for concrete input shapes."""
    results = []
    for req in requests:
        op = resolve(req["op"])
        _, args, _ = describe_schema(op)
        params = {a["name"]: probe_value(a) for a in args if a["kind"] not in ("tensor", "unsupported")}
        params.update(req.get("params") or {})
        shapes = req["inputs"]
        ranks = {a: len(s) for a, s in shapes.items() if s is not None}
        try:
            p = Probe(op, args, ranks, req.get("dtype", "float32"), params, concrete=shapes)
            out = []
            for o in p.outputs:
                out.append([int(d) if isinstance(d, int) else str(d.node.expr) for d in o.shape])
            results.append(out)
        except Exception as e:
            results.append("%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    return results


# The namespaces of torch's own ops: an exported program's calls of these
# are not the user's custom ops.
TORCH_NAMESPACES = ("aten", "prims", "higher_order")


def exported_ops(path, module):
    """The custom ops (OpOverloads outside torch's own namespaces) the
    torch.export'ed program at path calls, as NS::NAME in the order of their
    first call, or {"error": text}. The program names its ops only: their
    schemas and fake kernels come from the module, imported before loading
    (torch.export.load cannot resolve an op nobody registered)."""
    import re
    import zipfile

    # torch.export.load only logs which op it could not resolve: name the
    # unregistered ops from the archive's serialized graphs first.
    try:
        with zipfile.ZipFile(path) as z:
            text = " ".join(z.read(n).decode("utf-8", "replace") for n in z.namelist() if n.endswith(".json"))
    except (OSError, zipfile.BadZipFile) as e:
        return {"error": "%s is not a torch.export'ed program (a .pt2 archive of torch.export.save): %s" % (path, e)}
    unknown = []
    for ns, name in re.findall(r"torch\.ops\.([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)\.[A-Za-z_][A-Za-z0-9_]*", text):
        q = ns + "::" + name
        if ns not in TORCH_NAMESPACES and q not in unknown and not hasattr(getattr(torch.ops, ns), name):
            unknown.append(q)
    if unknown:
        return {"error": "%s calls %s, which %s does not register: name the module that defines %s with --module "
                         "(it is imported before the program is loaded)" % (path, ", ".join(unknown), module,
                                                                           "it" if len(unknown) == 1 else "them")}
    try:
        ep = torch.export.load(path)
    except Exception as e:  # noqa: BLE001 - torch's own message, shortened
        text = str(e)
        return {"error": "torch.export.load(%s): %s: %s" % (path, type(e).__name__, text.splitlines()[0] if text else "")}
    ops = []
    for node in ep.graph_module.graph.nodes:
        t = node.target
        if node.op != "call_function" or not isinstance(t, torch._ops.OpOverload):
            continue
        ns = t.namespace
        if ns in TORCH_NAMESPACES:
            continue
        q = ns + "::" + t._schema.name.split("::", 1)[-1]
        if q not in ops:
            ops.append(q)
    return {"ops": ops}


def triton_kernel(entry, qualname, args):
    """The op's Triton kernel and launch (inspect_triton), where it launches one."""
    try:
        import inspect_triton
        found = inspect_triton.describe(qualname, args)
    except Exception as e:
        found = {"note": "reading the op's Triton launch failed: %s: %s" % (type(e).__name__, e)}
    if found is not None:
        entry["triton"] = found


def resolve(qualname):
    ns, name = qualname.split("::", 1)
    return getattr(getattr(torch.ops, ns), name).default


def main():
    # The fake kernels' refusals are expected while probing: torch logs them.
    logging.disable(logging.CRITICAL)
    req = json.load(sys.stdin)
    try:
        import inspect_triton
        inspect_triton.prepare()
        load_module(req["module"])
    except Exception as e:
        print(json.dumps({"error": "cannot import %s: %s: %s" % (req["module"], type(e).__name__, e)}))
        return
    if "check" in req:
        print(json.dumps({"shapes": check_shapes(req["check"])}))
        return
    if req.get("exported"):
        print(json.dumps(exported_ops(req["exported"], req["module"])))
        return
    ops = []
    for qualname in req["ops"]:
        entry = {"op": qualname}
        try:
            op = resolve(qualname)
        except Exception as e:
            entry["error"] = "no op %s after importing %s: %s" % (qualname, req["module"], e)
            ops.append(entry)
            continue
        schema, args, rets = describe_schema(op)
        entry.update({"schema": schema, "args": args})
        bad = [a for a in args if a["kind"] == "unsupported"]
        if bad or any(not r["tensor"] for r in rets):
            ops.append(entry)
            continue
        try:
            entry.update(analyze(op, qualname, args, rets, req.get("dtypes")))
        except Exception as e:
            entry["error"] = "running the fake kernel: %s: %s" % (type(e).__name__, e)
            entry["traceback"] = traceback.format_exc()
        triton_kernel(entry, qualname, args)
        ops.append(entry)
    print(json.dumps({"ops": ops, "torch": torch.__version__, "file": getattr(sys.modules.get(MODULE_NAME[0]), "__file__", "") or ""}))


if __name__ == "__main__":
    main()
