package gen

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/ir/irtest"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/target"
)

// TestOpOutputIsOpLocal holds what the gen cache reuses to its premise,
// over every package of the golden cases: what a target generates from
// one op — the files a target.Pather names after it, and its sections of
// the package's shared files (render.KeyedSections) — is the same whether
// the op is generated with the rest of its package or alone. A file or
// section that read another op would be reused after that op changed.
func TestOpOutputIsOpLocal(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(repo, "testdata", "gen", "*", "opdefs"))
	if len(dirs) == 0 {
		t.Fatal("no golden cases")
	}
	checked := 0
	for _, dir := range dirs {
		var l diag.List
		pkgs := load.Tree(dir, &l)
		registry.Check(&l, pkgs...)
		if l.HasErrors() {
			continue // the cases of refused opdefs
		}
		for _, tg := range registry.WithToolchains(filepath.Join(repo, "toolchains")) {
			p, ok := tg.(target.Pather)
			if !ok {
				continue
			}
			for _, pkg := range pkgs {
				pkg := pkg.For(tg.Name())
				if len(pkg.Ops) < 2 {
					continue
				}
				// The whole package, its sections remembered under each
				// op's name.
				store := irtest.NewSections()
				whole := generateWith(t, tg, pkg, store)
				if whole == nil {
					continue
				}
				for _, op := range pkg.Ops {
					alone := *pkg
					alone.Ops = []*ir.Op{op}
					// Alone and cold, then alone with the sections the
					// whole package rendered: the same bytes.
					cold := generateWith(t, tg, &alone, irtest.NewSections())
					warm := generateWith(t, tg, &alone, store)
					if cold == nil {
						continue // an op the target does not generate
					}
					for _, f := range cold.Files() {
						if w := warm.Get(f.Path); w == nil || !bytes.Equal(w.Data, f.Data) {
							t.Errorf("%s %s: op %s: %s differs with the sections of the whole package", dir, tg.Name(), op.Name, f.Path)
						}
					}
					for _, path := range p.Paths(&alone) {
						if path.Op == nil {
							continue
						}
						rel := pkg.Name + "/" + path.Path
						a, w := cold.Get(rel), whole.Get(rel)
						if a == nil || w == nil {
							t.Errorf("%s %s: %s is not generated both ways", dir, tg.Name(), rel)
							continue
						}
						if !bytes.Equal(a.Data, w.Data) {
							t.Errorf("%s %s: op %s: %s differs generated alone", dir, tg.Name(), op.Name, rel)
						}
						checked++
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no op files compared")
	}
	t.Logf("%d op files compared", checked)
}

func generateWith(t *testing.T, tg target.Target, pkg *ir.Package, store *irtest.Sections) *fileset.Set {
	t.Helper()
	c := *pkg
	c.Reuse = &ir.Reuse{Keys: map[*ir.Op]string{}, Sections: store}
	for _, op := range pkg.Ops {
		c.Reuse.Keys[op] = "op " + op.Name
	}
	var l diag.List
	set := tg.Generate(&c, l.ForTarget(tg.Name()))
	if l.HasErrors() {
		t.Fatalf("%s %s: %v", pkg.Source, tg.Name(), l.Sorted())
	}
	return set
}
