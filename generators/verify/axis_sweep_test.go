package verify

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
)

// casesOf are the cases of the first op of the opdef src.
func casesOf(t *testing.T, src string) []Case {
	t.Helper()
	cs, _ := Cases(opOf(t, src))
	return cs
}

// opOf loads the opdef src, which must be valid, and returns its first op.
func opOf(t *testing.T, src string) *ir.Op {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ops.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var l diag.List
	pkgs := load.Tree(dir, &l)
	if l.HasErrors() || len(pkgs) != 1 {
		t.Fatal(l.Sorted())
	}
	return pkgs[0].Ops[0]
}

// TestCasesAxisSweepKeepsParamRange: the axis sweep of a rank-polymorphic
// op gives an axis param only values its min/max admit; a plugin
// refuses an attribute outside them when it is created, so such a case
// cannot pass on any target.
func TestCasesAxisSweepKeepsParamRange(t *testing.T) {
	cs := casesOf(t, `version: 1
package: {name: DimOps, domain: example, version: 1.0.0}
ops:
  - name: SumAllButAxis
    inputs:
      - {name: x, type: float32, rank: any}
    params:
      - {name: axis, type: int32, default: 0, min: 0, max: 7}
    outputs:
      - {name: y, type: float32, shape: ["x.shape[axis]"]}
`)
	for _, c := range cs {
		if v, ok := c.Params[0].Value.(int64); ok && (v < 0 || v > 7) {
			t.Errorf("case %q: axis = %d, outside the param's range [0, 7]", c.Name, v)
		}
	}
}

// TestCasesFixedRankAxisSweep: x.shape[axis] of a fixed-rank input is
// checked at every axis the param can name, as for a rank-polymorphic one.
func TestCasesFixedRankAxisSweep(t *testing.T) {
	cs := casesOf(t, `version: 1
package: {name: DimOps, domain: example, version: 1.0.0}
ops:
  - name: PickDim
    inputs:
      - {name: x, type: float32, shape: [N, C, L]}
    params:
      - {name: axis, type: int32, default: -1}
    outputs:
      - {name: y, type: float32, shape: ["x.shape[axis]"]}
`)
	axes := map[int64]bool{}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
		if v, ok := c.Params[0].Value.(int64); ok {
			axes[v] = true
		}
	}
	if len(axes) < 3 {
		t.Errorf("cases %v name axes %v; want at least three distinct axes of x's 3", names, axes)
	}
}

// TestCasesRoundFloatParams: an output dim that rounds a float param
// (floor(H * scale)) is computed for every case from the case's value of
// the param, so no case is left out for want of it.
func TestCasesRoundFloatParams(t *testing.T) {
	cs, notes := Cases(opOf(t, `version: 1
package: {name: Resize, domain: example, version: 1.0.0}
ops:
  - name: ResizeNearest
    inputs:
      - {name: x, type: float32, shape: [N, C, H, W]}
    params:
      - {name: scale, type: float32, default: 2.0, exclusive_min: 0}
      - {name: ratios, type: "float32[]", default: [0.5, 1.5, 3.0]}
    outputs:
      - {name: y, type: float32, shape: [N, "C * len(ratios)", "floor(H * scale)", "ceil(W * scale)"]}
`))
	if len(cs) < 3 {
		t.Fatalf("%d cases (notes: %v)", len(cs), notes)
	}
	for _, c := range cs {
		scale, _ := c.Params[0].Value.(float64)
		h, w := c.Inputs[0].Shape[2], c.Inputs[0].Shape[3]
		want := []int64{c.Inputs[0].Shape[1] * 3, int64(math.Floor(float64(h) * scale)), int64(math.Ceil(float64(w) * scale))}
		if got := c.Outputs[0].Shape[1:]; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("case %q (scale %v, H %d, W %d): output dims %v, want %v", c.Name, scale, h, w, got, want)
		}
	}
}
