package verify

import (
	"strings"
	"testing"
)

// TestCasesBreakingRelationsLeftOut: a case whose shapes break the op's
// requires: is left out with a note naming the relation (every target
// would refuse it), and one whose sizes the opdef computes to satisfy it
// runs.
func TestCasesBreakingRelationsLeftOut(t *testing.T) {
	src := func(sizes string) string {
		return `version: 1
package: {name: RelOps, domain: example, version: 1.0.0}
ops:
  - name: SpanAttention
    inputs:
      - {name: x, type: float32, shape: [B, K]}
      - {name: b, type: float32, rank: [3, 4]}
    params:
      - {name: span, type: [int32, uint32], default: 2, min: 1}
    outputs:
      - {name: y, type: float32, shape: [B, K]}
    requires:
      - {equal: [K, "2 * span"]}
      - {input: b, one_of: [[B, 4, 1], [B, K, 4, 1]]}
` + sizes
	}
	cases, notes := Cases(opOf(t, src("")))
	for _, c := range cases {
		t.Errorf("case %s breaks requires K == 2 * span but was kept (x %v)", c.Name, c.Inputs[0].Shape)
	}
	if len(notes) == 0 || !strings.Contains(strings.Join(notes, "\n"), "its shapes break requires K == 2 * span") {
		t.Errorf("no note names the broken relation: %q", notes)
	}
	cases, notes = Cases(opOf(t, src("    verify:\n      sizes: {K: 2 * span}\n")))
	for _, c := range cases {
		if k, span := c.Inputs[0].Shape[1], c.Params[0].Value.(int64); k != 2*span {
			t.Errorf("case %s: K = %d with span %d", c.Name, k, span)
		}
	}
	if len(cases) == 0 {
		t.Fatalf("every case left out: %q", notes)
	}
	// The rank-polymorphic input at rank 3 and 4 only matches the shapes
	// verify draws by chance; the cases kept all hold the one_of.
	for _, c := range cases {
		b := c.Inputs[1].Shape
		if !(len(b) == 3 && b[1] == 4 && b[2] == 1) && !(len(b) == 4 && b[2] == 4 && b[3] == 1) {
			t.Errorf("case %s: b %v breaks the one_of", c.Name, b)
		}
	}
}
