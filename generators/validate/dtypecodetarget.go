package validate

import (
	"slices"

	"github.com/opforge/opforge/generators/ir"
)

// ParamTyped is a tensor whose dtype a param chooses where a target may
// not follow: an input (the param binds it) or a tensor typed by a dtype
// code param. Targets that generate neither report each such tensor.
type ParamTyped struct {
	Tensor *ir.Tensor
	Param  *ir.Param
	Input  bool
}

// ParamTypedTensors are op's inputs with a dtype_param and its outputs
// whose dtype_param is a dtype code, in tensor order.
func ParamTypedTensors(op *ir.Op) []ParamTyped {
	var out []ParamTyped
	for _, t := range op.Tensors() {
		p := op.Param(t.DTypeParam)
		if p == nil || !p.ChoosesDTypes() {
			continue
		}
		input := slices.Contains(op.Inputs, t)
		if input || p.DTypeCode != nil {
			out = append(out, ParamTyped{Tensor: t, Param: p, Input: input})
		}
	}
	return out
}

// Role is "input" or "output", for messages.
func (pt ParamTyped) Role() string {
	if pt.Input {
		return "input"
	}
	return "output"
}

// How says how the param types the tensor, for messages.
func (pt ParamTyped) How() string {
	if pt.Param.DTypeCode != nil {
		return "a dtype code (dtype_code: " + pt.Param.DTypeCode.Spelling + ")"
	}
	return "an enum of dtype names"
}
