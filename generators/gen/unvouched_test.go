package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/writer"
)

// lyingReuser vouches for every op file, whether or not it is there: the
// writer must catch what the cache could not see (a file deleted between
// the cache's look and the writer's) and gen must then render everything.
type lyingReuser struct{ *Cache }

func (r lyingReuser) Reusable(rel, key string) bool { return true }

func TestUnvouchedKeptFilesRender(t *testing.T) {
	s := newIncrSession(t, 1)
	s.gen("initial state")
	out := filepath.Join(s.dir, "out")
	var gone string
	for path := range readTree(t, out) {
		if strings.HasSuffix(path, "Plugin.cpp") {
			gone = path
			break
		}
	}
	if gone == "" {
		t.Fatal("no plugin source generated")
	}
	if err := os.Remove(filepath.Join(out, filepath.FromSlash(gone))); err != nil {
		t.Fatal(err)
	}
	o := Options{OpDefs: filepath.Join(s.dir, "opdefs"), Toolchains: repo + "/toolchains", Out: out}
	cache, err := OpenCache(o, s.cachePath())
	if err != nil {
		t.Fatal(err)
	}
	o.Known, o.Reuse = cache.Unchanged, lyingReuser{cache}
	var l diag.List
	plan := Plan(o, &l)
	if plan == nil || l.HasErrors() {
		t.Fatalf("plan: %v", l.Sorted())
	}
	if len(plan.Unvouched) != 0 {
		t.Fatalf("the plan applied still has unvouched files: %v", plan.Unvouched)
	}
	for _, f := range plan.Files.Files() {
		if f.Kept {
			t.Fatalf("%s kept after the writer refused a kept file", f.Path)
		}
	}
	if _, err := writer.Apply(plan); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(gone))); err != nil {
		t.Fatalf("%s was not written again: %v", gone, err)
	}
	cold := o
	cold.Out, cold.Known, cold.Reuse = filepath.Join(s.dir, "cold-check"), nil, nil
	s.apply("cold", cold)
	s.compare("after the fallback", out, cold.Out)
}
