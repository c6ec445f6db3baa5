package trt

import (
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/ir"
)

// TensorRT's own dtype codes (dtype_code: trt): nvinfer1::DataType's
// values (NvInferRuntimeBase.h), for the dtypes of the vocabulary that
// TensorRT tensors have. NVIDIA's plugins take a dtype as an int field
// holding one of them (TopkLastDim's type_id). The table is registered
// with the IR as this package is initialized, so the validator reads it
// without naming TensorRT.
var dataTypeCodes = ir.DTypeCodeTable{Name: "trt", Title: "TensorRT nvinfer1::DataType", Rows: []ir.CodedDType{
	{Code: 0, DType: ir.Float32, Name: "kFLOAT"}, {Code: 1, DType: ir.Float16, Name: "kHALF"},
	{Code: 2, DType: ir.Int8, Name: "kINT8"}, {Code: 3, DType: ir.Int32, Name: "kINT32"},
	{Code: 4, DType: ir.Bool, Name: "kBOOL"}, {Code: 5, DType: ir.Uint8, Name: "kUINT8"},
	{Code: 6, DType: ir.Float8E4, Name: "kFP8"}, {Code: 7, DType: ir.BFloat16, Name: "kBF16"},
	{Code: 8, DType: ir.Int64, Name: "kINT64"},
}}

func init() { ir.RegisterDTypeCodes(dataTypeCodes) }

// paramValueC is the C++ value of t's param that names t.Allowed[i]: an
// enum member, or the dtype code.
func paramValueC(t *ioTensor, i int) string {
	if t.Enum != nil {
		return t.Enum.Type + "::" + t.Enum.Values[i].Const
	}
	return strconv.FormatInt(codeOf(t.Param, t.Allowed[i]), 10)
}

// codeOf is the code of d in dtype code param p's spelling.
func codeOf(p *ir.Param, d ir.DType) int64 {
	c, _ := ir.DTypeCodes(p.DTypeCode.Spelling).Code(d)
	return c
}

// codeListing is a dtype code param's allowed codes for messages: "0
// (kFLOAT, float32), 1 (kHALF, float16)", with the spelling's names.
func codeListing(p *ir.Param) string {
	table := ir.DTypeCodes(p.DTypeCode.Spelling)
	parts := make([]string, len(p.DTypeCode.Codes))
	for i, c := range p.DTypeCode.Codes {
		parts[i] = strconv.FormatInt(c, 10)
		if r := table.Row(c); r != nil {
			parts[i] += " (" + r.Name + ", " + string(r.DType) + ")"
		}
	}
	if table == nil {
		return strings.Join(parts, ", ") // a spelling the validator refused
	}
	return table.Title + " " + strings.Join(parts, ", ")
}

// codeInit is a dtype code param's allowed codes as a C++ braced list.
func codeInit(p *ir.Param) string {
	parts := make([]string, len(p.DTypeCode.Codes))
	for i, c := range p.DTypeCode.Codes {
		parts[i] = strconv.FormatInt(c, 10)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
