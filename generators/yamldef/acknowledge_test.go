package yamldef

import (
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

// TestAcknowledgeRoundTrip: the canonical writer writes the package's and
// each op's acknowledgements back, and fmt puts them in canonical place.
func TestAcknowledgeRoundTrip(t *testing.T) {
	src := `version: 1
package:
  acknowledge: [qdp-default]
  name: AckOps
  domain: example
  version: 1.0.0
ops:
  - acknowledge: [aipu-builtin, qdp-default]
    name: MatMul
    inputs:
      - {name: a, type: float32, shape: [M, K]}
    outputs:
      - {name: c, type: float32, shape: [M, K]}
`
	var l diag.List
	pkg := Load("ops.yaml", []byte(src), &l)
	if pkg == nil || l.HasErrors() {
		t.Fatalf("load: %v", l.Sorted())
	}
	if got := pkg.Ops[0].LastLine; got != 13 {
		t.Errorf("op's last line %d, want 13", got)
	}
	out, err := Write(pkg, "")
	if err != nil {
		t.Fatal(err)
	}
	again := Load("again.yaml", out, &l)
	if again == nil || l.HasErrors() {
		t.Fatalf("reload:\n%s\n%v", out, l.Sorted())
	}
	codes := func(acks []ir.Acknowledgement) string {
		var cs []string
		for _, a := range acks {
			cs = append(cs, a.Code)
		}
		return strings.Join(cs, " ")
	}
	if codes(again.Acknowledged) != "qdp-default" || codes(again.Ops[0].Acknowledged) != "aipu-builtin qdp-default" {
		t.Errorf("written:\n%s", out)
	}
	formatted, ok := Format("ops.yaml", []byte(src), &l)
	if !ok {
		t.Fatal(l.Sorted())
	}
	want := "  version: 1.0.0\n  acknowledge: [qdp-default]\n\nops:\n  - name: MatMul\n"
	if !strings.Contains(string(formatted), want) || !strings.HasSuffix(string(formatted), "    acknowledge: [aipu-builtin, qdp-default]\n") {
		t.Errorf("fmt:\n%s", formatted)
	}
}
