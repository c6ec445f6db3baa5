package trt

import "github.com/opforge/opforge/generators/ir"

// tensorDTypes spell dtypes as nvinfer1::DataType enumerators (NvInferRuntimeBase.h):
// the dtypes a plugin's tensors can have. Others are trt-dtype diagnostics.
var tensorDTypes = map[ir.DType]string{
	ir.Bool: "kBOOL", ir.Int8: "kINT8", ir.Int32: "kINT32", ir.Int64: "kINT64", ir.Uint8: "kUINT8",
	ir.Float16: "kHALF", ir.BFloat16: "kBF16", ir.Float32: "kFLOAT", ir.Float8E4: "kFP8",
	ir.QInt8: "kINT8",
}

// fieldTypes spell dtypes as nvinfer1::PluginFieldType enumerators
// (NvInferRuntimePlugin.h): the types a creator's fields (params) can have.
// A bool field travels as kINT8, a string as kCHAR.
var fieldTypes = map[ir.DType]string{
	ir.Bool: "kINT8", ir.Int8: "kINT8", ir.Int16: "kINT16", ir.Int32: "kINT32", ir.Int64: "kINT64",
	ir.Float16: "kFLOAT16", ir.BFloat16: "kBF16", ir.Float32: "kFLOAT32", ir.Float64: "kFLOAT64",
	ir.Float8E4: "kFP8", ir.String: "kCHAR",
}

// TensorDType is d's nvinfer1::DataType enumerator, "" when TensorRT
// tensors cannot have it.
func TensorDType(d ir.DType) string { return tensorDTypes[d] }

// FieldType is d's nvinfer1::PluginFieldType enumerator, "" when no
// plugin field has it.
func FieldType(d ir.DType) string { return fieldTypes[d] }
