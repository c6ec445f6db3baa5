package gen

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/writer"
)

// Cache makes a no-op `gen` cheap, the way make and ninja do: when the
// opdefs, the toolchain descriptors and the opforge binary are what the
// last successful gen saw, and every file it left in out/ still has the
// size, mtime and inode it had then, there is nothing to do. Any doubt —
// an edited user region, a deleted file, a rebuilt opforge — means a full
// run. The cache lives in the build directory, never in out/; the drift
// check never uses it.
type Cache struct {
	path string
	key  string
	Out  string
}

type cacheFile struct {
	Key   string              `json:"key"`
	Files map[string]statInfo `json:"files"`
}

type statInfo struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"`
	Ino   uint64 `json:"ino"`
}

func statOf(path string) (statInfo, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return statInfo{}, false
	}
	var ino uint64
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		ino = uint64(s.Ino)
	}
	return statInfo{Size: st.Size(), MTime: st.ModTime().UnixNano(), Ino: ino}, true
}

// OpenCache computes the input key of o; cachePath is the cache file.
func OpenCache(o Options, cachePath string) (*Cache, error) {
	h := sha256.New()
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	st, ok := statOf(exe)
	if !ok {
		return nil, fmt.Errorf("cannot stat %s", exe)
	}
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	fmt.Fprintf(h, "v1\x00%s\x00%+v\x00%s\x00%s\x00%s\x00", exe, st, abs(o.OpDefs), abs(o.Toolchains), abs(o.Out))
	files, err := load.Files(o.OpDefs)
	if err != nil {
		return nil, err
	}
	tcs, _ := filepath.Glob(filepath.Join(o.Toolchains, "*.yaml"))
	sort.Strings(tcs)
	for _, f := range append(files, tcs...) {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(data))
		h.Write(data)
	}
	return &Cache{path: cachePath, key: hex.EncodeToString(h.Sum(nil)), Out: o.Out}, nil
}

// Fresh reports whether the last gen saw the same inputs and left out/ as
// it still is; it returns the number of files then.
func (c *Cache) Fresh() (int, bool) {
	data, err := os.ReadFile(c.path)
	if err != nil {
		return 0, false
	}
	var cf cacheFile
	if json.Unmarshal(data, &cf) != nil || cf.Key != c.key || len(cf.Files) == 0 {
		return 0, false
	}
	for rel, want := range cf.Files {
		if got, ok := statOf(filepath.Join(c.Out, filepath.FromSlash(rel))); !ok || got != want {
			return 0, false
		}
	}
	// A file added under out/ by someone else is drift that gen would not
	// remove (only check reports it), so it does not invalidate the cache.
	return len(cf.Files), true
}

// Store records the tree a successful gen left.
func (c *Cache) Store(p *writer.Plan) error {
	cf := cacheFile{Key: c.key, Files: map[string]statInfo{}}
	for _, rel := range p.Files.Paths() {
		st, ok := statOf(filepath.Join(c.Out, filepath.FromSlash(rel)))
		if !ok {
			return nil // something raced us; no cache is always safe
		}
		cf.Files[rel] = st
	}
	data, err := json.Marshal(cf)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	_, err = atomicfile.Write(c.path, data, 0o644)
	return err
}
