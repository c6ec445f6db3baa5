package aipu_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/targets/aipu"
	"github.com/opforge/opforge/generators/targets/targettest"
)

// TestKeptOpsNeedNoModel: once every op's own files are kept and its
// sections of the package files stored, no op is modelled, and the
// Makefile and README are byte for byte those a gen that models every op
// writes, for every golden package. A section lost makes every op
// modelled again, and a file not kept its op.
func TestKeptOpsNeedNoModel(t *testing.T) {
	unmodelled := 0
	goldens := targettest.Packages(t, "../../..", aipu.Target{})
	for _, g := range goldens {
		ops := g.Ops
		keyed := targettest.Keyed(g.Pkg, ops, aipu.Target{})
		store, kept := keyed.Reuse.Sections, keyed.Reuse.Kept
		// The first op's kernel, not kept (changed on disk, say).
		var firstKernel string
		for _, p := range (aipu.Target{}).Paths(g.Pkg) {
			if p.Op == ops[0] && strings.HasSuffix(p.Path, ".cl") {
				firstKernel = g.Pkg.Name + "/" + p.Path
			}
		}
		for _, pass := range []string{"fresh", "from the store", "make-objects lost", "make-rules lost", "readme-objects lost", "a file not kept"} {
			keyed.Reuse.Sections, keyed.Reuse.Kept = store, kept
			if lost, ok := strings.CutSuffix(pass, " lost"); ok {
				keyed.Reuse.Sections = hiding{store, "\x00" + lost}
			}
			want := 0
			switch pass {
			case "from the store":
				want = len(ops)
			case "a file not kept":
				keyed.Reuse.Kept = maps.Clone(kept)
				delete(keyed.Reuse.Kept, firstKernel)
				want = len(ops) - 1
			}
			if n := aipu.Unmodelled(keyed, ops); n != want {
				t.Errorf("%s, %s: %d of %d ops unmodelled, want %d", g.Pkg.Name, pass, n, len(ops), want)
			}
			unmodelled += want
			var pl diag.List
			got := aipu.Target{}.Generate(keyed, pl.ForTarget("aipu"))
			if pl.HasErrors() {
				t.Fatalf("%s, %s: %v", g.Pkg.Name, pass, pl.Sorted())
			}
			targettest.SameFiles(t, g.Pkg.Name+", "+pass, keyed, got, g.Whole)
		}
	}
	t.Logf("%d packages, %d ops unmodelled", len(goldens), unmodelled)
	if unmodelled == 0 {
		t.Fatalf("%d packages checked, no op unmodelled: the test checked nothing", len(goldens))
	}
}

// hiding is a section store that has lost every section whose key ends
// in suffix.
type hiding struct {
	ir.SectionStore
	suffix string
}

func (h hiding) Section(key string) (string, bool) {
	if strings.HasSuffix(key, h.suffix) {
		return "", false
	}
	return h.SectionStore.Section(key)
}
