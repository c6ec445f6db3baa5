package reference_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/ir/irtest"
	"github.com/opforge/opforge/generators/reference"
	"github.com/opforge/opforge/generators/validate"
	"github.com/opforge/opforge/generators/yamldef"
)

// TestKeyedFunctions: the module made with the ops' functions from the
// store is byte for byte the module made whole, and an op whose function
// name depends on another op (a name taken first: "torch" is the
// module's import) is never taken from the store.
func TestKeyedFunctions(t *testing.T) {
	src := `version: 1
package: {name: Keyed, domain: k, version: 1.0.0, namespace: k}
ops:
  - name: Torch
    inputs: [{name: x, type: float32, shape: [N]}]
    outputs: [{name: y, type: float32, shape: [N]}]
  - name: RoiAlign
    description: Pools regions.
    inputs: [{name: x, type: float32, shape: [N, C]}]
    params: [{name: k, type: int32, default: 2, min: 1}]
    outputs: [{name: y, type: float32, shape: [N, C]}]
`
	var l diag.List
	pkg := yamldef.Load("opdefs/keyed.yaml", []byte(src), &l)
	if pkg == nil || l.HasErrors() {
		t.Fatalf("%v", l.Sorted())
	}
	validate.Package(pkg, &l)
	if l.HasErrors() {
		t.Fatalf("%v", l.Sorted())
	}
	gen := func(p *ir.Package) []byte {
		var gl diag.List
		set := reference.Generator{}.Generate(p, gl.ForTarget("reference"))
		if gl.HasErrors() || len(set.Files()) != 1 {
			t.Fatalf("%v", gl.Sorted())
		}
		return set.Files()[0].Data
	}
	whole := gen(pkg)
	store := irtest.NewSections()
	keyed := *pkg
	keyed.Reuse = &ir.Reuse{Keys: map[*ir.Op]string{pkg.Ops[0]: "k0", pkg.Ops[1]: "k1"}, Sections: store}
	for _, pass := range []string{"fresh", "from the store"} {
		if got := gen(&keyed); !bytes.Equal(got, whole) {
			t.Errorf("%s: the module differs from the one made whole:\n%s\nagainst\n%s", pass, got, whole)
		}
	}
	if store.Holds("k0\x00reference-op") {
		t.Errorf("Torch's function (named torch_2 for the module's import) was stored")
	}
	// RoiAlign's function is served, with what the store keeps beside it
	// under its key (its sum), and nothing of Torch's.
	served := store.ServedKeys()
	if !slices.Contains(served, "k1\x00reference-op") {
		t.Errorf("RoiAlign's function was not served from the store: %q", served)
	}
	for _, k := range served {
		if !strings.HasPrefix(k, "k1\x00") {
			t.Errorf("%q served from the store, want RoiAlign's alone", k)
		}
	}
	if !bytes.Contains(whole, []byte("def torch_2(")) {
		t.Errorf("the test's premise: Torch's function is not torch_2:\n%s", whole)
	}
}
