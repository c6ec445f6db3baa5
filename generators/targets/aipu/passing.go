package aipu

import "github.com/opforge/opforge/generators/ir"

// passing is how a param reaches the kernel. The IR layer carries every
// param as key=value; the kernel takes scalars and buffers only.
type passing int

const (
	// passScalar: one scalar argument (numbers, bools as int, enums as
	// their index in the enum's storage dtype).
	passScalar passing = iota
	// passElements: one scalar argument per element of a fixed-length
	// array (pads -> pads_0 .. pads_3).
	passElements
	// passBuffer: a constant tensor of the layer (tensor params), passed
	// as a __global pointer.
	passBuffer
	// passNone: strings and variable-length arrays stay in the IR, where
	// the OPT forward and GBuilder can read them; the kernel cannot.
	passNone
)

func paramPassing(p *ir.Param) passing {
	switch p.Kind {
	case ir.ParamArray:
		if p.Length > 0 {
			return passElements
		}
		return passNone
	case ir.ParamString:
		return passNone
	case ir.ParamTensor:
		return passBuffer
	}
	return passScalar
}

// scalarDType is the dtype of a param's kernel scalar(s): bools become
// int32 (OpenCL forbids bool kernel arguments), enums their storage.
func scalarDType(p *ir.Param) ir.DType {
	if p.Kind == ir.ParamBool || len(p.DTypes) == 0 {
		return ir.Int32
	}
	return p.DTypes[0]
}
