package aipu_test

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/ir/irtest"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/targets/aipu"
)

// TestKeptOpsNeedNoModel: once every op's own files are kept and its
// sections of the package files stored, no op is modelled, and the
// Makefile and README are byte for byte those a gen that models every op
// writes, for every golden package.
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
			pkg = pkg.For("aipu")
			ops := aipu.Ops(pkg)
			if len(ops) == 0 {
				continue
			}
			packages++
			var wl diag.List
			whole := aipu.Target{}.Generate(pkg, wl.ForTarget("aipu"))
			if wl.HasErrors() {
				t.Fatalf("%s: %v", pkg.Name, wl.Sorted())
			}
			// Every op keyed, every file an op generates alone kept.
			keyed := *pkg
			keyed.Reuse = &ir.Reuse{Keys: map[*ir.Op]string{}, Sections: irtest.NewSections(), Kept: map[string]bool{}}
			for i, op := range ops {
				keyed.Reuse.Keys[op] = fmt.Sprintf("%s-%d-%s", pkg.Name, i, op.Digest)
			}
			for _, p := range (aipu.Target{}).Paths(pkg) {
				if p.Op != nil {
					keyed.Reuse.Kept[pkg.Name+"/"+p.Path] = true
				}
			}
			store, kept := keyed.Reuse.Sections, keyed.Reuse.Kept
			// The first op's kernel, not kept (changed on disk, say).
			var firstKernel string
			for _, p := range (aipu.Target{}).Paths(pkg) {
				if p.Op == ops[0] && strings.HasSuffix(p.Path, ".cl") {
					firstKernel = pkg.Name + "/" + p.Path
				}
			}
			for _, pass := range []string{"fresh", "from the store", "make-objects lost", "make-rules lost", "readme-objects lost", "a file not kept"} {
				// A section missing from the store makes every op modelled
				// again: its section is made from the model. A file not
				// kept makes its op modelled: the file is rendered.
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
				if n := aipu.Unmodelled(&keyed, ops); n != want {
					t.Errorf("%s, %s: %d of %d ops unmodelled, want %d", pkg.Name, pass, n, len(ops), want)
				}
				unmodelled += want
				var pl diag.List
				got := aipu.Target{}.Generate(&keyed, pl.ForTarget("aipu"))
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
			}
		}
	}
	t.Logf("%d packages, %d ops unmodelled", packages, unmodelled)
	if packages == 0 || unmodelled == 0 {
		t.Fatalf("%d packages checked, %d ops unmodelled: the test checked nothing", packages, unmodelled)
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
