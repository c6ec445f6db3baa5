package verify

import (
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
)

const examples = "../../testdata/gen/examples"

func examplePackage(t *testing.T, name string) *ir.Package {
	t.Helper()
	var l diag.List
	pkgs := load.Tree(examples+"/opdefs", &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	for _, p := range pkgs {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no package %s", name)
	return nil
}

// TestCases checks the cases built from the shipped opdefs: symbol sizes
// (1 and odd ones), every dtype combination torch can make, params at
// their defaults, bounds and enum values, evaluated output shapes, and
// data-dependent outputs left unshaped.
func TestCases(t *testing.T) {
	vision := examplePackage(t, "VisionOps")
	example := examplePackage(t, "ExampleOpPackage")
	ports := examplePackage(t, "NvidiaPorts")
	tensor := examplePackage(t, "TensorOps")
	ranks := []string{"rank=1", "rank=2", "rank=3", "rank=4", "rank=5", "rank=6", "rank=7", "rank=8"}
	for _, tc := range []struct {
		pkg   *ir.Package
		op    string
		names []string
		notes string
		check func(t *testing.T, cs []Case)
	}{
		{vision, "TopKLast", []string{"base", "T=float16", "B=1,L=1", "B=2,L=5", "k=4", "order=smallest", "large B=3,L=1031"}, "",
			func(t *testing.T, cs []Case) {
				// k has no default: its min (1); order's default by name and index.
				if v := cs[0].Params[0].Value; v != int64(1) {
					t.Errorf("k = %v, want 1", v)
				}
				if p := cs[5].Params[1]; p.Value != "smallest" || p.Index != 1 {
					t.Errorf("order = %+v", p)
				}
				if got := cs[3].Outputs[0].Shape; !slices.Equal(got, []int64{2, 1}) {
					t.Errorf("values shape %v, want [2 1] (min(k, L))", got)
				}
				if cs[1].Inputs[0].DType != "float16" || cs[1].Outputs[1].DType != "int32" {
					t.Errorf("dtypes %s -> %s", cs[1].Inputs[0].DType, cs[1].Outputs[1].DType)
				}
			}},
		{vision, "PadCropResize", []string{"base", "T=float16", "T=int8", "N=1,H=1,W=1,C=1", "N=2,H=5,W=3,C=7", "pads=(3,4,5,6)", "factor=1", "factor=8", "block=1", "block=11", "interpolation=bilinear", "large N=3,H=5,W=37,C=3"}, "",
			func(t *testing.T, cs []Case) {
				// H=3, pads 0, factor 2, block 8: floor_div(6, 8)*8 = 0; ceil_div(6, 8)*8 = 8.
				if got := cs[0].Outputs[0].Shape; !slices.Equal(got, []int64{3, 0, 8, 3}) {
					t.Errorf("base output shape %v", got)
				}
				if k := cs[2].Inputs[0].Kind; k != "int" {
					t.Errorf("int8 kind %s", k)
				}
			}},
		{vision, "NonZeroCoords", []string{"base", "#0=int32", "H=1,W=1", "H=2,W=5", "large H=3,W=521"}, "",
			func(t *testing.T, cs []Case) {
				if cs[0].Outputs[0].Shape != nil {
					t.Errorf("a data-dependent output has shape %v", cs[0].Outputs[0].Shape)
				}
			}},
		{vision, "RoiAlignLite", []string{"base", "T=float16", "N=1,C=1,H=1,W=1,R=1", "N=2,C=5,H=3,W=7,R=2", "pooled_hw=(1,1)", "pooled_hw=(10,11)", "spatial_scale=0", "spatial_scale=2.25", "sampling_ratio=0", "sampling_ratio=16", "mode=max", "aligned=false", "large N=3,C=5,H=131,W=3,R=5"}, "",
			func(t *testing.T, cs []Case) {
				if got := cs[0].Inputs[1].Shape; !slices.Equal(got, []int64{3, 5}) {
					t.Errorf("rois shape %v", got)
				}
				if got := cs[4].Outputs[0].Shape; !slices.Equal(got, []int64{3, 3, 1, 1}) {
					t.Errorf("pooled_hw=(1,1) output %v", got)
				}
			}},
		{example, "ExampleCustomOp", []string{"base"}, "1 dtype combination(s) left out", nil},
		// verify: sizes computes H, W, C, DO, DM, HO and WO from the drawn
		// symbols and params, so every case's inputs fit each other; the
		// optional bias is also left out.
		// The opdef's own param sets come last, shapes computed with them.
		{ports, "ModulatedDeformConv2d", []string{"base", "T=float16", "N=1,KH=1,KW=1", "N=2,KH=5,KW=3", "absent=bias", "stride=(4,5)", "padding=(3,4)", "group=4", "deformable_group=4", "large N=3,KH=5,KW=7",
			"per-axis", "groups3"}, "",
			func(t *testing.T, cs []Case) {
				// CG = KW * deformable_group, C = CG * group: C a multiple of both.
				mix := cs[3]
				for i, want := range [][]int64{{2, 3, 7, 6}, {2, 30, 3, 4}, {2, 15, 3, 4}, {4, 3, 5, 3}, {4}} {
					if got := mix.Inputs[i].Shape; !slices.Equal(got, want) {
						t.Errorf("mix: input %s shape %v, want %v", mix.Inputs[i].Name, got, want)
					}
				}
				if got := mix.Outputs[0].Shape; !slices.Equal(got, []int64{2, 4, 3, 4}) {
					t.Errorf("mix: output %v", got)
				}
				// padding (w 1, h 2), stride (w 2, h 1), dilation (w 1, h 2) on x [3, 3, 5, 6], kernel 3x3.
				if got := cs[10].Outputs[0].Shape; !slices.Equal(got, []int64{3, 4, 5, 3}) {
					t.Errorf("padding/stride/dilation case: output %v, want [3 4 5 3]", got)
				}
				if got := cs[11].Inputs[0].Shape; !slices.Equal(got, []int64{3, 27, 5, 6}) || cs[11].Params[3].Value != int64(3) {
					t.Errorf("group case: x %v, group %v", got, cs[6].Params[3].Value)
				}
				if b := cs[4].Inputs[4]; !b.Absent || b.Shape != nil || cs[0].Inputs[4].Absent {
					t.Errorf("bias absent %v (shape %v) in absent=bias, %v in base", b.Absent, b.Shape, cs[0].Inputs[4].Absent)
				}
			}},
		// R computed (8 * N + 8); batch_indices drawn within [0, N - 1].
		{ports, "ROIAlign_TRT", []string{"base", "T=float16", "N=1,C=1,H=1,W=1", "N=2,C=5,H=3,W=7", "coordinate_transformation_mode=0", "mode=0", "output_height=4", "output_width=4", "sampling_ratio=3", "spatial_scale=0", "spatial_scale=2.25", "large N=3,C=5,H=131,W=3",
			"out3x2-ratio2", "out2x3-max", "no-shift-scale0.5"}, "",
			func(t *testing.T, cs []Case) {
				if got := cs[3].Inputs[1].Shape; !slices.Equal(got, []int64{24, 4}) {
					t.Errorf("rois shape %v, want [24 4]", got)
				}
				if got := cs[3].Inputs[2].Range; !slices.Equal(got, []int64{0, 1}) {
					t.Errorf("batch_indices range %v, want [0 1]", got)
				}
			}},
		// Rank-polymorphic inputs: every rank, dims 2, 5, 3, 7 cycled.
		{tensor, "ScaledSiLU", append(append([]string{"base", "T=float16", "alpha=2.25", "alpha=-1.5", "beta=2.25", "beta=-1.5"}, ranks...), "large rank=2 (3,1031)"), "",
			func(t *testing.T, cs []Case) {
				if got := cs[11].Inputs[0].Shape; !slices.Equal(got, []int64{2, 5, 3, 7, 2, 5}) {
					t.Errorf("rank=6 input %v", got)
				}
				if got := cs[11].Outputs[0].Shape; !slices.Equal(got, []int64{2, 5, 3, 7, 2, 5}) {
					t.Errorf("rank=6 output %v, want the input's", got)
				}
			}},
		// And every axis at rank 3 (axis=-1 is the rank=3 case); the axis
		// param's bounds (-8, 7) name no axis of a rank-4 input.
		{tensor, "LogSumExp", append(append([]string{"base", "T=float16"}, ranks...), "rank=3 axis=-3", "rank=3 axis=-2", "rank=3 axis=0", "rank=3 axis=1", "rank=3 axis=2", "large rank=2 (3,1031)"), "case axis=-8 left out",
			func(t *testing.T, cs []Case) {
				if got := cs[12].Outputs[0].Shape; !slices.Equal(got, []int64{5, 3}) {
					t.Errorf("rank=3 axis=0 output %v, want [5 3]", got)
				}
				if got := cs[2].Outputs[0].Shape; len(got) != 0 {
					t.Errorf("rank=1 output %v, want 0-D", got)
				}
			}},
		{tensor, "ReduceSumSquare", append(append([]string{"base", "T=float16"}, ranks...), "rank=3 axis=-3", "rank=3 axis=-2", "rank=3 axis=0", "rank=3 axis=1", "rank=3 axis=2", "large rank=2 (3,1031)"), "",
			func(t *testing.T, cs []Case) {
				if got := cs[13].Outputs[0].Shape; !slices.Equal(got, []int64{2, 1, 3}) {
					t.Errorf("rank=3 axis=1 output %v, want [2 1 3]", got)
				}
			}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			cs, notes := Cases(tc.pkg.Op(tc.op))
			var names []string
			for _, c := range cs {
				names = append(names, c.Name)
			}
			// An unshaped op (ExampleCustomOp) has no symbols: one case.
			if !slices.Equal(names, tc.names) {
				t.Errorf("cases %q, want %q", names, tc.names)
			}
			if !strings.Contains(strings.Join(notes, ";"), tc.notes) {
				t.Errorf("notes %q, want %q", notes, tc.notes)
			}
			seeds := map[int]bool{}
			for _, c := range cs {
				seeds[c.Seed] = true
			}
			if len(seeds) != len(cs) {
				t.Errorf("seeds repeat")
			}
			if tc.check != nil && len(cs) == len(tc.names) {
				tc.check(t, cs)
			}
			again, _ := Cases(tc.pkg.Op(tc.op))
			if len(again) != len(cs) || again[0].Name != cs[0].Name {
				t.Error("cases are not deterministic")
			}
		})
	}
}
