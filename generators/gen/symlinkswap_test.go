package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/writer"
)

// swappingReuser runs swap when gen asks for leftovers: after the targets
// rendered (and the look ahead was taken), before the writer plans.
type swappingReuser struct {
	*Cache
	swap func()
}

func (r swappingReuser) Leftovers() bool { r.swap(); return r.Cache.Leftovers() }

// TestSymlinkSwappedMidGen: found by an independent review. A target's
// directory swapped for a link to a directory outside out/ after the
// targets rendered (and the writer's looks at kept files were taken
// ahead), before the plan: the plan refuses to write through it.
func TestSymlinkSwappedMidGen(t *testing.T) {
	s := newIncrSession(t, 1)
	s.gen("initial state")
	s.ops[0].description = "Changed."
	opdefs := filepath.Join(s.dir, "opdefs")
	if err := os.WriteFile(filepath.Join(opdefs, "incr", "incr.yaml"), []byte(s.opdef()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(s.dir, "out")
	elsewhere := filepath.Join(s.dir, "elsewhere")
	o := Options{OpDefs: opdefs, Toolchains: repo + "/toolchains", Out: out}
	cache, err := OpenCache(o, s.cachePath())
	if err != nil {
		t.Fatal(err)
	}
	cache.generator += "\x00" + s.generator
	cache.Prefetch()
	var swapped string
	swap := func() {
		time.Sleep(300 * time.Millisecond) // the look-ahead goroutines finish
		ents, _ := os.ReadDir(out)
		for _, e := range ents {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "reference" {
				swapped = e.Name()
				break
			}
		}
		if err := os.MkdirAll(elsewhere, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(out, swapped), filepath.Join(elsewhere, swapped)); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(elsewhere, swapped), filepath.Join(out, swapped)); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	o.Known, o.Reuse = cache.Unchanged, swappingReuser{cache, swap}
	var l diag.List
	plan := Plan(o, &l)
	if swapped == "" {
		t.Fatal("no target directory to swap: the test proved nothing")
	}
	if plan == nil || l.HasErrors() {
		return // refused, as it must be
	}
	before := treeBytes(t, elsewhere)
	st, err := writer.Apply(plan)
	after := treeBytes(t, elsewhere)
	changed := 0
	for p, b := range after {
		if string(before[p]) != string(b) {
			changed++
		}
	}
	t.Fatalf("out/%s became a link to %s mid-gen and the plan took it: Apply %+v, %v; %d files changed outside out/", swapped, elsewhere, st, err, changed)
}
