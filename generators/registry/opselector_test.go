package registry

import (
	"path/filepath"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/target"
)

// TestOpSelectorCoversPaths: a target that lists the ops it generates for
// (target.OpSelector) lists every op its files are named after. gen keys
// only the listed ops, so an op left out would render every time, never
// reused, while the output stays the same: no byte comparison would see
// it. Over every YAML and XML opdef of testdata's generator trees.
func TestOpSelectorCoversPaths(t *testing.T) {
	var paths []string
	for _, pattern := range []string{"../../testdata/*/opdefs/*/*.yaml", "../../testdata/*/*/opdefs/*/*.yaml", "../../testdata/*/opdefs/*/*.xml", "../../testdata/*/*/opdefs/*/*.xml"} {
		m, _ := filepath.Glob(pattern)
		paths = append(paths, m...)
	}
	if len(paths) < 20 {
		t.Fatalf("only %d opdefs found", len(paths))
	}
	selectors, named := 0, 0
	for _, path := range paths {
		var l diag.List
		pkgs := load.Paths([]string{path}, &l)
		Check(&l, pkgs...)
		if l.HasErrors() {
			continue
		}
		for _, pkg := range pkgs {
			for _, tg := range All() {
				sel, ok := tg.(target.OpSelector)
				p, pather := tg.(target.Pather)
				if !ok || !pather {
					continue
				}
				selectors++
				narrowed := pkg.For(tg.Name())
				listed := map[*ir.Op]bool{}
				for _, op := range sel.Ops(narrowed) {
					listed[op] = true
				}
				for _, f := range p.Paths(narrowed) {
					if f.Op == nil {
						continue
					}
					named++
					if !listed[f.Op] {
						t.Errorf("%s: %s names %s after op %s, which its Ops does not list", path, tg.Name(), f.Path, f.Op.Name)
					}
				}
			}
		}
	}
	if named == 0 {
		t.Fatalf("no file named after an op among %d target packages: the test checked nothing", selectors)
	}
	t.Logf("%d opdefs, %d files named after ops, each op listed", len(paths), named)
}
