package onnximport

import (
	"fmt"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/onnx"
)

// paramFor makes the param an attribute becomes: its name is the
// attribute's (a plugin runtime's parser matches plugin fields by name)
// and its dtype the one of the field the parser sends (INT and INTS
// narrowed to int32, FLOAT and FLOATS float32), so a generated plugin
// declares exactly the field it will receive.
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
		if len(a.T.Dims) > ir.MaxRank {
			return nil, fmt.Sprintf("a tensor of rank %d; an opdef param tensor has at most %d dims", len(a.T.Dims), ir.MaxRank)
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
		want = "nothing: no param kind holds " + a.Type.String() + " attributes"
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
