package verify

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
)

const variantsOpdef = `version: 1
package: {name: VariantOps, domain: example, version: 1.0.0}
ops:
  - name: Mix
    inputs:
      - {name: x, type: float32, shape: [N, C]}
    params:
      - {name: alpha, type: float32, default: 1.0}
      - {name: shift, type: int32, default: 0}
      - {name: count, type: uint32, default: 2}
      - {name: both, type: [int32, uint32], default: 1}
      - {name: at_least, type: int32, default: 1, min: 1}
      - {name: at_most, type: float32, default: 0.5, max: 1.0}
      - {name: offsets, type: "int32[3]", default: [0, 0, 0]}
      - {name: axis, type: int32, default: 0}
      - {name: pad, type: int32, default: 1}
      - {name: flag, type: bool, default: false}
      - {name: mode, type: enum, values: [a, b, c], default: b}
      - {name: scale, type: float32, default: 1.0, exclusive_min: 0}
      - {name: factor, type: float32, default: 0.5, exclusive_min: 0, exclusive_max: 1}
      - {name: stride, type: int32, default: 2, exclusive_min: 0}
    outputs:
      - {name: y, type: float32, shape: [N, "C + 2 * pad"]}
`

// TestParamVariants: every param is tried away from its default, within
// what its dtype and bounds admit: both signs for signed numbers, only
// upward for unsigned ones, every element of an array moved, an axis-like
// param kept an axis of x (rank 2), and a value that makes a shape
// negative left out with a note.
func TestParamVariants(t *testing.T) {
	cs, notes := Cases(opOf(t, variantsOpdef))
	for _, tc := range []struct {
		param string
		want  []string // values some case gives the param, besides the default
		never func(v any) bool
	}{
		{"alpha", []string{"2.25", "-1.5"}, nil},
		{"shift", []string{"3", "-2"}, nil},
		{"count", []string{"5"}, func(v any) bool { return v.(int64) < 0 }},
		{"both", []string{"4"}, func(v any) bool { return v.(int64) < 0 }},
		{"at_least", []string{"4"}, func(v any) bool { return v.(int64) < 1 }},
		{"at_most", []string{"1", "-1"}, func(v any) bool { return v.(float64) > 1 }},
		{"offsets", []string{"(3,4,5)", "(-2,-3,-4)"}, nil},
		{"axis", []string{"1", "-2"}, func(v any) bool { return v.(int64) < -2 || v.(int64) > 1 }},
		{"pad", []string{"4"}, func(v any) bool { return v.(int64) < 0 }},
		{"flag", []string{"true"}, nil},
		{"mode", []string{"a", "c"}, nil},
		// An exclusive bound is never given, only values inside it.
		{"scale", []string{"0.5"}, func(v any) bool { return v.(float64) <= 0 }},
		{"factor", []string{"0.25", "0.75"}, func(v any) bool { return v.(float64) <= 0 || v.(float64) >= 1 }},
		{"stride", []string{"1"}, func(v any) bool { return v.(int64) <= 0 }},
	} {
		t.Run(tc.param, func(t *testing.T) {
			i := slices.IndexFunc(cs[0].Params, func(p Param) bool { return p.Name == tc.param })
			seen := map[string]bool{}
			for _, c := range cs {
				v := c.Params[i].Value
				seen[show(v)] = true
				if tc.never != nil && tc.never(v) {
					t.Errorf("case %s gives %s = %s", c.Name, tc.param, show(v))
				}
			}
			for _, w := range tc.want {
				if !seen[w] {
					t.Errorf("no case gives %s = %s; values seen: %v", tc.param, w, seen)
				}
			}
		})
	}
	// pad = -3 makes y's second dim 3 - 6 < 0: left out, with a note.
	if !strings.Contains(strings.Join(notes, ";"), "case pad=-3 left out") {
		t.Errorf("notes %q: want pad=-3 left out", notes)
	}
}

