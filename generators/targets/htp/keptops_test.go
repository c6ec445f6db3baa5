package htp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/targets/htp"
	"github.com/opforge/opforge/generators/targets/targettest"
)

// TestStoredTorchOpsNeedNoModel: once every op's sections of the
// ExecuTorch module are stored, the module is byte for byte the one a gen
// that models every op writes, and its warnings (an output's assumed
// shape) are the same, for every golden package.
func TestStoredTorchOpsNeedNoModel(t *testing.T) {
	stored, warned := 0, 0
	goldens := targettest.Packages(t, "../../..", htp.Target{})
	for _, g := range goldens {
		// Every op keyed, even one the loader gave no digest; no file kept.
		keyed := targettest.Keyed(g.Pkg, g.Ops, htp.Target{})
		keyed.Reuse.Kept = nil
		// A package without an ExecuTorch module stores nothing.
		module := slices.ContainsFunc(g.Whole.Files(), func(f *fileset.File) bool { return strings.Contains(f.Path, "/executorch/") })
		for _, pass := range []string{"fresh", "from the store"} {
			want := 0
			if pass != "fresh" && module {
				want = len(g.Ops)
			}
			if n := htp.StoredTorchOps(keyed, g.Ops); n != want {
				t.Errorf("%s, %s: %d of %d ops' module sections stored, want %d", g.Pkg.Name, pass, n, len(g.Ops), want)
			}
			stored += want
			var pl diag.List
			got := htp.Target{}.Generate(keyed, pl.ForTarget("htp"))
			if pl.HasErrors() {
				t.Fatalf("%s, %s: %v", g.Pkg.Name, pass, pl.Sorted())
			}
			if !slices.Equal(pl.Sorted(), g.Diags) {
				t.Errorf("%s, %s: diagnostics\n%v\nnot those of a gen that models every op\n%v", g.Pkg.Name, pass, pl.Sorted(), g.Diags)
			}
			targettest.SameFiles(t, g.Pkg.Name+", "+pass, keyed, got, g.Whole)
		}
		if len(g.Diags) > 0 {
			warned++
		}
	}
	t.Logf("%d packages (%d with warnings), %d ops' module sections taken from the store", len(goldens), warned, stored)
	if stored == 0 || warned == 0 {
		t.Fatalf("%d packages checked, %d with warnings, %d ops from the store: the test checked too little", len(goldens), warned, stored)
	}
}
