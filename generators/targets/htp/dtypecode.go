package htp

import (
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/validate"
)

// checkParamTyped reports the tensors whose dtype a param chooses in a way
// the HTP target does not generate: an input bound by a dtype_param, or a
// tensor typed by a dtype code. QNN's op package config has no param that
// types a tensor (its XML lists each tensor's dtypes), and the ExecuTorch
// fake implementation takes a dtype_param output's dtype from the enum
// value's index and checks no input's dtype against a param.
func checkParamTyped(op *ir.Op, d *diag.TargetList) {
	for _, pt := range validate.ParamTypedTensors(op) {
		d.Errorf(pt.Tensor.Where.At("dtype_param", pt.Tensor.Pos), "htp-dtype-code",
			"%s %q of op %s takes its dtype from param %q, %s; the HTP target cannot generate that: a QNN op package has no param that types a tensor, and the ExecuTorch fake implementation chooses a dtype_param output's dtype by an enum value's index and checks no input against a param (generate the op for other targets: list them under targets)",
			pt.Role(), pt.Tensor.Name, op.Name, pt.Param.Name, pt.How())
	}
}
