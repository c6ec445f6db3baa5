package trt_test

import (
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/targets/targettest"
	"github.com/opforge/opforge/generators/targets/trt"
)

// TestKeptOpsNeedNoModel: once every op's own files are kept and its
// sections and frame stored, the package's shared files are made from
// the frames alone (no op is modelled) and are byte for byte those a
// gen that models every op writes, for every golden package.
func TestKeptOpsNeedNoModel(t *testing.T) {
	unmodelled := 0
	goldens := targettest.Packages(t, "../../..", trt.Target{})
	for _, g := range goldens {
		keyed := targettest.Keyed(g.Pkg, g.Ops, trt.Target{})
		for _, pass := range []string{"fresh", "from the store"} {
			var pl diag.List
			got := trt.Target{}.Generate(keyed, pl.ForTarget("trt"))
			if pl.HasErrors() {
				t.Fatalf("%s, %s: %v", g.Pkg.Name, pass, pl.Sorted())
			}
			targettest.SameFiles(t, g.Pkg.Name+", "+pass, keyed, got, g.Whole)
			if pass != "fresh" {
				n := trt.Unmodelled(keyed, g.Ops)
				if n != len(g.Ops) {
					t.Errorf("%s: %d of %d ops unmodelled from the store", g.Pkg.Name, n, len(g.Ops))
				}
				unmodelled += n
			}
		}
	}
	t.Logf("%d packages, %d ops made from their frames", len(goldens), unmodelled)
	if unmodelled == 0 {
		t.Fatalf("%d packages checked, no op unmodelled: the test checked nothing", len(goldens))
	}
}
