package trt_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/ir/irtest"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/targets/trt"
)

// TestKeptOpsNeedNoModel: once every op's own files are kept and its
// sections and frame stored, the package's shared files are made from
// the frames alone (no op is modelled) and are byte for byte those a
// gen that models every op writes, for every golden package.
func TestKeptOpsNeedNoModel(t *testing.T) {
	packages, unmodelled := 0, 0
	dirs, _ := filepath.Glob("../../../testdata/gen/*/opdefs")
	for _, dir := range dirs {
		var l diag.List
		pkgs := load.Tree(dir, &l)
		registry.Check(&l, pkgs...)
		if l.HasErrors() {
			continue // a case of refused opdefs: nothing is generated
		}
		for _, pkg := range pkgs {
			pkg = pkg.For("trt")
			ops := trt.Ops(pkg)
			if len(ops) == 0 {
				continue
			}
			packages++
			var wl diag.List
			whole := trt.Target{}.Generate(pkg, wl.ForTarget("trt"))
			if wl.HasErrors() {
				t.Fatalf("%s: %v", pkg.Name, wl.Sorted())
			}
			// Every op keyed, every file an op generates alone kept.
			store := irtest.NewSections()
			keyed := *pkg
			keyed.Reuse = &ir.Reuse{Keys: map[*ir.Op]string{}, Sections: store, Kept: map[string]bool{}}
			for i, op := range ops {
				keyed.Reuse.Keys[op] = fmt.Sprintf("%s-%d-%s", pkg.Name, i, op.Digest)
			}
			for _, p := range (trt.Target{}).Paths(pkg) {
				if p.Op != nil {
					keyed.Reuse.Kept[pkg.Name+"/"+p.Path] = true
				}
			}
			for _, pass := range []string{"fresh", "from the store"} {
				var pl diag.List
				got := trt.Target{}.Generate(&keyed, pl.ForTarget("trt"))
				if pl.HasErrors() {
					t.Fatalf("%s, %s: %v", pkg.Name, pass, pl.Sorted())
				}
				for _, f := range whole.Files() {
					g := got.Get(f.Path)
					switch {
					case g == nil:
						t.Errorf("%s, %s: %s is missing", pkg.Name, pass, f.Path)
					case g.Kept != keyed.Reuse.Kept[f.Path]:
						t.Errorf("%s, %s: %s kept %v", pkg.Name, pass, f.Path, g.Kept)
					case !g.Kept && !bytes.Equal(g.Data, f.Data):
						t.Errorf("%s, %s: %s differs from the file every op's model makes", pkg.Name, pass, f.Path)
					case g.Owned != f.Owned:
						t.Errorf("%s, %s: %s owned %v", pkg.Name, pass, f.Path, g.Owned)
					}
				}
				if n, m := len(got.Files()), len(whole.Files()); n != m {
					t.Errorf("%s, %s: %d files, not %d", pkg.Name, pass, n, m)
				}
				if pass != "fresh" {
					n := trt.Unmodelled(&keyed, ops)
					if n != len(ops) {
						t.Errorf("%s: %d of %d ops unmodelled from the store", pkg.Name, n, len(ops))
					}
					unmodelled += n
				}
			}
		}
	}
	t.Logf("%d packages, %d ops made from their frames", packages, unmodelled)
	if packages == 0 || unmodelled == 0 {
		t.Fatalf("%d packages checked, %d ops unmodelled: the test checked nothing", packages, unmodelled)
	}
}
