"""A stand-in for the tensorrt module, enough to import generated Python plugin modules without
TensorRT: the DataType and TensorFormat names, and tensorrt.plugin (see plugin/__init__.py)."""


class _Enum:
    def __init__(self, kind, name):
        self.kind, self.name = kind, name

    def __repr__(self):
        return f"{self.kind}.{self.name}"


class DataType:
    pass


for _name in ["FLOAT", "HALF", "INT8", "INT32", "BOOL", "UINT8", "FP8", "BF16", "INT64", "INT4", "FP4", "E8M0"]:
    setattr(DataType, _name, _Enum("DataType", _name))

float32, float16, int8, int32, bool = DataType.FLOAT, DataType.HALF, DataType.INT8, DataType.INT32, DataType.BOOL
uint8, fp8, bfloat16, int64 = DataType.UINT8, DataType.FP8, DataType.BF16, DataType.INT64


class TensorFormat:
    pass


for _name in ["LINEAR", "CHW2", "HWC8", "CHW4", "CHW16", "CHW32", "DHWC8", "CDHW32", "HWC", "DLA_LINEAR", "DLA_HWC4", "HWC16", "DHWC"]:
    setattr(TensorFormat, _name, _Enum("TensorFormat", _name))
