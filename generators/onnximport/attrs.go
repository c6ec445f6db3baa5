package onnximport

import (
	"fmt"
	"math"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/onnx"
)

// tensorFieldTypes is the PluginFieldType TensorRT's ONNX parser gives a
// TENSOR attribute, by element type; other element types are refused.
var tensorFieldTypes = map[onnx.DataType]string{
	onnx.Float: "kFLOAT32", onnx.Int8: "kINT8", onnx.Int16: "kINT16", onnx.Int32: "kINT32",
	onnx.String: "kCHAR", onnx.Float16: "kFLOAT16", onnx.BFloat16: "kBF16", onnx.Double: "kFLOAT64",
}

// ParserFieldType is the nvinfer1::PluginFieldType TensorRT's ONNX parser
// sends a plugin creator for attribute a, or "" when the parser refuses
// the attribute: INT and INTS are narrowed to kINT32, FLOAT and FLOATS are
// kFLOAT32, STRING and STRINGS are kCHAR, a TENSOR goes by its element
// type, and graphs, sparse tensors and type protos are refused.
func ParserFieldType(a *onnx.Attribute) string {
	switch a.Type {
	case onnx.AttrInt, onnx.AttrInts:
		return "kINT32"
	case onnx.AttrFloat, onnx.AttrFloats:
		return "kFLOAT32"
	case onnx.AttrString, onnx.AttrStrings:
		return "kCHAR"
	case onnx.AttrTensor:
		if a.T != nil {
			return tensorFieldTypes[a.T.DataType]
		}
	}
	return ""
}

// paramFor makes the param an attribute becomes: its name is the
// attribute's (the parser matches creator fields by name) and its dtype
// the one whose PluginFieldType is what the parser sends, so the creator
// the trt target generates declares exactly the field it will receive.
// The second result says why the attribute cannot be a param.
func paramFor(a *onnx.Attribute) (*ir.Param, string) {
	p := &ir.Param{Name: a.Name, Ident: names.Ident(a.Name), Mandatory: true}
	switch a.Type {
	case onnx.AttrInt:
		p.Kind, p.DTypes = ir.ParamScalar, []ir.DType{ir.Int32}
	case onnx.AttrFloat:
		p.Kind, p.DTypes = ir.ParamScalar, []ir.DType{ir.Float32}
	case onnx.AttrString:
		p.Kind, p.DTypes = ir.ParamString, []ir.DType{ir.String}
	case onnx.AttrInts:
		p.Kind, p.DTypes = ir.ParamArray, []ir.DType{ir.Int32}
	case onnx.AttrFloats:
		p.Kind, p.DTypes = ir.ParamArray, []ir.DType{ir.Float32}
	case onnx.AttrStrings:
		p.Kind, p.DTypes = ir.ParamArray, []ir.DType{ir.String}
	case onnx.AttrTensor:
		if a.T == nil {
			return nil, "a TENSOR attribute without a tensor"
		}
		dt, ok := dtypes[a.T.DataType]
		if !ok {
			return nil, fmt.Sprintf("a %s tensor, which has no opforge dtype", a.T.DataType)
		}
		p.DTypes = []ir.DType{dt}
		switch len(a.T.Dims) {
		case 0:
			p.Kind = ir.ParamScalar
		case 1:
			p.Kind = ir.ParamArray
		default:
			p.Kind, p.Rank = ir.ParamTensor, len(a.T.Dims)
		}
	case onnx.AttrUndefined:
		return nil, "an attribute of undefined type"
	default:
		return nil, fmt.Sprintf("a %s attribute; plugin fields (and opforge params) hold numbers, strings and tensors", a.Type)
	}
	return p, ""
}

