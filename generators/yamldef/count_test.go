package yamldef

import (
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
)

// TestCountRoundTrip: a variadic tensor's count param is read into the IR,
// written back by the canonical writer, and fmt puts it after variadic.
func TestCountRoundTrip(t *testing.T) {
	src := `version: 1
package: {name: Anchors, domain: example, version: 1.0.0}
ops:
  - name: Priors
    outputs:
      - {count: layers, name: boxes, type: float32, shape: [4], variadic: true}
    params:
      - {name: layers, type: int32, default: 2, min: 1, max: 8}
`
	var l diag.List
	pkg := Load("ops.yaml", []byte(src), &l)
	if pkg == nil || l.HasErrors() {
		t.Fatalf("load: %v", l.Sorted())
	}
	if got := pkg.Ops[0].Outputs[0].Count; got != "layers" {
		t.Fatalf("count %q, want layers", got)
	}
	out, err := Write(pkg, "")
	if err != nil {
		t.Fatal(err)
	}
	again := Load("again.yaml", out, &l)
	if again == nil || l.HasErrors() || again.Ops[0].Outputs[0].Count != "layers" {
		t.Fatalf("reload:\n%s\n%v", out, l.Sorted())
	}
	formatted, ok := Format("ops.yaml", []byte(src), &l)
	if !ok {
		t.Fatal(l.Sorted())
	}
	if want := "variadic: true, count: layers}"; !strings.Contains(string(formatted), want) {
		t.Errorf("fmt does not write %q:\n%s", want, formatted)
	}
}
