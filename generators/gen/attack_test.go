package gen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/writer"
)

// The gen cache must vouch only for what this gen wrote or read: a file
// another process replaced between this gen's Apply and its Store (two gens
// at once) must make the next gen look at the tree again.
func TestCacheVouchesOnlyForWhatItSaw(t *testing.T) {
	o := workspace(t)
	cachePath := filepath.Join(t.TempDir(), "cache.json")
	c, err := OpenCache(o, cachePath)
	if err != nil {
		t.Fatal(err)
	}
	o.Known = c.Unchanged
	p := planAndApply(t, o)
	// Another gen, from another state of the opdefs, replaces a file now.
	victim := filepath.Join(o.Out, "htp/VisionOps/src/ops/TopKLast.cpp")
	data, _ := os.ReadFile(victim)
	tmp := victim + ".other"
	if err := os.WriteFile(tmp, append(data, "// other gen\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, victim); err != nil {
		t.Fatal(err)
	}
	if err := c.Store(p); err != nil {
		t.Fatal(err)
	}
	c2, err := OpenCache(o, cachePath)
	if err != nil {
		t.Fatal(err)
	}
	if _, fresh := c2.Fresh(); fresh {
		t.Error("the cache vouches for a tree another gen changed after this one wrote it")
	}
}

// TestStoreRemovesLegacyCache: the JSON record of older gens, beside the
// default cache under its name plus .json, goes with the first store; a
// cache of another name leaves its neighbours alone.
func TestStoreRemovesLegacyCache(t *testing.T) {
	o := workspace(t)
	p := planAndApply(t, o)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		gone bool
	}{{legacyCacheBase, true}, {"mine", false}} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path+".json", []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		cache, err := OpenCache(o, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := cache.Store(p); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path + ".json"); os.IsNotExist(err) != c.gone {
			t.Errorf("%s.json: removed %v, want %v", c.name, os.IsNotExist(err), c.gone)
		}
	}
}

// planAndApply plans a gen with o and applies it.
func planAndApply(t *testing.T, o Options) *writer.Plan {
	t.Helper()
	var l diag.List
	p := Plan(o, &l)
	if p == nil || l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	if _, err := writer.Apply(p); err != nil {
		t.Fatal(err)
	}
	return p
}
