package verify

import (
	"slices"
	"testing"
)

const dimsOpdef = `version: 1
package: {name: DimOps, domain: example, version: 1.0.0}
ops:
  - name: SumAllButAxis
    inputs:
      - {name: x, type: float32, rank: [1, 4]}
    params:
      - {name: axis, type: int32, default: -1}
    outputs:
      - {name: y, type: float32, shape: ["x.shape[axis]", "x.shape[0] * 2"]}
`

// TestCasesInputDims: x.shape[axis] is evaluated per case from the case's
// input dims, at every admitted rank and, at rank 3, at every axis the
// param can name (negative ones normalized).
func TestCasesInputDims(t *testing.T) {
	cs, notes := Cases(opOf(t, dimsOpdef))
	axes := 0
	for _, c := range cs {
		x, y := c.Inputs[0].Shape, c.Outputs[0].Shape
		if len(x) == 0 || len(y) != 2 {
			t.Fatalf("%s: x %v, y %v", c.Name, x, y)
		}
		axis := int64(-1)
		if v, ok := c.Params[0].Value.(int64); ok {
			axis = v
		}
		if axis < 0 {
			axis += int64(len(x))
		}
		if y[0] != x[axis] || y[1] != x[0]*2 {
			t.Errorf("%s: x %v, axis %v: y %v, want [%d %d]", c.Name, x, c.Params[0].Value, y, x[axis], x[0]*2)
		}
		if len(x) == 3 && c.Params[0].Value != int64(-1) {
			axes++
		}
	}
	// rank=1..4, then axis=-3..2 at rank 3 (axis -1 is also the default).
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	for _, want := range []string{"rank=1", "rank=4", "rank=3 axis=-3", "rank=3 axis=2"} {
		if !slices.Contains(names, want) {
			t.Errorf("no case %q among %v (notes %v)", want, names, notes)
		}
	}
	if axes < 5 {
		t.Errorf("%d cases at rank 3 name an axis other than -1, want 5", axes)
	}
}
