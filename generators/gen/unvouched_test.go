package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	for path := range treeBytes(t, out) {
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

// editingReuser vouches as the cache does, then changes what it vouched
// for before the writer looks: the first file it keeps gets a line (an
// editor saving while gen runs), or the manifest is rewritten.
type editingReuser struct {
	*Cache
	t        *testing.T
	out      string
	manifest bool
	// Reusable is called on every core (Reuser): mu guards done, and
	// errors are reported with Error, which any goroutine may call.
	mu   sync.Mutex
	done bool
}

func (r *editingReuser) Reusable(rel, key string) bool {
	ok := r.Cache.Reusable(rel, key)
	r.mu.Lock()
	defer r.mu.Unlock()
	if ok && !r.done {
		r.done = true
		path := filepath.Join(r.out, filepath.FromSlash(rel))
		if r.manifest {
			path = filepath.Join(r.out, writer.ManifestName)
		}
		data, err := os.ReadFile(path)
		if err == nil {
			if !r.manifest {
				data = append(data, "// HAND EDIT\n"...)
			}
			_ = os.Remove(path)
			err = os.WriteFile(path, data, 0o644)
		}
		if err != nil {
			r.t.Error(err)
		}
	}
	return ok
}

// TestKeptFileChangedMidGen: what changes between the cache's look and
// the writer's is not taken on the cache's word. A kept file edited then
// is read and its hand edit reported, as a full gen reports it; after a
// manifest rewritten then, nothing is kept.
func TestKeptFileChangedMidGen(t *testing.T) {
	for _, manifest := range []bool{false, true} {
		s := newIncrSession(t, 2)
		s.gen("initial state")
		s.ops[0].description = "Changed."
		s.gen("one op changed")
		out := filepath.Join(s.dir, "out")
		o := Options{OpDefs: filepath.Join(s.dir, "opdefs"), Toolchains: repo + "/toolchains", Out: out}
		cache, err := OpenCache(o, s.cachePath())
		if err != nil {
			t.Fatal(err)
		}
		cache.generator += "\x00" + s.generator // as the session's gens
		r := &editingReuser{Cache: cache, t: t, out: out, manifest: manifest}
		o.Known, o.Reuse = cache.Unchanged, r
		var l diag.List
		plan := Plan(o, &l)
		if !r.done {
			t.Fatal("the cache vouched for nothing: the test proved nothing")
		}
		if !manifest {
			if !l.HasErrors() || !strings.Contains(fmt.Sprint(l.Sorted()), "generated-edited") {
				t.Fatalf("a kept file edited mid-gen: want its hand edit reported, got %v", l.Sorted())
			}
			continue
		}
		if plan == nil || l.HasErrors() {
			t.Fatalf("manifest rewritten mid-gen: %v", l.Sorted())
		}
		for _, f := range plan.Files.Files() {
			if f.Kept {
				t.Fatalf("manifest rewritten mid-gen: %s still kept", f.Path)
			}
		}
	}
}
