package registry

import (
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
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

// TestCaseCollisions holds the path walk to what it reports: a file and a
// directory equal but for case, each once, at the second name, naming the
// first; one name's own paths, and equal paths, are no collision.
func TestCaseCollisions(t *testing.T) {
	pkg := &ir.Package{Name: "P", Source: "p.yaml", Pos: diag.Pos{File: "p.yaml", Line: 2, Col: 9}}
	a := &ir.Op{Name: "Foo", Pos: diag.Pos{File: "p.yaml", Line: 4, Col: 11}}
	b := &ir.Op{Name: "Bar", Pos: diag.Pos{File: "p.yaml", Line: 9, Col: 11}}
	other := &ir.Package{Name: "p", Source: "q.yaml", Pos: diag.Pos{File: "q.yaml", Line: 2, Col: 9}}
	paths := []outPath{
		{path: "trt/P/Foo.cpp", pkg: pkg, op: a},
		{path: "trt/P/foo/x.h", pkg: pkg, op: a},   // one name's own
		{path: "trt/P/README.md", pkg: pkg},        // shared
		{path: "trt/P/README.md", pkg: pkg},        // the same path
		{path: "trt/P/FOO.cpp", pkg: pkg, op: b},   // a file
		{path: "trt/P/Foo.CPP", pkg: pkg, op: b},   // the pair again
		{path: "trt/p/README.md", pkg: other},      // a directory
		{path: "trt/p/Ünï/x.h", pkg: other, op: b}, // below it
	}
	var l diag.List
	caseCollisions(&l, paths)
	var got []string
	for _, d := range l.Sorted() {
		got = append(got, d.String())
	}
	want := []string{
		"p.yaml:9:11: error: op Bar generates out/trt/P/FOO.cpp and op Foo (p.yaml:4:11) generates out/trt/P/Foo.cpp: the paths differ only in case, so on macOS and Windows they are one file; rename one [path-collision]",
		"q.yaml:2:9: error: package p generates out/trt/p and package P (p.yaml:2:9) generates out/trt/P: the paths differ only in case, so on macOS and Windows they are one directory; rename one [path-collision]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
