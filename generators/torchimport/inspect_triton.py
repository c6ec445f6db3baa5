"""The Triton kernel behind a torch.library op, for opforge import torch (imported by inspect_ops.py).

An op written with torch.library.triton_op (or a custom_op whose implementation launches a
@triton.jit kernel) calls wrap_triton(kernel)[grid](args...) in its Python body. This finds that
one launch by reading the body's source, and says how each kernel argument follows from the op:
an input or output tensor, an element count, a param, a constant. The kernel's source (and that of
the @triton.jit helpers it calls) comes from inspect.getsource, so opforge can bring it into the
op's Triton region. Anything it cannot map is a note: the op then imports without its kernel.
Written by opforge.
"""

import ast
import inspect
import os
import textwrap


def prepare():
    """Before the op's module loads: in Triton's interpreter (which import torch chooses, as the
    probes run on CPU tensors), let wrap_triton take interpreted kernels."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        import triton_interpret
        triton_interpret.let_wrap_triton_interpret()


class Unmapped(Exception):
    """The launch has a form this reader does not map; the text says which."""


def op_function(qualname):
    """The Python function torch.library runs for the op (triton_op wraps it in a closure), or None."""
    try:
        from torch._library import custom_ops
    except ImportError:
        return None
    opdef = custom_ops.OPDEFS.get(qualname)
    if opdef is None:
        return None
    candidates = [getattr(opdef, "_init_fn", None)] + list((getattr(opdef, "_backend_fns", None) or {}).values())
    for fn in candidates:
        fn = unwrap(fn)
        if fn is not None and launches(fn):
            return fn
    return None


def unwrap(fn):
    """The user's function under torch.library's wrappers: __wrapped__, or a closure cell named fn."""
    seen = 0
    while fn is not None and seen < 8:
        seen += 1
        inner = getattr(fn, "__wrapped__", None)
        if inner is None:
            code = getattr(fn, "__code__", None)
            cells = dict(zip(code.co_freevars, fn.__closure__ or ())) if code is not None else {}
            cell = cells.get("fn")
            inner = cell.cell_contents if cell is not None and callable(cell.cell_contents) else None
        if inner is None:
            return fn
        fn = inner
    return fn


def launches(fn):
    try:
        return bool(launch_calls(parse(fn)))
    except (OSError, TypeError, SyntaxError):
        return False


def parse(fn):
    return ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]


def launch_calls(tree):
    """Calls of the form K[grid](...) or wrap_triton(K)[grid](...)."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript)]


def kernel_of(node, scope):
    """The JITFunction a launch's subscripted value names."""
    v = node.func.value
    if isinstance(v, ast.Call) and len(v.args) == 1:  # wrap_triton(K), capture_triton(K)
        v = v.args[0]
    if isinstance(v, ast.Name):
        return scope.get(v.id)
    return None


def is_jit(obj):
    """A @triton.jit kernel: a JITFunction, or in Triton's interpreter an InterpretedFunction."""
    return type(obj).__name__ in ("JITFunction", "InterpretedFunction", "Interpreted") and hasattr(obj, "fn")


def compiled_view(kernel):
    """The kernel as a JITFunction, whose params say which arguments are constexprs."""
    from triton.runtime.jit import JITFunction
    return kernel if isinstance(kernel, JITFunction) else JITFunction(kernel.fn)


def scope_of(fn):
    scope = dict(fn.__globals__)
    code = fn.__code__
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            scope[name] = cell.cell_contents
        except ValueError:
            pass
    return scope


def source_with_helpers(kernel):
    """The kernel's source after the sources of the @triton.jit functions it calls (depth first,
    each once), and the module globals it reads that it does not bring (notes)."""
    order, notes, seen = [], [], set()

    def visit(k):
        if k.fn.__name__ in seen:
            return
        seen.add(k.fn.__name__)
        globs = k.fn.__globals__
        for name in k.fn.__code__.co_names:
            obj = globs.get(name)
            if is_jit(obj):
                visit(obj)
        order.append(textwrap.dedent(inspect.getsource(k.fn)).strip("\n"))

    visit(kernel)
    known = {"tl", "triton", "math", "libdevice"}
    for name in kernel.fn.__code__.co_names:
        obj = kernel.fn.__globals__.get(name)
        if obj is None or is_jit(obj) or name in known or inspect.ismodule(obj):
            continue
        notes.append("the kernel reads the module global %s, which the region does not define: define it there" % name)
    return "\n\n\n".join(order) + "\n", notes


