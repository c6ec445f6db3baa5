package gen

import (
	"path/filepath"
	"testing"

	"github.com/opforge/opforge/generators/bench"
	"github.com/opforge/opforge/generators/diag"
)

// BenchmarkPlan1000 generates a 1,000-op package for every target and
// plans it against an empty output directory (no writes).
func BenchmarkPlan1000(b *testing.B) {
	dir := b.TempDir()
	if err := bench.Synthesize(filepath.Join(dir, "opdefs", "bench", "bench.yaml"), 1000, "", 0); err != nil {
		b.Fatal(err)
	}
	o := Options{OpDefs: filepath.Join(dir, "opdefs"), Toolchains: repo + "/toolchains", Out: filepath.Join(dir, "out")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var l diag.List
		if p := Plan(o, &l); p == nil || l.HasErrors() {
			b.Fatal(l.Sorted())
		}
	}
}
