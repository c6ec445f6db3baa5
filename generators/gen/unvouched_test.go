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
	for _, prefetch := range []bool{false, true} {
		t.Run(fmt.Sprintf("prefetch %v", prefetch), func(t *testing.T) { testUnvouchedKeptFilesRender(t, prefetch) })
	}
}

// testUnvouchedKeptFilesRender is TestUnvouchedKeptFilesRender with the
// look taken ahead (Prefetch, as opforge gen runs) or not.
func testUnvouchedKeptFilesRender(t *testing.T, prefetch bool) {
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
	if prefetch {
		cache.Prefetch()
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
	mu     sync.Mutex
	done   bool
	edited string // the file edited (rel)
}

func (r *editingReuser) Reusable(rel, key string) bool {
	ok := r.Cache.Reusable(rel, key)
	r.mu.Lock()
	defer r.mu.Unlock()
	if ok && !r.done {
		r.done, r.edited = true, rel
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

// TestKeptFileChangedMidGen: a kept file is never taken on the cache's
// word, nor written over. Without the look taken ahead (a caller that
// does not Prefetch), the writer looks after the cache vouched, and a
// file edited between is read and its hand edit reported, as a full gen
// reports it. With it (as opforge gen runs), the cache vouches by the
// writer's own look, so an edit after it is an edit after the plan
// looked: the file is kept unwritten, the edit stays on disk, and the
// next gen reports it. After a manifest rewritten mid-gen (which the
// plan looks at itself), nothing is kept either way.
func TestKeptFileChangedMidGen(t *testing.T) {
	for _, c := range []struct{ prefetch, manifest bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
		name := fmt.Sprintf("prefetch %v, manifest %v", c.prefetch, c.manifest)
		s := newIncrSession(t, 2)
		s.gen("initial state")
		s.ops[0].description = "Changed."
		s.gen("one op changed")
		out := filepath.Join(s.dir, "out")
		o := Options{OpDefs: filepath.Join(s.dir, "opdefs"), Toolchains: repo + "/toolchains", Out: out}
		open := func() *Cache {
			cache, err := OpenCache(o, s.cachePath())
			if err != nil {
				t.Fatal(err)
			}
			cache.generator += "\x00" + s.generator // as the session's gens
			if c.prefetch {
				cache.Prefetch()
			}
			return cache
		}
		cache := open()
		r := &editingReuser{Cache: cache, t: t, out: out, manifest: c.manifest}
		o.Known, o.Reuse = cache.Unchanged, r
		var l diag.List
		plan := Plan(o, &l)
		if !r.done {
			t.Fatalf("%s: the cache vouched for nothing: the test proved nothing", name)
		}
		switch {
		case c.manifest:
			if plan == nil || l.HasErrors() {
				t.Fatalf("%s: manifest rewritten mid-gen: %v", name, l.Sorted())
			}
			for _, f := range plan.Files.Files() {
				if f.Kept {
					t.Fatalf("%s: manifest rewritten mid-gen: %s still kept", name, f.Path)
				}
			}
		case !c.prefetch:
			if !l.HasErrors() || !strings.Contains(fmt.Sprint(l.Sorted()), "generated-edited") {
				t.Fatalf("%s: a kept file edited mid-gen: want its hand edit reported, got %v", name, l.Sorted())
			}
		default:
			if plan == nil || l.HasErrors() {
				t.Fatalf("%s: a kept file edited after the look: %v", name, l.Sorted())
			}
			if f := plan.Files.Get(r.edited); f == nil || !f.Kept {
				t.Fatalf("%s: %s, edited after the look, was not kept", name, r.edited)
			}
			if _, err := writer.Apply(plan); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(r.edited)))
			if err != nil || !strings.HasSuffix(string(data), "// HAND EDIT\n") {
				t.Fatalf("%s: %s lost its hand edit: %v", name, r.edited, err)
			}
			next := open()
			o.Known, o.Reuse = next.Unchanged, next
			var nl diag.List
			Plan(o, &nl)
			if !nl.HasErrors() || !strings.Contains(fmt.Sprint(nl.Sorted()), "generated-edited") {
				t.Fatalf("%s: the gen after: want the hand edit reported, got %v", name, nl.Sorted())
			}
		}
	}
}