class Locals:
    """What the op function's simple assignments make of a name: an output tensor it returns, an
    element count of a tensor, an alias."""

    def __init__(self, tree, params, tensors):
        self.params, self.tensors = params, tensors
        self.assigned = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                self.assigned.setdefault(n.targets[0].id, n.value)
        self.outputs = []
        for n in ast.walk(tree):
            if isinstance(n, ast.Return) and n.value is not None:
                vals = n.value.elts if isinstance(n.value, ast.Tuple) else [n.value]
                self.outputs = [v.id if isinstance(v, ast.Name) else None for v in vals]
                break

    def resolve(self, e, depth=0):
        """One launch argument as an opforge token: {"input": name}, {"output": index},
        {"numel_input": name}, {"numel_output": index}, {"param": name}, {"literal": value}."""
        if depth > 8:
            raise Unmapped("an assignment cycle")
        if isinstance(e, ast.Constant) and isinstance(e.value, (bool, int, float)):
            return {"literal": e.value}
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "numel" and not e.args:
            t = self.resolve(e.func.value, depth + 1)
            if "input" in t:
                return {"numel_input": t["input"]}
            if "output" in t:
                return {"numel_output": t["output"]}
            raise Unmapped("%s is the element count of something other than an input or output" % ast.unparse(e))
        if isinstance(e, ast.Name):
            if e.id in self.outputs:
                return {"output": self.outputs.index(e.id)}
            if e.id in self.tensors:
                return {"input": e.id}
            if e.id in self.params:
                return {"param": e.id}
            if e.id in self.assigned:
                return self.resolve(self.assigned[e.id], depth + 1)
        raise Unmapped("%s is not an input, an output the function returns, an element count (.numel()), a param or a "
                       "number" % ast.unparse(e))


def grid_block(call, tree, kernel, constexprs):
    """The constexpr the launch grid divides the element count by: grid is (cdiv(n, BLOCK),) with
    BLOCK a meta["NAME"] lookup or the constexpr's own value; None for any other grid."""
    g = call.func.slice
    if isinstance(g, ast.Name):
        for n in ast.walk(tree):
            if isinstance(n, ast.FunctionDef) and n.name == g.id:
                rets = [r.value for r in ast.walk(n) if isinstance(r, ast.Return)]
                g = rets[0] if rets else g
                break
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == g.id:
                g = n.value
                break
    if isinstance(g, ast.Lambda):
        g = g.body
    if not isinstance(g, ast.Tuple) or len(g.elts) != 1:
        return None
    c = g.elts[0]
    if not (isinstance(c, ast.Call) and len(c.args) == 2 and ast.unparse(c.func).split(".")[-1] == "cdiv"):
        return None
    d = c.args[1]
    if isinstance(d, ast.Subscript) and isinstance(d.slice, ast.Constant) and d.slice.value in constexprs:
        return d.slice.value
    if isinstance(d, ast.Constant):
        hits = [k for k, v in constexprs.items() if v == {"literal": d.value}]
        return hits[0] if len(hits) == 1 else None
    return None


def describe(qualname, args):
    """The op's Triton kernel and its launch, or None when the op launches none, or
    {"note": why} when it launches one this reader cannot map."""
    fn = op_function(qualname)
    if fn is None:
        return None
    tree = parse(fn)
    calls = launch_calls(tree)
    scope = scope_of(fn)
    kernels = [(c, kernel_of(c, scope)) for c in calls]
    kernels = [(c, k) for c, k in kernels if is_jit(k)]
    if not kernels:
        return None
    if len(kernels) > 1:
        return {"note": "the op launches %d Triton kernels; opforge brings one launch along" % len(kernels)}
    call, kernel = kernels[0]
    try:
        return mapped(tree, call, kernel, args)
    except Unmapped as e:
        return {"note": "the launch of %s: %s" % (kernel.fn.__name__, e), "kernel": kernel.fn.__name__}


def mapped(tree, call, kernel, args):
    tensors = [a["name"] for a in args if a["kind"] == "tensor"]
    params = [a["name"] for a in args if a["kind"] not in ("tensor", "unsupported")]
    where = Locals(tree, params, tensors)
    kernel = compiled_view(kernel)
    names = list(kernel.arg_names)
    is_const = [p.is_constexpr for p in kernel.params]
    given = {}
    if len(call.args) > len(names):
        raise Unmapped("%d arguments for a kernel of %d parameters" % (len(call.args), len(names)))
    for name, e in zip(names, call.args):
        given[name] = e
    for kw in call.keywords:
        if kw.arg is None or kw.arg not in names:
            raise Unmapped("the keyword %s is not a kernel parameter" % (kw.arg or "**"))
        given[kw.arg] = kw.value
    runtime, constexprs = [], {}
    for name, const, p in zip(names, is_const, kernel.params):
        if name not in given:
            if p.default is inspect.Parameter.empty:
                raise Unmapped("the parameter %s is not given" % name)
            continue
        token = where.resolve(given[name])
        if const:
            if not ("literal" in token or "param" in token):
                raise Unmapped("the constexpr %s is %s, not a number or a param" % (name, ast.unparse(given[name])))
            constexprs[name] = token
        else:
            runtime.append(dict(token, parameter=name))
    if not where.outputs or None in where.outputs:
        raise Unmapped("the function does not return its outputs by name")
    block = grid_block(call, tree, kernel, constexprs)
    notes = []
    if block is None:
        notes.append("the launch grid %s is not (cdiv(count, BLOCK),): the launcher runs the kernel on aot_impl's grid, "
                     "cdiv(the largest output count, BLOCK_SIZE); confirm it covers what the kernel expects" % ast.unparse(call.func.slice))
    source, more = source_with_helpers(kernel)
    return {"kernel": kernel.fn.__name__, "source": source, "args": runtime, "constexprs": constexprs,
            "block": block, "notes": notes + more}
