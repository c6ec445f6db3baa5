package ir_test

import (
	"reflect"
	"testing"

	"github.com/opforge/opforge/generators/ir"
)

// TestDeriveDTypeCode: an input's dtype_param naming a dtype code binds
// the input's type variable to the dtypes the codes name, in code order
// (one combination per code, as an enum's values), and an output typed
// by the code param takes the dtype its code names.
func TestDeriveDTypeCode(t *testing.T) {
	x, y, z := tensor(t, "x:$T:N"), tensor(t, "y:$T:N"), tensor(t, "z:float32|float16:N")
	x.DTypeParam, z.DTypeParam = "dt", "dt"
	op := &ir.Op{
		Name:     "Coded",
		TypeVars: []*ir.TypeVar{{Name: "T", Allowed: []ir.DType{ir.Float32, ir.Float16}}},
		Inputs:   []*ir.Tensor{x},
		Outputs:  []*ir.Tensor{y, z},
		Params: []*ir.Param{
			{Name: "scale", Kind: ir.ParamScalar, DTypes: []ir.DType{ir.Float32}},
			{Name: "dt", Kind: ir.ParamScalar, DTypes: []ir.DType{ir.Int32}, DTypeCode: &ir.DTypeCode{Spelling: "onnx", Codes: []int64{10, 1}}},
		},
	}
	f := ir.Derive(op)
	wantSlots := []ir.DTypeSlot{{Var: "T", Input: 0, Allowed: []ir.DType{ir.Float16, ir.Float32}, ByParam: true, Param: 1}}
	if !reflect.DeepEqual(f.Slots, wantSlots) {
		t.Errorf("slots %+v, want %+v", f.Slots, wantSlots)
	}
	wantRules := []ir.OutputDType{
		{Rule: ir.DTypeSameAs, Input: 0, DType: ir.Float32, Allowed: []ir.DType{ir.Float32, ir.Float16}},
		{Rule: ir.DTypeParam, Param: 1, DType: ir.Float16, Allowed: []ir.DType{ir.Float16, ir.Float32}},
	}
	if !reflect.DeepEqual(f.Outputs, wantRules) {
		t.Errorf("output rules %+v, want %+v", f.Outputs, wantRules)
	}
	if got := op.Params[1].ChosenDTypes(); !reflect.DeepEqual(got, []ir.DType{ir.Float16, ir.Float32}) {
		t.Errorf("ChosenDTypes %v", got)
	}
}

// TestDTypeCodeTables: the ONNX table is the core's; a second table of
// one name is ignored, so a target registering twice changes nothing.
func TestDTypeCodeTables(t *testing.T) {
	onnx := ir.DTypeCodes("onnx")
	if onnx == nil || onnx.Row(16).DType != ir.BFloat16 || onnx.Row(0) != nil {
		t.Fatalf("onnx table: %+v", onnx)
	}
	ir.RegisterDTypeCodes(ir.DTypeCodeTable{Name: "onnx", Rows: []ir.CodedDType{{Code: 16, DType: ir.Int8}}})
	if ir.DTypeCodes("onnx").Row(16).DType != ir.BFloat16 {
		t.Error("a second onnx table replaced the first")
	}
}
