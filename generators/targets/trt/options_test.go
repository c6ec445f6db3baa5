package trt

import (
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/yamldef"
)

// TestSectionDecode: the trt section reaches the target as written and is
// decoded by its check, with the workspace's syntax errors placed inside
// the expression, the defaults of an absent section, and the canonical
// form the writer writes.
func TestSectionDecode(t *testing.T) {
	const src = `version: 1
package: {name: P, domain: example, version: 1.0.0}
targets:
  trt: {static_registration: true}
ops:
  - name: A
    inputs: [{name: x, type: float32, shape: [N]}]
    outputs: [{name: y, type: float32, shape: [N]}]
    targets:
      trt: {formats: [linear], workspace: "N * * 4", plugin_version: "2", qdp: {impl: jit}}
  - name: B
    inputs: [{name: x, type: float32, shape: [N]}]
    outputs: [{name: y, type: float32, shape: [N]}]
`
	var l diag.List
	pkg := yamldef.Load("p.yaml", []byte(src), &l)
	if pkg == nil || l.HasErrors() {
		t.Fatalf("does not load: %v", l.Sorted())
	}
	Target{}.Check(pkg, l.ForTarget("trt"))
	var got []string
	for _, d := range l.Sorted() {
		if d.Severity == diag.Error {
			got = append(got, d.String())
		}
	}
	want := `p.yaml:10:48: error: trt: invalid dimension expression "N * * 4"`
	if len(got) != 1 || !strings.HasPrefix(got[0], want) || !strings.HasSuffix(got[0], "[shape-syntax]") {
		t.Fatalf("errors %q, want one starting %q", got, want)
	}
	a, b := OpOptions(pkg.Ops[0]), OpOptions(pkg.Ops[1])
	if a.PluginVersion != "2" || a.QDP == nil || a.QDP.Impl != "jit" || len(a.Formats) != 1 || a.Formats[0] != "LINEAR" || a.WorkspacePos.Col != 44 {
		t.Errorf("op A options %+v", a)
	}
	if b == nil || b.QDP == nil || b.QDP.Impl != "aot" || b.Workspace != nil || b.PluginVersion != "" {
		t.Errorf("op B (no targets section) options %+v", b)
	}
	if !PkgOptions(pkg).StaticRegistration || PkgOptions(pkg).Legacy {
		t.Errorf("package options %+v", PkgOptions(pkg))
	}
	if c := pkg.Ops[0].Sections.Get("trt").Written(); c.Get("formats") != nil || c.Get("qdp").Get("impl").Text() != "jit" {
		t.Errorf("canonical section of A keeps the default format or loses qdp: %+v", c)
	}
	if OpOptions(&ir.Op{Name: "C"}) != nil {
		t.Error("an op without a trt section has TensorRT options")
	}
}

// TestQDPFalseSpellings: `qdp: False` and `qdp: FALSE` are YAML's false as
// much as `qdp: false` (the schema takes them as booleans), so they turn
// the Python plugin off and the canonical section keeps them.
func TestQDPFalseSpellings(t *testing.T) {
	for _, v := range []string{"false", "False", "FALSE"} {
		src := `version: 1
package: {name: P, domain: example, version: 1.0.0}
ops:
  - name: A
    inputs: [{name: x, type: float32, shape: [N]}]
    outputs: [{name: y, type: float32, shape: [N]}]
    targets:
      trt: {qdp: ` + v + `}
`
		var l diag.List
		pkg := yamldef.Load("p.yaml", []byte(src), &l)
		if pkg == nil || l.HasErrors() {
			t.Fatalf("qdp: %s does not load: %v", v, l.Sorted())
		}
		Target{}.Check(pkg, l.ForTarget("trt"))
		if o := OpOptions(pkg.Ops[0]); o.QDP != nil {
			t.Errorf("qdp: %s leaves the Python plugin on: %+v", v, o.QDP)
		}
		if c := pkg.Ops[0].Sections.Get("trt").Written(); c.Get("qdp") == nil {
			t.Errorf("qdp: %s: the canonical section drops it", v)
		}
	}
}
