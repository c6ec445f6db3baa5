package gen

import (
	"path/filepath"
	"testing"

	"github.com/opforge/opforge/generators/bench"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/target"
)

// synthesize1000 writes the 1,000-op package for every target and returns
// the options that generate it into an empty output directory.
func synthesize1000(b *testing.B) Options {
	b.Helper()
	dir := b.TempDir()
	if err := bench.Synthesize(filepath.Join(dir, "opdefs", "bench", "bench.yaml"), 1000, "", 0); err != nil {
		b.Fatal(err)
	}
	return Options{OpDefs: filepath.Join(dir, "opdefs"), Toolchains: repo + "/toolchains", Out: filepath.Join(dir, "out")}
}

// BenchmarkPlan1000 generates a 1,000-op package for every target and
// plans it against an empty output directory (no writes).
func BenchmarkPlan1000(b *testing.B) {
	o := synthesize1000(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var l diag.List
		if p := Plan(o, &l); p == nil || l.HasErrors() {
			b.Fatal(l.Sorted())
		}
	}
}

// BenchmarkLoad1000 is the front end alone: reading, parsing, schema
// validation and the checks of the 1,000-op package.
func BenchmarkLoad1000(b *testing.B) {
	o := synthesize1000(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var l diag.List
		if pkgs := load.Tree(o.OpDefs, &l); len(pkgs) != 1 || l.HasErrors() {
			b.Fatal(l.Sorted())
		}
	}
}

// BenchmarkGenerate1000 is each target's Generate alone (models and
// templates) for the loaded 1,000-op package, with the templates compiled
// (tmplexec, what gen runs) and, beside it, with text/template itself.
func BenchmarkGenerate1000(b *testing.B) {
	o := synthesize1000(b)
	var l diag.List
	pkgs := load.Tree(o.OpDefs, &l)
	if len(pkgs) != 1 || l.HasErrors() {
		b.Fatal(l.Sorted())
	}
	ts := registry.WithToolchains(o.Toolchains)
	for _, t := range ts {
		b.Run(t.Name()+"/compiled", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				generateOne(b, t, pkgs[0])
			}
		})
		b.Run(t.Name()+"/text-template", func(b *testing.B) {
			defer render.UseTextTemplate()()
			for i := 0; i < b.N; i++ {
				generateOne(b, t, pkgs[0])
			}
		})
	}
}

func generateOne(b *testing.B, t target.Target, pkg *ir.Package) {
	var l diag.List
	if set := t.Generate(pkg, l.ForTarget(t.Name())); set == nil || l.HasErrors() {
		b.Fatal(l.Sorted())
	}
}
