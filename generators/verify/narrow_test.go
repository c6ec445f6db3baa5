package verify

import (
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/ir"
)

const narrowOpdef = `version: 1
package: {name: NarrowOps, domain: example, version: 1.0.0}
ops:
  - name: Norm
    types:
      T: [float32, float16, bfloat16]
    inputs:
      - {name: x, type: T, rank: [1, 8]}
    outputs:
      - {name: y, type: T, shape: {like: x}}
    verify:
      cases:
        - {name: bf16, types: {T: bfloat16}}
    targets:
      trt: {}
      htp:
        types: {T: [float32, float16]}
        ranks: {x: [1, 4]}
`

// TestCasesFollowNarrowing: the cases of an op as a target narrows it
// have only the dtypes and ranks the target keeps (the opdef's own case
// of a dropped dtype left out with a note); the op as written keeps all.
func TestCasesFollowNarrowing(t *testing.T) {
	op := opOf(t, narrowOpdef)
	dtypesAndRanks := func(op *ir.Op) (ds []ir.DType, ranks []int, notes []string) {
		cs, notes := Cases(op)
		for _, c := range cs {
			x := c.Inputs[0]
			if !slices.Contains(ds, x.dtype) {
				ds = append(ds, x.dtype)
			}
			if !slices.Contains(ranks, len(x.Shape)) {
				ranks = append(ranks, len(x.Shape))
			}
		}
		slices.Sort(ranks)
		return ds, ranks, notes
	}
	ds, ranks, _ := dtypesAndRanks(op.For("trt"))
	if !slices.Contains(ds, ir.BFloat16) || ranks[len(ranks)-1] != 8 {
		t.Errorf("trt keeps every dtype and rank: %v %v", ds, ranks)
	}
	ds, ranks, notes := dtypesAndRanks(op.For("htp"))
	if slices.Contains(ds, ir.BFloat16) || len(ds) != 2 || ranks[0] != 1 || ranks[len(ranks)-1] != 4 {
		t.Errorf("htp: dtypes %v, ranks %v; want float32, float16 and ranks 1 to 4", ds, ranks)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "opdef case bf16 left out: this target takes no bfloat16 for T") {
		t.Errorf("htp notes: %q", notes)
	}
}
