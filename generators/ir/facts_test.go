package ir_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// tensor builds a tensor from a compact spec: "name:type:dims[:opt|:shape]",
// type a dtype list (float32|float16) or a type variable ($T).
func tensor(t *testing.T, spec string) *ir.Tensor {
	t.Helper()
	parts := strings.Split(spec, ":")
	x := &ir.Tensor{Name: parts[0], Ident: parts[0]}
	if v, ok := strings.CutPrefix(parts[1], "$"); ok {
		x.Type.Var = v
	} else {
		for _, d := range strings.Split(parts[1], "|") {
			x.Type.DTypes = append(x.Type.DTypes, ir.DType(d))
		}
	}
	if parts[2] != "" {
		for _, d := range strings.Split(parts[2], ",") {
			e, err := shapeexpr.Parse(d)
			if err != nil {
				t.Fatal(err)
			}
			x.Shape = append(x.Shape, &ir.Dim{Expr: e})
		}
	}
	x.Rank = len(x.Shape)
	for _, flag := range parts[3:] {
		switch flag {
		case "opt":
			x.Optional = true
		case "shape":
			x.ShapeTensor = true
		}
	}
	return x
}

// TestDerive: the facts every target reads, including the cases where the
// targets' own derivations used to disagree (optional inputs, shape
// tensors first, type variables no input binds).
func TestDerive(t *testing.T) {
	T := &ir.TypeVar{Name: "T", Allowed: []ir.DType{ir.Float32, ir.Float16}}
	for _, tc := range []struct {
		name     string
		inputs   []string
		outputs  []string
		bindings []ir.Binding
		slots    []ir.DTypeSlot
		rules    []ir.OutputDType
	}{{
		name:     "elementwise",
		inputs:   []string{"x:$T:N,C", "y:$T:N,C"},
		outputs:  []string{"z:$T:N,C"},
		bindings: []ir.Binding{{"N", 0, 0}, {"C", 0, 1}},
		slots:    []ir.DTypeSlot{{Var: "T", Input: 0, Allowed: T.Allowed}},
		rules:    []ir.OutputDType{{Rule: ir.DTypeSameAs, Input: 0, DType: ir.Float32, Allowed: T.Allowed}},
	}, {
		// A symbol an optional input uses first is bound by the required
		// input that has it too: the optional one may be absent.
		name:     "optional first",
		inputs:   []string{"bias:$T:C:opt", "x:$T:N,C"},
		outputs:  []string{"y:$T:N,C"},
		bindings: []ir.Binding{{"C", 1, 1}, {"N", 1, 0}},
		slots:    []ir.DTypeSlot{{Var: "T", Input: 0, Allowed: T.Allowed}},
		rules:    []ir.OutputDType{{Rule: ir.DTypeSameAs, Input: 1, DType: ir.Float32, Allowed: T.Allowed}},
	}, {
		// Only an optional input has the variable: the output takes its
		// dtype when present, the first allowed otherwise.
		name:     "variable of an optional input",
		inputs:   []string{"x:float32:N", "mask:$T:N:opt"},
		outputs:  []string{"y:$T:N"},
		bindings: []ir.Binding{{"N", 0, 0}},
		slots:    []ir.DTypeSlot{{Var: "T", Input: 1, Allowed: T.Allowed}},
		rules:    []ir.OutputDType{{Rule: ir.DTypeSameAs, Input: 1, DType: ir.Float32, Allowed: T.Allowed}},
	}, {
		// A shape tensor's own dims bind only what no data input binds; an
		// output with its own dtype list follows the first data input.
		name:     "shape tensor first",
		inputs:   []string{"shape:int32|int64:R:shape", "x:float32|float16:R,K"},
		outputs:  []string{"y:float16|float32:K", "n:$T:"},
		bindings: []ir.Binding{{"R", 1, 0}, {"K", 1, 1}},
		slots:    []ir.DTypeSlot{{Input: 0, Allowed: []ir.DType{ir.Int32, ir.Int64}}, {Input: 1, Allowed: []ir.DType{ir.Float32, ir.Float16}}},
		rules: []ir.OutputDType{
			{Rule: ir.DTypeFollow, Input: 1, DType: ir.Float16, Allowed: []ir.DType{ir.Float16, ir.Float32}},
			{Rule: ir.DTypeFixed, DType: ir.Float32, Allowed: T.Allowed},
		},
	}, {
		// An optional first data input cannot be followed.
		name:     "optional data input first",
		inputs:   []string{"x:float32|float16:N:opt"},
		outputs:  []string{"y:float16|float32:N"},
		bindings: []ir.Binding{{"N", 0, 0}},
		slots:    []ir.DTypeSlot{{Input: 0, Allowed: []ir.DType{ir.Float32, ir.Float16}}},
		rules:    []ir.OutputDType{{Rule: ir.DTypeFixed, DType: ir.Float16, Allowed: []ir.DType{ir.Float16, ir.Float32}}},
	}, {
		// A Cast-like `to` enum chooses the dtype; its default is the
		// fallback (defaults are checked by validate).
		name:     "dtype chosen by a param",
		inputs:   []string{"x:float32|float16:N"},
		outputs:  []string{"y:float16|int8:N"},
		bindings: []ir.Binding{{"N", 0, 0}},
		slots:    []ir.DTypeSlot{{Input: 0, Allowed: []ir.DType{ir.Float32, ir.Float16}}},
		rules:    []ir.OutputDType{{Rule: ir.DTypeParam, Param: 1, DType: ir.Int8, Allowed: []ir.DType{ir.Int8, ir.Float16}}},
	}, {
		name:    "no inputs",
		outputs: []string{"y:int64|int32:"},
		rules:   []ir.OutputDType{{Rule: ir.DTypeFixed, DType: ir.Int64, Allowed: []ir.DType{ir.Int64, ir.Int32}}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			op := &ir.Op{Name: "Op", TypeVars: []*ir.TypeVar{T}}
			for _, s := range tc.inputs {
				op.Inputs = append(op.Inputs, tensor(t, s))
			}
			for _, s := range tc.outputs {
				op.Outputs = append(op.Outputs, tensor(t, s))
			}
			if tc.name == "dtype chosen by a param" {
				op.Params = []*ir.Param{
					{Name: "k", Kind: ir.ParamScalar, DTypes: []ir.DType{ir.Int32}},
					{Name: "to", Kind: ir.ParamEnum, Values: []string{"int8", "float16"}, Default: &ir.Literal{Kind: ir.LitString, Text: "int8"}},
				}
				op.Outputs[0].DTypeParam = "to"
			}
			f := ir.Derive(op)
			if !reflect.DeepEqual(f.Bindings, tc.bindings) {
				t.Errorf("bindings %+v, want %+v", f.Bindings, tc.bindings)
			}
			if !reflect.DeepEqual(f.Slots, tc.slots) {
				t.Errorf("slots %+v, want %+v", f.Slots, tc.slots)
			}
			if !reflect.DeepEqual(f.Outputs, tc.rules) {
				t.Errorf("output rules %+v, want %+v", f.Outputs, tc.rules)
			}
			if op.Derived() == f || !reflect.DeepEqual(op.Derived(), f) {
				t.Error("Derived of an op without stored facts must derive them afresh")
			}
		})
	}
}
