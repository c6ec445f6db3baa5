// Package targettest holds what the targets' tests of reuse share: every
// golden package, loaded and checked, narrowed for one target and
// generated whole; the same package with every op keyed and every file an
// op generates alone kept (ir.Reuse); and the comparison of what a target
// generates so with what it generates whole. Tests only.
package targettest

import (
	"bytes"
	"fmt"
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

// Golden is one golden package as a target generates it.
type Golden struct {
	Pkg   *ir.Package // narrowed for the target
	Ops   []*ir.Op    // the ops the target generates
	Whole *fileset.Set
	Diags []diag.Diagnostic // what generating it whole said
}

// Packages gives every package of the golden cases below root
// (testdata/gen/*/opdefs) that loads and checks without an error and has
// ops for t, generated whole by t (an error doing so fails the test).
func Packages(tb testing.TB, root string, t interface {
	target.Target
	target.OpSelector
}) []Golden {
	tb.Helper()
	dirs, _ := filepath.Glob(filepath.Join(root, "testdata/gen/*/opdefs"))
	var out []Golden
	for _, dir := range dirs {
		var l diag.List
		pkgs := load.Tree(dir, &l)
		registry.Check(&l, pkgs...)
		if l.HasErrors() {
			continue // a case of refused opdefs: nothing is generated
		}
		for _, pkg := range pkgs {
			pkg = pkg.For(t.Name())
			ops := t.Ops(pkg)
			if len(ops) == 0 {
				continue
			}
			var wl diag.List
			whole := t.Generate(pkg, wl.ForTarget(t.Name()))
			if wl.HasErrors() {
				tb.Fatalf("%s: %v", pkg.Name, wl.Sorted())
			}
			out = append(out, Golden{Pkg: pkg, Ops: ops, Whole: whole, Diags: wl.Sorted()})
		}
	}
	if len(out) == 0 {
		tb.Fatalf("no golden package below %s has ops for %s", root, t.Name())
	}
	return out
}

// Keyed is a copy of pkg whose ops all have a key, with an empty section
// store, and every file an op generates alone (t's Paths with an op)
// kept.
func Keyed(pkg *ir.Package, ops []*ir.Op, t target.Pather) *ir.Package {
	keyed := *pkg
	keyed.Reuse = &ir.Reuse{Keys: map[*ir.Op]string{}, Sections: irtest.NewSections(), Kept: map[string]bool{}}
	for i, op := range ops {
		keyed.Reuse.Keys[op] = fmt.Sprintf("%s-%d-%s", pkg.Name, i, op.Name)
	}
	for _, p := range t.Paths(pkg) {
		if p.Op != nil {
			keyed.Reuse.Kept[pkg.Name+"/"+p.Path] = true
		}
	}
	return &keyed
}

// SameFiles reports, as errors named by what, where got (generated from
// pkg, with its Reuse) differs from whole: a file missing, or kept where
// pkg.Reuse does not keep it (or the other way), or not kept and not
// byte for byte whole's, or owned otherwise; or another number of files.
func SameFiles(tb testing.TB, what string, pkg *ir.Package, got, whole *fileset.Set) {
	tb.Helper()
	var kept map[string]bool
	if pkg.Reuse != nil {
		kept = pkg.Reuse.Kept
	}
	for _, f := range whole.Files() {
		g := got.Get(f.Path)
		switch {
		case g == nil:
			tb.Errorf("%s: %s is missing", what, f.Path)
		case g.Kept != kept[f.Path]:
			tb.Errorf("%s: %s kept %v", what, f.Path, g.Kept)
		case !g.Kept && !bytes.Equal(g.Data, f.Data):
			tb.Errorf("%s: %s differs from the file every op's model makes", what, f.Path)
		case g.Owned != f.Owned:
			tb.Errorf("%s: %s owned %v", what, f.Path, g.Owned)
		}
	}
	if n, m := len(got.Files()), len(whole.Files()); n != m {
		tb.Errorf("%s: %d files, not %d", what, n, m)
	}
}
