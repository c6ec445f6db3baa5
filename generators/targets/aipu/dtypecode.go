package aipu

import (
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/validate"
)

// checkParamTyped reports the tensors whose dtype a param chooses in a way
// the Compass target does not generate: an input bound by a dtype_param,
// or a tensor typed by a dtype code. The Parser and OPT plugins read a
// dtype-choosing param as a dtype name (the Compass IR keeps it as text,
// which the IR reader turns into a Dtype), which an integer code is not,
// and no Compass plugin checks an input's dtype against a param.
func checkParamTyped(op *ir.Op, d *diag.TargetList) {
	for _, pt := range validate.ParamTypedTensors(op) {
		d.Errorf(pt.Tensor.Where.At("dtype_param", pt.Tensor.Pos), "aipu-dtype-code",
			"%s %q of op %s takes its dtype from param %q, %s; the Compass target cannot generate that: its plugins read a dtype-choosing param as a dtype name, as the Compass IR keeps it, and check no input's dtype against a param (generate the op for other targets: list them under targets)",
			pt.Role(), pt.Tensor.Name, op.Name, pt.Param.Name, pt.How())
	}
}
