package ir

import (
	"slices"
	"testing"
)

// TestOpFor: an op as a target narrows it has the kept dtypes in the op's
// order, the narrowed ranks (outputs shaped like the input follow, less
// the removed axis), facts derived from them, and leaves the op as
// written untouched; a target that narrows nothing sees the op itself.
func TestOpFor(t *testing.T) {
	x := &Tensor{Name: "x", Type: TypeRef{Var: "T"}, Rank: RankAny, RankRange: &RankRange{Min: 1, Max: 8}}
	m := &Tensor{Name: "m", Type: TypeRef{DTypes: []DType{Int32, Bool}}, Rank: 1}
	y := &Tensor{Name: "y", Type: TypeRef{Var: "T"}, Rank: RankAny, RankRange: &RankRange{Min: 0, Max: 7}, Like: &ShapeLike{Input: "x", Axis: "axis", Mode: AxisRemove}}
	op := &Op{Name: "Reduce", TypeVars: []*TypeVar{{Name: "T", Allowed: []DType{Float32, Float16, BFloat16}}},
		Inputs: []*Tensor{x, m}, Outputs: []*Tensor{y}}
	op.Sections.Add("trt", Map(true), op.Pos)
	op.Sections.Add("htp", Map(true), op.Pos).Narrow = &Narrowing{
		Types: []NarrowType{{Name: "T", DTypes: []DType{Float16, Float32}}, {Name: "m", DTypes: []DType{Bool}}},
		Ranks: []NarrowRank{{Input: "x", Min: 1, Max: 4}},
	}
	if op.For("trt") != op {
		t.Error("a target without narrowing gets a copy")
	}
	h := op.For("htp")
	if got := h.TypeVar("T").Allowed; !slices.Equal(got, []DType{Float32, Float16}) {
		t.Errorf("T narrowed to %v, want float32, float16 in the op's order", got)
	}
	if got := h.Inputs[1].Type.DTypes; !slices.Equal(got, []DType{Bool}) {
		t.Errorf("m narrowed to %v", got)
	}
	if r := h.Inputs[0].RankRange; r.Min != 1 || r.Max != 4 {
		t.Errorf("x's ranks %v", r)
	}
	if r := h.Outputs[0].RankRange; r.Min != 0 || r.Max != 3 {
		t.Errorf("y (x less an axis) ranks %v, want 0 to 3", r)
	}
	// m keeps one dtype: no longer a choice.
	if s := h.Derived().Slots; len(s) != 1 || len(s[0].Allowed) != 2 {
		t.Errorf("facts of the narrowed op: %+v", s)
	}
	if len(op.TypeVar("T").Allowed) != 3 || x.RankRange.Max != 8 || y.RankRange.Max != 7 || len(m.Type.DTypes) != 2 {
		t.Error("narrowing changed the op as written")
	}
	pkg := &Package{Ops: []*Op{op}}
	if pkg.For("trt") != pkg || pkg.For("htp").Ops[0].TypeVar("T") == op.TypeVar("T") {
		t.Error("Package.For")
	}
}

// TestNarrowingWritten: a section's narrowing is written back after the
// target's own keys, and TakeNarrowing reads it back the same.
func TestNarrowingWritten(t *testing.T) {
	own := Map(true).Set("backends", Strs("HTP"))
	sec := &Section{Target: "htp", Node: own, Narrow: &Narrowing{
		Types: []NarrowType{{Name: "T", DTypes: []DType{Float32}}},
		Ranks: []NarrowRank{{Input: "x", Min: 1, Max: 4}, {Input: "z", Min: 2, Max: 2}},
	}}
	w := sec.Written()
	if got := w.FlowText(); got != "{backends: [HTP], types: {T: [float32]}, ranks: {x: [1, 4], z: 2}}" {
		t.Errorf("written %s", got)
	}
	back, nw := TakeNarrowing(w)
	if back.FlowText() != "{backends: [HTP]}" || len(nw.Types) != 1 || nw.Ranks[1].Min != 2 || nw.Ranks[1].Max != 2 || nw.Ranks[0].Max != 4 {
		t.Errorf("read back %s %+v", back.FlowText(), nw)
	}
	if len(own.Entries) != 1 {
		t.Error("Written changed the target's own node")
	}
}