// trtConcern says why TensorRT's parser would not hand attribute a to the
// plugin intact, or "".
func trtConcern(a *onnx.Attribute) string {
	switch a.Type {
	case onnx.AttrTensor:
		if ParserFieldType(a) == "" {
			return fmt.Sprintf("TensorRT's ONNX parser refuses %s tensor attributes as plugin fields; store it as an INT32 or FLOAT tensor, or as INTS/FLOATS", a.T.DataType)
		}
	case onnx.AttrInt:
		if a.I < math.MinInt32 || a.I > math.MaxInt32 {
			return fmt.Sprintf("its value %d does not fit the kINT32 field TensorRT's ONNX parser narrows INT attributes to", a.I)
		}
	case onnx.AttrInts:
		for _, v := range a.Ints {
			if v < math.MinInt32 || v > math.MaxInt32 {
				return fmt.Sprintf("its element %d does not fit the kINT32 field TensorRT's ONNX parser narrows INTS attributes to", v)
			}
		}
	}
	return ""
}

// accepts says why the field the parser makes from attribute a cannot
// fill param p of a (possibly hand-edited) op, or "". The generated
// creator converts between encodings of the same kind of value (ONNX's
// kINT32 into an int64 or bool param, a string into an enum), so kinds
// must agree, not exact dtypes; fixed array lengths must match.
func accepts(p *ir.Param, a *onnx.Attribute) string {
	dt := ir.DType("")
	if len(p.DTypes) > 0 {
		dt = p.DTypes[0]
	}
	isInt := dt.IsInteger()
	isFloat := dt.IsFloat()
	length := func(n int) string {
		if p.Kind == ir.ParamArray && p.Length > 0 && p.Length != n {
			return fmt.Sprintf("param %q holds %d elements, the attribute %d", p.Name, p.Length, n)
		}
		return ""
	}
	want := ""
	switch a.Type {
	case onnx.AttrInt:
		if (p.Kind == ir.ParamScalar && isInt) || p.Kind == ir.ParamBool || p.Kind == ir.ParamEnum {
			return ""
		}
		want = "an integer, bool or enum param"
	case onnx.AttrFloat:
		if p.Kind == ir.ParamScalar && isFloat {
			return ""
		}
		want = "a floating-point param"
	case onnx.AttrString:
		if p.Kind == ir.ParamString || p.Kind == ir.ParamEnum {
			return ""
		}
		want = "a string or enum param"
	case onnx.AttrInts:
		if p.Kind == ir.ParamArray && isInt {
			return length(len(a.Ints))
		}
		want = "an integer array param"
	case onnx.AttrFloats:
		if p.Kind == ir.ParamArray && isFloat {
			return length(len(a.Floats))
		}
		want = "a floating-point array param"
	case onnx.AttrStrings:
		if p.Kind == ir.ParamArray && dt == ir.String {
			return length(len(a.Strings))
		}
		want = "a string array param"
	case onnx.AttrTensor:
		elem := dtypes[a.T.DataType]
		rank := len(a.T.Dims)
		ok := dt == elem && (rank == 0 && p.Kind == ir.ParamScalar ||
			rank == 1 && p.Kind == ir.ParamArray ||
			rank >= 2 && p.Kind == ir.ParamTensor && (p.Rank == rank || p.Rank == ir.RankAny))
		if ok {
			if rank == 1 {
				return length(int(a.T.Dims[0]))
			}
			return ""
		}
		want = fmt.Sprintf("a %s param of rank %d", elem, rank)
	default:
		want = "nothing: TensorRT's parser refuses " + a.Type.String() + " attributes"
	}
	return fmt.Sprintf("attribute %q is %s, which fills %s; param %q is %s", a.Name, a.Type, want, p.Name, describeParam(p))
}

func describeParam(p *ir.Param) string {
	switch p.Kind {
	case ir.ParamArray:
		if p.Length > 0 {
			return fmt.Sprintf("%s[%d]", p.DTypes[0], p.Length)
		}
		return fmt.Sprintf("%s[]", p.DTypes[0])
	case ir.ParamTensor:
		return fmt.Sprintf("a %s tensor", p.DTypes[0])
	case ir.ParamScalar:
		if len(p.DTypes) > 0 {
			return string(p.DTypes[0])
		}
	}
	return string(p.Kind)
}