// TestEveryParamLeavesItsDefault: in every shipped op, each param verify
// can pass (not a tensor or a string) takes some value other than its base
// value in some case, so a kernel that ignores a param cannot pass.
func TestEveryParamLeavesItsDefault(t *testing.T) {
	for _, op := range shippedOps(t) {
		cs, notes := Cases(op)
		if len(cs) == 0 {
			continue
		}
		for i, p := range op.Params {
			if p.Kind == ir.ParamTensor || p.Kind == ir.ParamString {
				continue
			}
			base := show(cs[0].Params[i].Value)
			if !slices.ContainsFunc(cs, func(c Case) bool { return show(c.Params[i].Value) != base }) {
				t.Errorf("%s: param %s is %s in every case (notes %v)", op.Name, p.Name, base, notes)
			}
		}
	}
}

// TestLargeCase: every shipped op with sizes to choose has a case whose
// dims are odd and one of whose inputs spans several 256-element blocks
// and ends in a partial one, with the case small enough for the CPU
// interpreters.
func TestLargeCase(t *testing.T) {
	for _, op := range shippedOps(t) {
		cs, notes := Cases(op)
		if len(cs) == 0 || !op.RankPolymorphic() && len(op.Derived().Bindings) == 0 {
			continue // nothing to size (ExampleCustomOp: an unshaped rank-4 input)
		}
		found := false
		for _, c := range cs {
			total, _ := elements(c)
			for _, in := range c.Inputs {
				n := int64(1)
				odd := true
				for _, d := range in.Shape {
					n *= d
					odd = odd && d%2 == 1
				}
				if n > 256 && n%16 != 0 && odd && total <= largeMaxElements {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("%s: no case has an input of odd dims past one 256-element block (notes %v)", op.Name, notes)
		}
	}
}

// TestLargeCaseSizes: the large case's dims are odd, the large one as large
// as the element budget allows.
func TestLargeCaseSizes(t *testing.T) {
	for _, tc := range []struct {
		opdef, name string
	}{
		{"inputs:\n      - {name: x, type: float32, shape: [L]}\n    outputs:\n      - {name: y, type: float32, shape: [L]}", "large L=1031"},
		{"inputs:\n      - {name: x, type: float32, shape: [B, L]}\n    outputs:\n      - {name: y, type: float32, shape: [B]}", "large B=3,L=1031"},
		{"inputs:\n      - {name: x, type: float32, shape: [N, C, H, W]}\n    outputs:\n      - {name: y, type: float32, shape: [N, C, H, W]}", "large N=3,C=5,H=67,W=3"},
		{"inputs:\n      - {name: x, type: float32, rank: any}\n    outputs:\n      - {name: y, type: float32, shape: {like: x}}", "large rank=2 (3,1031)"},
		{"inputs:\n      - {name: x, type: float32, rank: [3, 4]}\n    outputs:\n      - {name: y, type: float32, shape: {like: x}}", "large rank=3 (3,5,263)"},
	} {
		src := fmt.Sprintf("version: 1\npackage: {name: P, domain: example, version: 1.0.0}\nops:\n  - name: Op\n    %s\n", tc.opdef)
		cs, notes := Cases(opOf(t, src))
		if !slices.ContainsFunc(cs, func(c Case) bool { return c.Name == tc.name }) {
			var names []string
			for _, c := range cs {
				names = append(names, c.Name)
			}
			t.Errorf("no case %q among %q (notes %v)", tc.name, names, notes)
		}
	}
}

// shippedOps are the examples' ops (testdata's copy of the shipped
// opdefs: the tests never read the repository's own opdefs/).
func shippedOps(t *testing.T) []*ir.Op {
	t.Helper()
	var l diag.List
	pkgs := load.Tree(examples+"/opdefs", &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	var ops []*ir.Op
	for _, p := range pkgs {
		ops = append(ops, p.Ops...)
	}
	return ops
}
