package toolchain

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/opforge/opforge/generators/atomicfile"
)

// VersionCache remembers tool versions by the tool binary's path, size and
// mtime, so a no-op build starts no process at all — not even `--version`.
type VersionCache struct {
	path    string
	mu      sync.Mutex
	entries map[string]string
	dirty   bool
}

// OpenVersionCache loads the cache stored at path (missing: empty).
func OpenVersionCache(path string) *VersionCache {
	c := &VersionCache{path: path, entries: map[string]string{}}
	if data, err := atomicfile.ReadRegular(path); err == nil { // never a FIFO's endless read
		_ = json.Unmarshal(data, &c.entries)
	}
	return c
}

// Version returns the tool's version, running it only when the binary
// changed since it was last asked.
func (c *VersionCache) Version(path string, v *VersionProbe) string {
	st, err := os.Stat(path)
	if err != nil {
		return ToolVersion(path, v)
	}
	key := fmt.Sprintf("%s|%d|%d|%q|%s", path, st.Size(), st.ModTime().UnixNano(), v.Args, v.Pattern)
	c.mu.Lock()
	got, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return got
	}
	got = ToolVersion(path, v)
	c.mu.Lock()
	c.entries[key] = got
	c.dirty = true
	c.mu.Unlock()
	return got
}

// Save writes the cache back when it changed.
func (c *VersionCache) Save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return nil
	}
	data, err := json.MarshalIndent(c.entries, "", " ")
	if err != nil {
		return err
	}
	_, err = atomicfile.Write(c.path, data, 0o644)
	return err
}
