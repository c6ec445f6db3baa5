package htp_test

import (
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/targets/htp"
	"github.com/opforge/opforge/generators/yamldef"
)

// TestSupplementalUnknownDType: a supplemental's dtype opforge does not
// know is the htp target's to report, where it is written (the opdef
// schema refuses it in YAML; IR built otherwise reaches the check).
func TestSupplementalUnknownDType(t *testing.T) {
	src := `version: 1
package: {name: P, domain: d, version: "1.0"}
targets:
  htp:
    supplemental:
      - backend: HTP
        supported_ops: [A, Gone]
        ops:
          - name: A
            inputs:
              - {name: x, type: [float32, int8]}
ops:
  - name: A
    inputs:
      - {name: x, type: float32, shape: [N]}
    outputs:
      - {name: y, type: float32, shape: [N]}
    targets:
      htp: {}
`
	var l diag.List
	pkg := yamldef.Load("p.yaml", []byte(src), &l)
	if pkg == nil || l.HasErrors() {
		t.Fatalf("does not load: %v", l.Sorted())
	}
	// What the schema would refuse, as another front end could build it.
	pkg.Sections.Get("htp").Node.Get("supplemental").Items[0].Get("ops").Items[0].Get("inputs").Items[0].Get("type").Items[1].Value = "int9"
	htp.Target{}.Check(pkg, l.ForTarget("htp"))
	var got []string
	for _, d := range l.Sorted() {
		got = append(got, d.Pos.String()+" "+d.Code+" "+d.Target)
	}
	want := []string{"p.yaml:7:28 qnn-supplemental-unknown htp", "p.yaml:11:43 unknown-dtype htp"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("diagnostics %q, want %q", got, want)
	}
}
