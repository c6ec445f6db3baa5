package htp_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/ir/irtest"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/targets/htp"
)

// TestStoredTorchOpsNeedNoModel: once every op's sections of the
// ExecuTorch module are stored, the module is byte for byte the one a gen
// that models every op writes, and its warnings (an output's assumed
// shape) are the same, for every golden package.
func TestStoredTorchOpsNeedNoModel(t *testing.T) {
	packages, stored, warned := 0, 0, 0
	dirs, _ := filepath.Glob("../../../testdata/gen/*/opdefs")
	for _, dir := range dirs {
		var l diag.List
		pkgs := load.Tree(dir, &l)
		registry.Check(&l, pkgs...)
		if l.HasErrors() {
			continue // a case of refused opdefs: nothing is generated
		}
		for _, pkg := range pkgs {
			pkg = pkg.For("htp")
			ops := htp.Ops(pkg)
			if len(ops) == 0 {
				continue
			}
			packages++
			var wl diag.List
			whole := htp.Target{}.Generate(pkg, wl.ForTarget("htp"))
			if wl.HasErrors() {
				t.Fatalf("%s: %v", pkg.Name, wl.Sorted())
			}
			// Every op keyed, even one the loader gave no digest.
			keyed := *pkg
			keyed.Reuse = &ir.Reuse{Keys: map[*ir.Op]string{}, Sections: irtest.NewSections()}
			for i, op := range ops {
				keyed.Reuse.Keys[op] = fmt.Sprintf("%s-%d-%s", pkg.Name, i, op.Name)
			}
			// A package without an ExecuTorch module stores nothing.
			module := slices.ContainsFunc(whole.Files(), func(f *fileset.File) bool { return strings.Contains(f.Path, "/executorch/") })
			for _, pass := range []string{"fresh", "from the store"} {
				want := 0
				if pass != "fresh" && module {
					want = len(ops)
				}
				if n := htp.StoredTorchOps(&keyed, ops); n != want {
					t.Errorf("%s, %s: %d of %d ops' module sections stored, want %d", pkg.Name, pass, n, len(ops), want)
				}
				stored += want
				var pl diag.List
				got := htp.Target{}.Generate(&keyed, pl.ForTarget("htp"))
				if pl.HasErrors() {
					t.Fatalf("%s, %s: %v", pkg.Name, pass, pl.Sorted())
				}
				if !slices.Equal(pl.Sorted(), wl.Sorted()) {
					t.Errorf("%s, %s: diagnostics\n%v\nnot those of a gen that models every op\n%v", pkg.Name, pass, pl.Sorted(), wl.Sorted())
				}
				for _, f := range whole.Files() {
					if g := got.Get(f.Path); g == nil || !bytes.Equal(g.Data, f.Data) {
						t.Errorf("%s, %s: %s differs from the file every op's model makes", pkg.Name, pass, f.Path)
					}
				}
			}
			if len(wl.Sorted()) > 0 {
				warned++
			}
		}
	}
	t.Logf("%d packages (%d with warnings), %d ops' module sections taken from the store", packages, warned, stored)
	if packages == 0 || stored == 0 || warned == 0 {
		t.Fatalf("%d packages checked, %d with warnings, %d ops from the store: the test checked too little", packages, warned, stored)
	}
}
