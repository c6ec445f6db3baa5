"""A stand-in for tensorrt.plugin ("QDP") that checks what the real one checks when a module
registers plugins (tensorrt.plugin's _validate.py rules: id form and reserved namespaces,
annotations, no defaults, tensors before attributes, reserved and typed attributes, the exact
argument lists of impl / aot_impl / autotune, autotune type and format names) and evaluates shapes:
a ShapeExpr here is a number, so register functions can be run on concrete dims."""

import inspect
import typing

import numpy as np
import numpy.typing as npt

import tensorrt as trt

PLUGINS = {}

_RESERVED_NAMESPACES = {"", "trt", "tensorrt", "std"}
_RESERVED_ATTRS = {"outputs", "stream", "tactic"}
_ATTR_TYPES = (int, float, bytes, bool, str)
_NP_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64, bool, np.bool_)


class ShapeExpr:
    """A dim as a number; size-tensor dims refuse arithmetic, as TensorRT does."""

    def __init__(self, value=None, size=False):
        if isinstance(value, ShapeExpr):
            value, size = value.value, value.size
        if value is not None and not isinstance(value, int):
            raise TypeError(f"ShapeExpr takes an int or a ShapeExpr, not {type(value).__name__}")
        self.value, self.size = value, size

    def _op(self, other, fn):
        if self.size or (isinstance(other, ShapeExpr) and other.size):
            raise ValueError("It is not permitted to perform binary operations on size tensor expressions")
        if not isinstance(other, (int, ShapeExpr)):
            raise TypeError(f"ShapeExpr operand {other!r} is neither int nor ShapeExpr")
        o = other.value if isinstance(other, ShapeExpr) else other
        return ShapeExpr(fn(self.value, o))

    def __add__(self, o):
        return self._op(o, lambda a, b: a + b)

    def __sub__(self, o):
        return self._op(o, lambda a, b: a - b)

    def __mul__(self, o):
        return self._op(o, lambda a, b: a * b)

    def __floordiv__(self, o):
        return self._op(o, lambda a, b: a // b)


class ShapeExprs(list):
    def numel(self):
        n = ShapeExpr(1)
        for d in self:
            n = n * d
        return n


def _binary(a, b, fn):
    if isinstance(a, int) and isinstance(b, int):
        raise ValueError("Both arguments cannot be 'int's")
    return (a if isinstance(a, ShapeExpr) else ShapeExpr(a))._op(b, fn)


def cdiv(a, b):
    return _binary(a, b, lambda x, y: -(-x // y))


def max(a, b):  # noqa: A001 - tensorrt.plugin's name
    return _binary(a, b, lambda x, y: x if x > y else y)


def min(a, b):  # noqa: A001
    return _binary(a, b, lambda x, y: x if x < y else y)


class TensorDesc:
    def __init__(self, shape_expr=None, dtype=None):
        self.shape_expr = ShapeExprs(ShapeExpr(d) for d in (shape_expr or ()))
        self.dtype = dtype
        self.aliased_to = None

    @property
    def ndim(self):
        return len(self.shape_expr)

    def like(self):
        return TensorDesc([d.value for d in self.shape_expr], self.dtype)

    def aliased(self):
        d = self.like()
        d.aliased_to = self
        return d


class SizeTensorDesc(TensorDesc):
    def __init__(self, opt, upper_bound):
        super().__init__((), trt.int32)
        self.opt, self.upper_bound = ShapeExpr(opt), ShapeExpr(upper_bound)

    def expr(self):
        return ShapeExpr(self.upper_bound.value, size=True)


def size_tensor(opt, upper_bound):
    return SizeTensorDesc(opt, upper_bound)


def from_shape_expr(shape_expr, dtype):
    d = TensorDesc((), dtype)
    for e in shape_expr:
        d.shape_expr.append(e if isinstance(e, ShapeExpr) else ShapeExpr(e))
    return d


class Tensor:
    pass


class KernelLaunchParams:
    def __init__(self):
        self.grid_x = self.grid_y = self.grid_z = 1
        self.block_x = self.block_y = self.block_z = 1
        self.shared_mem = 0


class SymExprs(list):
    pass


class SymIntExprs(SymExprs):
    @classmethod
    def from_tuple(cls, exprs):
        return cls(exprs)


class SymInt32:
    def __init__(self, value):
        self.value = value.value if isinstance(value, ShapeExpr) else value


class AutoTuneCombination:
    def __init__(self, io_types=None, layouts=None, tactics=None):
        self.io_types = [s.strip() for s in io_types.split(",")] if io_types else []
        self.layouts = [s.strip() for s in (layouts or "LINEAR").split(",")]
        for t in self.io_types:
            for name in t.replace("*", "|").split("|"):
                if name not in ("FP32", "FP16") and not hasattr(trt.DataType, name):
                    raise ValueError(f"Unknown data type string '{name}'")
        for f in self.layouts:
            for name in f.replace("*", "|").split("|"):
                if not hasattr(trt.TensorFormat, name):
                    raise ValueError(f"Unknown format string '{name}'")
        if len(self.layouts) > 1 and len(self.layouts) != len(self.io_types):
            raise ValueError("io_types and layouts differ in length")


class _Plugin:
    def __init__(self, fn, tensors, attrs, nb_outputs):
        self.register, self.tensors, self.attrs, self.nb_outputs = fn, tensors, attrs, nb_outputs
        self.autotune = self.impl = self.aot_impl = None


def _split(plugin_id):
    ns, sep, name = plugin_id.partition("::")
    if not sep or "." in ns or "." in name:
        raise ValueError(f"plugin id {plugin_id!r} is not namespace::name without '.'")
    if ns in _RESERVED_NAMESPACES:
        raise ValueError(f"Provided namespace {ns} is a reserved namespace")
    return ns, name


def _is_ndarray(a):
    return typing.get_origin(a) is np.ndarray


def register(plugin_id, lazy_register=False):
    _split(plugin_id)

    def decorate(fn):
        tensors, attrs, seen_attr = [], {}, False
        for name, p in inspect.signature(fn).parameters.items():
            if p.annotation is inspect.Parameter.empty:
                raise ValueError(f"Argument {name} does not have a type annotation")
            if p.default is not inspect.Parameter.empty:
                raise ValueError(f"Argument {name} has a default value. Default values are not supported yet.")
            if p.annotation is TensorDesc:
                if seen_attr:
                    raise ValueError("TensorDescs args and attribute args cannot be interspersed")
                tensors.append(name)
                continue
            if not tensors:
                raise ValueError("TensorDescs args should come first, followed by attributes")
            if name in _RESERVED_ATTRS:
                raise ValueError(f"'{name}' is not allowed as a plugin attribute name.")
            if _is_ndarray(p.annotation):
                dtype = typing.get_args(typing.get_args(p.annotation)[1])[0]
                if dtype not in _NP_DTYPES:
                    raise ValueError(f"Attribute '{name}' is not a supported numpy array type")
            elif p.annotation not in _ATTR_TYPES:
                raise ValueError(f"Attribute '{name}' of type {p.annotation} is not a supported serializable type")
            attrs[name] = p.annotation
            seen_attr = True
        ret = inspect.signature(fn).return_annotation
        if typing.get_origin(ret) is tuple:
            if not all(a is TensorDesc for a in typing.get_args(ret)):
                raise ValueError("Return types can only be TensorDesc or Tuple[TensorDesc]")
            nb = len(typing.get_args(ret))
        elif ret is TensorDesc:
            nb = 1
        else:
            raise ValueError(f"Return argument is of type {ret}")
        if plugin_id in PLUGINS:
            raise ValueError(f"{plugin_id} is registered twice")
        PLUGINS[plugin_id] = _Plugin(fn, tensors, attrs, nb)
        return fn

    return decorate


def _check_args(kind, fn, plugin, tail, tensor_type):
    names = list(inspect.signature(fn).parameters)
    params = inspect.signature(fn).parameters
    used = [a for a in plugin.attrs if a in names]
    for a in used:
        if params[a].annotation is not inspect.Parameter.empty and params[a].annotation != plugin.attrs[a]:
            raise ValueError(f"Attribute '{a}' has a type annotation different from the one specified at registration.")
    for t in plugin.tensors:
        ann = params[t].annotation if t in params else None
        if ann not in (inspect.Parameter.empty, tensor_type):
            raise ValueError(f"{kind}: tensor {t} is annotated {ann}, expected {tensor_type.__name__}")
    if "outputs" in params and params["outputs"].annotation is not inspect.Parameter.empty:
        args = typing.get_args(params["outputs"].annotation)
        if typing.get_origin(params["outputs"].annotation) is not tuple or not all(a is tensor_type for a in args):
            raise ValueError(f"{kind}: 'outputs' should be a Tuple[{tensor_type.__name__}]")
    for optional in ("tactic",):
        if optional in names and optional not in tail:
            tail = tail + [optional]
    expected = plugin.tensors + used + tail
    if names != expected:
        raise ValueError(f"Signature of the {kind} function {names} does not match the expected input arg schema {expected}")


def _attach(kind, plugin_id, tail, tensor_type):
    def decorate(fn):
        plugin = PLUGINS.get(plugin_id)
        if plugin is None:
            raise ValueError(f"{plugin_id} is not registered")
        _check_args(kind, fn, plugin, tail, tensor_type)
        setattr(plugin, kind, fn)
        return fn

    return decorate


def impl(plugin_id):
    return _attach("impl", plugin_id, ["outputs", "stream"], Tensor)


def aot_impl(plugin_id):
    return _attach("aot_impl", plugin_id, ["outputs", "tactic"], TensorDesc)


def autotune(plugin_id):
    return _attach("autotune", plugin_id, ["outputs"], TensorDesc)
