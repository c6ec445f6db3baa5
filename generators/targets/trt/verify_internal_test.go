package trt

import (
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/ir"
)

// TestVerifyTRTLayoutSkips: what verify cannot hand to the TensorRT
// runners is a reason (a skip), never a pass; data-dependent outputs are
// not among them.
func TestVerifyTRTLayoutSkips(t *testing.T) {
	shape := &ir.Tensor{Name: "s", ShapeTensor: true}
	for _, c := range []struct {
		op   *ir.Op
		want string
	}{
		{&ir.Op{Inputs: []*ir.Tensor{{Name: "x"}}}, ""},
		{&ir.Op{Inputs: []*ir.Tensor{{Name: "x"}}, DataDependent: []*ir.SizeSymbol{{Name: "K"}}}, ""},
		{&ir.Op{Inputs: []*ir.Tensor{{Name: "x"}, shape}}, "shape-tensor inputs"},
		{&ir.Op{Inputs: []*ir.Tensor{{Name: "x"}, {Name: "b", Optional: true}}}, ""},
		{&ir.Op{Inputs: []*ir.Tensor{{Name: "x"}, {Name: "b", Variadic: true}}}, "variadic inputs"},
		{&ir.Op{Inputs: []*ir.Tensor{{Name: "x"}}, Params: []*ir.Param{{Name: "w", Kind: ir.ParamTensor}}}, "tensor params"},
	} {
		if got := trtLayoutProblem(c.op); c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.op.Inputs, got, c.want)
		}
	}
}
