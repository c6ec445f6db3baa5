package yamldef_test

import (
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/yamldef"
)

// TestEmptyShapeIsZeroD: `shape: []` is a known 0-D shape (a scalar
// output such as a loss or a count), which targets that need output
// shapes accept, and it writes back as `shape: []`.
func TestEmptyShapeIsZeroD(t *testing.T) {
	src := "version: 1\npackage: {name: P, domain: d, version: 1.0.0}\nops:\n  - name: SumAll\n    inputs: [{name: x, type: float32, shape: [N]}]\n    outputs: [{name: y, type: float32, shape: []}]\n"
	var l diag.List
	pkg := yamldef.Load("p.yaml", []byte(src), &l)
	if pkg == nil || l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	y := pkg.Ops[0].Outputs[0]
	if y.Shape == nil || len(y.Shape) != 0 || y.Rank != 0 {
		t.Errorf("shape %v rank %d", y.Shape, y.Rank)
	}
	out, err := yamldef.Write(pkg, "")
	if err != nil || !strings.Contains(string(out), "{name: y, type: float32, shape: []}") {
		t.Errorf("written back as:\n%s", out)
	}
}
