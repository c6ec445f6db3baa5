package htp

import (
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/targets/htp/qnnxml"
)

// checkExecuTorch reports what would keep ExecuTorch's Qualcomm backend from
// delegating calls of op to the package. ExecuTorch sends each Python
// argument as follows: tensors as inputs in schema order, None not at all,
// str raises, lists as 1-D tensor params typed by their first element,
// other scalars as scalar params; Python int and bool travel as
// QNN_DATATYPE_UINT_32 and float as QNN_DATATYPE_FLOAT_32. The package's
// ValidateOpConfig then requires exact input, output and param counts.
func checkExecuTorch(op *ir.Op, d *diag.TargetList) {
	for _, in := range op.Inputs {
		if in.Optional {
			d.Warnf(in.Where.At("optional", in.Where.At("mandatory", in.Pos)), "executorch-optional-input", "input %q of op %s is optional: ExecuTorch sends nothing for a None argument, so such calls miss the exact input count the package validates and are not delegated", in.Name, op.Name)
		}
	}
	for _, p := range op.Params {
		pos := p.Where.At("type", p.Pos)
		switch p.Kind {
		case ir.ParamString:
			d.Errorf(pos, "executorch-string-param", "param %q of op %s is a string; ExecuTorch's Qualcomm backend cannot pass string arguments (QNN_DATATYPE_STRING is not plumbed)", p.Name, op.Name)
		case ir.ParamTensor:
			// passed as a tensor input by ExecuTorch, not as a param: counts differ
			d.Warnf(pos, "executorch-tensor-param", "param %q of op %s is a tensor param; ExecuTorch passes Tensor arguments as inputs, so the call's input and param counts will not match the package", p.Name, op.Name)
		case ir.ParamBool:
			d.Warnf(pos, "executorch-param-dtype", "bool param %q of op %s: ExecuTorch sends Python bools as QNN_DATATYPE_UINT_32, which a BOOL_8 param does not accept; for ExecuTorch use an enum or a uint32 param", p.Name, op.Name)
		default:
			want := ir.Uint32
			if len(p.DTypes) > 0 && p.DTypes[0].IsFloat() {
				want = ir.Float32
			}
			if !slices.Contains(p.DTypes, want) {
				d.Warnf(pos, "executorch-param-dtype", "param %q of op %s accepts %s, but ExecuTorch sends Python %s values as %s; add %s to its types or calls will not be delegated", p.Name, op.Name, dtypeList(p.DTypes), map[bool]string{true: "float", false: "int"}[want == ir.Float32], qnnxml.QNNName(want), want)
			}
		}
	}
}

func dtypeList(list []ir.DType) string {
	parts := make([]string, len(list))
	for i, d := range list {
		parts[i] = string(d)
	}
	return strings.Join(parts, ", ")
}
