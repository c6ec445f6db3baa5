package yamldef

import (
	"reflect"
	"testing"

	"github.com/opforge/opforge/generators/diag"
)

// TestOpTargetNames: the targets an op without a targets section
// generates for are the schema's, in its order.
func TestOpTargetNames(t *testing.T) {
	if got, want := opTargetNames(), []string{"htp", "trt", "aipu"}; !reflect.DeepEqual(got, want) {
		t.Errorf("op targets %v, want %v", got, want)
	}
	var l diag.List
	pkg := Load("p.yaml", []byte(`version: 1
package: {name: P, domain: example, version: 1.0.0}
ops:
  - name: A
    inputs: [{name: x, type: float32, shape: [N]}]
    outputs: [{name: y, type: float32, shape: [N]}]
  - name: B
    inputs: [{name: x, type: float32, shape: [N]}]
    outputs: [{name: y, type: float32, shape: [N]}]
    targets: {aipu: {layer_type: Bee}, trt: {}}
`), &l)
	if pkg == nil || l.HasErrors() {
		t.Fatalf("does not load: %v", l.Sorted())
	}
	a, b := pkg.Ops[0], pkg.Ops[1]
	if len(a.Sections) != 3 || a.Sections[0].Target != "htp" || a.Sections[1].Target != "trt" || a.Sections[2].Target != "aipu" || a.Sections[0].Node != nil {
		t.Errorf("op without targets: sections %+v", a.Sections)
	}
	if len(b.Sections) != 2 || b.Sections.Has("htp") || b.Sections[0].Target != "aipu" || b.Sections.Get("aipu").Node.Get("layer_type").Text() != "Bee" {
		t.Errorf("op with targets: sections %+v", b.Sections)
	}
	if p := b.Sections.Get("trt").Pos; p.Line != 10 || p.Col != 45 {
		t.Errorf("trt section at %v, want 10:45", p)
	}
}
