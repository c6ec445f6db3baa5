package registry

import (
	"slices"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/target"
)

// Paths must list exactly what Generate writes, or validation checks
// names against files that are not the ones gen makes.
func TestPathsAreWhatGenerateWrites(t *testing.T) {
	ts := WithToolchains("../../toolchains")
	// testdata's generator trees (the tests never read the repository's own opdefs/).
	for _, root := range []string{"../../testdata/gen/aipu-features/opdefs", "../../testdata/gen/examples/opdefs", "../../testdata/gen/executorch-lower/opdefs", "../../testdata/gen/htp-legacy/opdefs", "../../testdata/gen/htp-params/opdefs", "../../testdata/gen/rank-poly/opdefs", "../../testdata/gen/trt-features/opdefs", "../../testdata/gen/trt-legacy/opdefs", "../../testdata/gen/trt-triton/opdefs"} {
		var l diag.List
		pkgs := load.Tree(root, &l)
		Check(&l, pkgs...)
		if l.HasErrors() {
			t.Fatalf("%s: %v", root, l.Sorted())
		}
		for _, tg := range ts {
			p, ok := tg.(target.Pather)
			if !ok {
				t.Errorf("target %s lists no paths (target.Pather)", tg.Name())
				continue
			}
			for _, pkg := range pkgs {
				var want []string
				if set := tg.Generate(pkg, l.ForTarget(tg.Name())); set != nil {
					want = set.Paths()
				}
				var got []string
				for _, f := range p.Paths(pkg) {
					got = append(got, pkg.Name+"/"+f.Path)
				}
				slices.Sort(want)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s %s: Paths lists\n  %v\nGenerate writes\n  %v", tg.Name(), pkg.Name, got, want)
				}
			}
		}
	}
}
