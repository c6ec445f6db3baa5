package yamldef

import (
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
)

// TestRequiresRoundTrip: the canonical writer writes every kind of
// relation so that reading it back gives the same relations, and Format
// keeps requires: after data_dependent.
func TestRequiresRoundTrip(t *testing.T) {
	src := `version: 1
package: {name: RelOps, domain: example, version: 1.0.0}
ops:
  - name: Rel
    requires:
      - {same_rank: [data, indices]}
      - {same_shape: [indices, updates]}
      - {equal: [K, "2 * span"]}
      - {divisible: [C, 4]}
      - {input: boxes, one_of: [[B, N, 4], [B, N, C, 4]]}
      - {equal: ["rank(updates)", "prod(data.shape[rank(indices) - 1:])"]}
    inputs:
      - {name: data, type: float32, shape: [B, K, C]}
      - {name: indices, type: int32, shape: [B, K, C]}
      - {name: updates, type: float32, shape: [B, K, C]}
      - {name: boxes, type: float32, rank: [3, 4]}
      - {name: n, type: float32, shape: [N]}
    params:
      - {name: span, type: int32, default: 2}
    outputs:
      - {name: y, type: float32, shape: [B]}
`
	var l diag.List
	pkg := Load("rel.yaml", []byte(src), &l)
	if pkg == nil || l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	out, err := Write(pkg, "")
	if err != nil {
		t.Fatal(err)
	}
	back := Load("back.yaml", out, &l)
	if back == nil || l.HasErrors() {
		t.Fatalf("%v\n%s", l.Sorted(), out)
	}
	a, b := pkg.Ops[0].Requires, back.Ops[0].Requires
	if len(a) != 6 || len(b) != len(a) {
		t.Fatalf("%d relations read, %d after the writer:\n%s", len(a), len(b), out)
	}
	for i := range a {
		if a[i].Kind != b[i].Kind || a[i].String() != b[i].String() {
			t.Errorf("relation %d: %s (%s), written back as %s (%s)", i, a[i], a[i].Kind, b[i], b[i].Kind)
		}
	}
	formatted, ok := Format("rel.yaml", []byte(src), &l)
	if !ok {
		t.Fatal(l.Sorted())
	}
	if f := string(formatted); strings.Index(f, "requires:") < strings.Index(f, "outputs:") {
		t.Errorf("Format puts requires: before outputs:\n%s", f)
	}
}
