"""The smallest stand-in for the compiled core of the tensorrt module (tensorrt.so, which needs
libnvinfer) under which the real tensorrt.plugin package runs unchanged.

tensorrt.plugin itself is not stubbed: __path__ points at the tensorrt_bindings directory of a
tensorrt-cu1x-bindings wheel (OPFORGE_TRT_BINDINGS), so `import tensorrt.plugin` loads the wheel's
plain-Python plugin/ package. Only the names those files touch are defined here, as plain Python:
enums, the plugin interfaces they subclass, PluginField(Collection), the plugin registry, and an
IExprBuilder whose dimension expressions are numbers, so shape functions can be evaluated.

OPFORGE_TRT_CORE_BEFORE_10_9=1 leaves out QuickPluginCreationRequest, as cores before TensorRT 10.9
do (tensorrt.plugin then has no ahead-of-time API).
"""

import os
import sys

import numpy as np

__path__ = [os.path.join(os.environ["OPFORGE_TRT_BINDINGS"], "tensorrt_bindings")]
__version__ = "stub"


class _Value:
    def __init__(self, kind, name, value):
        self.kind, self.name, self.value = kind, name, value

    def __repr__(self):
        return f"{self.kind}.{self.name}"

    def __int__(self):
        return self.value


def _enum(kind, names):
    cls = type(kind, (), {})
    cls.__members__ = {}
    for i, n in enumerate(names):
        v = _Value(kind, n, i)
        setattr(cls, n, v)
        cls.__members__[n] = v
    return cls


DataType = _enum("DataType", ["FLOAT", "HALF", "INT8", "INT32", "BOOL", "UINT8", "FP8", "BF16", "INT64", "INT4", "FP4", "E8M0"])
float32, float16, int8, int32, bool = DataType.FLOAT, DataType.HALF, DataType.INT8, DataType.INT32, DataType.BOOL
uint8, fp8, bfloat16, int64 = DataType.UINT8, DataType.FP8, DataType.BF16, DataType.INT64
TensorFormat = _enum("TensorFormat", ["LINEAR", "CHW2", "HWC8", "CHW4", "CHW16", "CHW32", "DHWC8", "CDHW32", "HWC", "DLA_LINEAR", "DLA_HWC4", "HWC16", "DHWC"])
PluginFieldType = _enum("PluginFieldType", ["FLOAT16", "FLOAT32", "FLOAT64", "INT8", "INT16", "INT32", "CHAR", "DIMS", "UNKNOWN", "BF16", "INT64", "FP8", "INT4", "FP4"])
DimensionOperation = _enum("DimensionOperation", ["SUM", "PROD", "MAX", "MIN", "SUB", "EQUAL", "LESS", "FLOOR_DIV", "CEIL_DIV"])
TensorRTPhase = _enum("TensorRTPhase", ["BUILD", "RUNTIME"])
PluginArgType = _enum("PluginArgType", ["INT"])
PluginArgDataType = _enum("PluginArgDataType", ["INT8", "INT16", "INT32"])
if os.environ.get("OPFORGE_TRT_CORE_BEFORE_10_9") != "1":
    QuickPluginCreationRequest = _enum("QuickPluginCreationRequest", ["UNKNOWN", "PREFER_JIT", "PREFER_AOT", "STRICT_JIT", "STRICT_AOT"])


_NPTYPES = {"FLOAT": np.float32, "HALF": np.float16, "INT8": np.int8, "INT32": np.int32, "BOOL": np.bool_, "UINT8": np.uint8, "INT64": np.int64}


def nptype(dtype):
    """The numpy type of a DataType (Tensor.__cuda_array_interface__ asks for it)."""
    return _NPTYPES[dtype.name]


class Logger:
    INTERNAL_ERROR, ERROR, WARNING, INFO, VERBOSE = range(5)

    def __init__(self, min_severity=WARNING):
        pass

    def log(self, severity, msg):
        pass


class IDimensionExpr:
    """A number, or a size tensor's expression (value None) carrying its opt and upper bound."""

    def __init__(self, value=None, size=None):
        self.value, self.size = value, size

    def is_constant(self):
        return self.value is not None

    def get_constant_value(self):
        return self.value


_OPS = {
    "SUM": lambda a, b: a + b, "PROD": lambda a, b: a * b, "MAX": max, "MIN": min, "SUB": lambda a, b: a - b,
    "EQUAL": lambda a, b: int(a == b), "LESS": lambda a, b: int(a < b), "FLOOR_DIV": lambda a, b: a // b,
    "CEIL_DIV": lambda a, b: -(-a // b),
}


class IExprBuilder:
    def constant(self, value):
        return IDimensionExpr(int(value))

    def operation(self, op, first, second):
        if not (first.is_constant() and second.is_constant()):
            raise ValueError(f"{op}: operand is not a build-time constant")
        return IDimensionExpr(_OPS[op.name](first.value, second.value))

    def declare_size_tensor(self, index, opt, upper):
        return IDimensionExpr(None, (index, opt.value, upper.value))


class DimsExprs(list):
    def __init__(self, n=0):
        super().__init__([None] * n if isinstance(n, int) else n)


class Dims(tuple):
    MAX_DIMS = 8

    def __new__(cls, dims=()):
        return super().__new__(cls, [0] * dims if isinstance(dims, int) else dims)


class PluginTensorDesc:
    def __init__(self):
        self.dims, self.type, self.format, self.scale = Dims(), float32, TensorFormat.LINEAR, 1.0


class DynamicPluginTensorDesc:
    def __init__(self):
        self.desc, self.min, self.max, self.opt = PluginTensorDesc(), Dims(), Dims(), Dims()


_FIELD_DTYPES = {
    "FLOAT16": np.float16, "FLOAT32": np.float32, "FLOAT64": np.float64, "INT8": np.int8, "INT16": np.int16,
    "INT32": np.int32, "INT64": np.int64, "CHAR": np.int8, "UNKNOWN": np.uint8,
}


class PluginField:
    """data reads back as a numpy array of the field type's element, as the bindings return it."""

    def __init__(self, name="", data=None, type=PluginFieldType.UNKNOWN):
        self.name, self.type = name, type
        dtype = _FIELD_DTYPES[type.name]
        if isinstance(data, (bytes, bytearray)):
            self.data = np.frombuffer(bytes(data), dtype=dtype)
        else:
            self.data = np.ascontiguousarray(np.asarray(data)).view(dtype) if data is not None else np.array([], dtype)


class PluginFieldCollection(list):
    pass


class _Registry:
    def __init__(self):
        self.creators = {}

    def register_creator(self, creator, namespace):
        key = (creator.name, creator.plugin_version, namespace)
        if key in self.creators:
            return False
        self.creators[key] = creator
        return True

    def get_creator(self, name, version, namespace):
        return self.creators.get((name, version, namespace))


_registry = _Registry()


def get_plugin_registry():
    return _registry


def _interface(name):
    return type(name, (), {"__init__": lambda self: None})


ITensor = _interface("ITensor")
ISymExpr = _interface("ISymExpr")
IPluginCreatorV3Quick = _interface("IPluginCreatorV3Quick")
IPluginV3 = _interface("IPluginV3")
IPluginV3QuickCore = _interface("IPluginV3QuickCore")
IPluginV3QuickBuild = _interface("IPluginV3QuickBuild")
IPluginV3QuickRuntime = _interface("IPluginV3QuickRuntime")
IPluginV3QuickAOTBuild = _interface("IPluginV3QuickAOTBuild")
