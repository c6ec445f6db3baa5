"""Structural checks of generated Compass AIPU plugins (no Compass code needed).

Usage: python check_aipu_stubs.py PLAN.json
For every op of every package in the plan: each plugin byte-compiles, and its
syntax tree has the imports, decorators (with their arguments), base classes,
class attributes, methods (with their arity) and module-level register_optype
the Compass stages look for, with one layer type string in all three.
"""

import ast
import json
import os
import sys

sys.dont_write_bytecode = True

failures = []


def fail(where, msg):
    failures.append("%s: %s" % (where, msg))
    print("FAIL: %s: %s" % (where, msg))


def parse(path):
    with open(path, encoding="utf-8") as f:
        src = f.read()
    compile(src, path, "exec")  # what py_compile does, without writing __pycache__ into out/
    return ast.parse(src, path)


def literal(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return ast.unparse(node)


def imports(tree):
    """{(module, name)} of the module's from-imports."""
    out = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                out.add((node.module, alias.name))
    return out


def call(node, func):
    """The ast.Call node if node calls func (a dotted name), else None."""
    if isinstance(node, ast.Call) and ast.unparse(node.func) == func:
        return node
    return None


def methods(cls):
    return {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}


def arity(fn):
    """Positional parameter names and whether *args is taken."""
    return [a.arg for a in fn.args.args], fn.args.vararg is not None


def check_methods(where, cls, wanted):
    have = methods(cls)
    for name, params in wanted.items():
        if name not in have:
            fail(where, "no method %s" % name)
            continue
        got, _ = arity(have[name])
        if got != params:
            fail(where, "%s(%s), want (%s)" % (name, ", ".join(got), ", ".join(params)))


def one_class(where, tree):
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    if len(classes) != 1:
        fail(where, "%d classes, want 1" % len(classes))
        return None
    return classes[0]


def class_attrs(cls):
    out = {}
    for n in cls.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            out[n.targets[0].id] = literal(n.value)
    return out


def module_register_optype(where, tree, name):
    """The layer type of `name = register_optype("...")` at module level."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == [name]:
            c = call(node.value, "register_optype")
            if c and len(c.args) == 1:
                return literal(c.args[0])
    fail(where, "no module-level %s = register_optype(<layer type>)" % name)
    return None


def check_parser(path, op):
    where = os.path.basename(path)
    tree = parse(path)
    need = {("AIPUBuilder.Parser.plugin_op", "ParserOp"), ("AIPUBuilder.Parser.plugin_loader", "register_plugin"),
            ("AIPUBuilder.Parser.plugin_loader", "PluginType")}
    if not need <= imports(tree):
        fail(where, "imports lack %s" % sorted(need - imports(tree)))
    cls = one_class(where, tree)
    if cls is None:
        return None
    if [ast.unparse(b) for b in cls.bases] != ["ParserOp"]:
        fail(where, "class %s does not subclass ParserOp" % cls.name)
    decos = [call(d, "register_plugin") for d in cls.decorator_list]
    if len(decos) != 1 or decos[0] is None or [ast.unparse(a) for a in decos[0].args[:1]] != ["PluginType.Parser"] \
            or len(decos[0].args) != 2 or literal(decos[0].args[1]) != op["version"]:
        fail(where, "decorator is not @register_plugin(PluginType.Parser, %r)" % op["version"])
    attrs = class_attrs(cls)
    if attrs.get("op_type") != op["framework_op"]:
        fail(where, "op_type %r, want %r" % (attrs.get("op_type"), op["framework_op"]))
    if op["alias"] != ("alias_op_type" in attrs) or (op["alias"] and attrs["alias_op_type"] != op["layer_type"]):
        fail(where, "alias_op_type %r, want %r" % (attrs.get("alias_op_type"), op["layer_type"] if op["alias"] else None))
    check_methods(where, cls, {"__init__": ["self", "framework", "attrs"], "infer_shape": ["self", "input_tensors"]})
    infer = methods(cls).get("infer_shape")
    if infer is not None and not arity(infer)[1]:
        fail(where, "infer_shape takes no *args")
    init = methods(cls).get("__init__")
    if init is not None and not any(call(n, "super().__init__") for n in ast.walk(init)):
        fail(where, "__init__ does not call super().__init__")
    # The IR keys in order: params written by __init__.
    keys = []
    for n in ast.walk(init) if init is not None else []:
        if isinstance(n, ast.Subscript) and ast.unparse(n.value) == "self.params" and isinstance(n.ctx, ast.Store):
            keys.append(literal(n.slice))
    want = [k for k, _ in op["params"]]
    if keys != want:
        fail(where, "params %s, want %s" % (keys, want))
    return attrs.get("alias_op_type", attrs.get("op_type"))


def check_opt(path, op):
    where = os.path.basename(path)
    tree = parse(path)
    star = any(isinstance(n, ast.ImportFrom) and n.module == "AIPUBuilder.Optimizer.framework" and n.names[0].name == "*"
               for n in tree.body)
    if not star:
        fail(where, "no from AIPUBuilder.Optimizer.framework import *")
    layer = module_register_optype(where, tree, "OP_TYPE")
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for suffix, deco in (("forward", "op_register"), ("quantize", "quant_register")):
        fn = funcs.get("%s_%s" % (op["stem"], suffix))
        if fn is None:
            fail(where, "no function %s_%s" % (op["stem"], suffix))
            continue
        calls = [call(d, deco) for d in fn.decorator_list]
        if len(calls) != 1 or calls[0] is None or len(calls[0].args) != 2 or ast.unparse(calls[0].args[0]) != "OP_TYPE" \
                or literal(calls[0].args[1]) != op["opt_version"]:
            fail(where, "%s is not decorated @%s(OP_TYPE, %r)" % (fn.name, deco, op["opt_version"]))
        if arity(fn) != (["self"], True):
            fail(where, "%s(%s), want (self, *args)" % (fn.name, ast.unparse(fn.args)))
    return layer


BUILDER_METHODS = {
    "get_graph_pattern": ["self"],
    "get_score": ["self"],
    "set_target": ["self", "target"],
    "check_params": ["self", "nodes"],
    "setup": ["self", "sgnode", "nodes"],
    "generate_params": ["self", "sgnode", "nodes"],
    "generate_kernel": ["self", "sgnode", "nodes"],
    "generate_code_name": ["self", "sgnode", "nodes"],
}


def check_builder(path, op):
    where = os.path.basename(path)
    tree = parse(path)
    need = {("AIPUBuilder.core", n) for n in ("BuilderOpPlugin", "BuilderParams", "DataLayout", "register_optype")} | \
        {("AIPUBuilder.plugin_loader", n) for n in ("register_plugin", "PluginType")}
    if not need <= imports(tree):
        fail(where, "imports lack %s" % sorted(need - imports(tree)))
    layer = module_register_optype(where, tree, "op_type")
    cls = one_class(where, tree)
    if cls is None:
        return layer
    if [ast.unparse(b) for b in cls.bases] != ["BuilderOpPlugin"]:
        fail(where, "class %s does not subclass BuilderOpPlugin" % cls.name)
    decos = [ast.unparse(d) for d in cls.decorator_list]
    if decos != ["register_plugin(PluginType.Builder, 0)"]:
        fail(where, "decorators %s, want @register_plugin(PluginType.Builder, 0)" % decos)
    check_methods(where, cls, BUILDER_METHODS)
    return layer


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    n = 0
    for pkg in plan:
        for op in pkg["ops"]:
            layers = {
                "parser": check_parser(os.path.join(pkg["dir"], "parser", "aipubt_parser_%s.py" % op["stem"]), op),
                "opt": check_opt(os.path.join(pkg["dir"], "opt", "aipubt_opt_%s.py" % op["stem"]), op),
                "builder": check_builder(os.path.join(pkg["dir"], "builder", "aipubt_builder_%s.py" % op["stem"]), op),
            }
            if set(layers.values()) != {op["layer_type"]}:
                fail(op["op"], "layer types %s, want %r everywhere" % (layers, op["layer_type"]))
            n += 1
    if failures:
        sys.exit("%d failure(s)" % len(failures))
    print("%d ops: parser, OPT and GBuilder plugins compile and have the expected structure" % n)


if __name__ == "__main__":
    main()
