package aipu

import (
	"slices"

	"github.com/opforge/opforge/generators/ir"
)

// spelling is how one dtype travels through the three Compass stages and
// the kernel. Every field is empty where that stage cannot take the dtype.
type spelling struct {
	// OpenCL is the element type in the kernel (Compass OpenCL has no
	// 64-bit types; bool tensors are bytes, bfloat16 travels as its bits).
	OpenCL string
	// NumPy is the numpy dtype expression of the Parser's arrays and of
	// GBuilder's scalar encoding.
	NumPy string
	// OPT is the member of the Optimizer's Dtype enum.
	OPT string
}

// spellings lists the dtypes AIPU kernels take: the Compass DSL scalar
// types (no 64-bit, string or 4-bit types), quantized ones as their
// integer storage.
var spellings = map[ir.DType]spelling{
	ir.Bool:     {"uchar", "np.bool_", "BOOL"},
	ir.Int8:     {"char", "np.int8", "INT8"},
	ir.Uint8:    {"uchar", "np.uint8", "UINT8"},
	ir.Int16:    {"short", "np.int16", "INT16"},
	ir.Uint16:   {"ushort", "np.uint16", "UINT16"},
	ir.Int32:    {"int", "np.int32", "INT32"},
	ir.Uint32:   {"uint", "np.uint32", "UINT32"},
	ir.Float16:  {"half", "np.float16", "FP16"},
	ir.Float32:  {"float", "np.float32", "FP32"},
	ir.BFloat16: {"ushort", "ml_dtypes.bfloat16", "BFP16"},
	ir.QInt8:    {"char", "np.int8", "INT8"},
	ir.QUint8:   {"uchar", "np.uint8", "UINT8"},
	ir.QInt16:   {"short", "np.int16", "INT16"},
	ir.QUint16:  {"ushort", "np.uint16", "UINT16"},
	ir.QInt32:   {"int", "np.int32", "INT32"},
	ir.QUint32:  {"uint", "np.uint32", "UINT32"},
}

// scalarParamDTypes are the dtypes a kernel scalar argument can have:
// OpenCL forbids bool kernel arguments (bools travel as int) and GBuilder
// encodes scalars through numpy, which has no bfloat16.
var scalarParamDTypes = map[ir.DType]bool{
	ir.Int8: true, ir.Uint8: true, ir.Int16: true, ir.Uint16: true, ir.Int32: true, ir.Uint32: true,
	ir.Float16: true, ir.Float32: true, ir.Bool: true,
}

// compassDTypes are the Compass IR dtype strings (quantized dtypes by their
// storage: the IR says int8, the scale travels separately).
var compassDTypes = map[ir.DType]string{
	ir.Bool: "bool", ir.Int8: "int8", ir.Int16: "int16", ir.Int32: "int32", ir.Int64: "int64",
	ir.Uint8: "uint8", ir.Uint16: "uint16", ir.Uint32: "uint32", ir.Uint64: "uint64",
	ir.Float16: "float16", ir.BFloat16: "bfloat16", ir.Float32: "float32", ir.Float64: "float64",
	ir.Float8E4: "float8_e4m3fn",
	ir.QInt8:    "int8", ir.QInt16: "int16", ir.QInt32: "int32",
	ir.QUint8: "uint8", ir.QUint16: "uint16", ir.QUint32: "uint32",
}

// CompassDType is d's Compass IR dtype string, "" when the IR has none.
func CompassDType(d ir.DType) string { return compassDTypes[d] }

func compassName(d ir.DType) string { return CompassDType(d) }

// distinctCompass returns ds without dtypes whose Compass string repeats
// an earlier one (qint8 and int8 are both int8 in the IR). When none
// repeats, which is the rule, it returns ds itself: callers only read it.
func distinctCompass(ds []ir.DType) []ir.DType {
	for i, d := range ds {
		if repeatsCompass(ds[:i], d) {
			out := slices.Clone(ds[:i])
			for _, d := range ds[i+1:] {
				if !repeatsCompass(out, d) {
					out = append(out, d)
				}
			}
			return out
		}
	}
	return ds
}

// repeatsCompass reports whether one of ds has d's Compass string. Dtype
// lists are short: a scan costs less than a set.
func repeatsCompass(ds []ir.DType, d ir.DType) bool {
	c := compassName(d)
	return slices.ContainsFunc(ds, func(e ir.DType) bool { return compassName(e) == c })
}
