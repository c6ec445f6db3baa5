// Package yamldeftest holds what the tests of several packages share
// about the YAML front end: a yamldef.Chunks in memory that counts what it
// served, for the tests that hold loads from the store to loads without
// it (yamldef's own, load's).
package yamldeftest

import (
	"fmt"
	"strings"
	"sync"
)

// Chunks is a yamldef.Chunks in memory.
type Chunks struct {
	mu         sync.Mutex
	trees      map[string]string
	vetted     map[string]string
	chunkHits  int
	vettedHits []string // the keys of the vetted records served
}

// NewChunks returns an empty store.
func NewChunks() *Chunks {
	return &Chunks{trees: map[string]string{}, vetted: map[string]string{}}
}

// Chunk implements yamldef.Chunks.
func (c *Chunks) Chunk(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.trees[key]
	if ok {
		c.chunkHits++
	}
	return t, ok
}

// Keep implements yamldef.Chunks.
func (c *Chunks) Keep(key string, tree []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trees[key] = string(tree)
}

// Vetted implements yamldef.Chunks.
func (c *Chunks) Vetted(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.vetted[key]
	if ok {
		c.vettedHits = append(c.vettedHits, key)
	}
	return d, ok
}

// Vet implements yamldef.Chunks. A key names one record's bytes (gen's
// store appends only the keys it does not hold, and a rewrite keeps the
// last value), so a second, different value for a key is a bug of the
// caller, and panics here.
func (c *Chunks) Vet(key, digest string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.vetted[key]; ok && old != digest {
		panic(fmt.Sprintf("yamldeftest: key %q vetted with a second, different value", key))
	}
	c.vetted[key] = digest
}

// Served is how many trees Chunk served.
func (c *Chunks) Served() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.chunkHits
}

// VettedServed is how many vetted records whose key starts with prefix
// Vetted served ("": all).
func (c *Chunks) VettedServed(prefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, k := range c.vettedHits {
		if strings.HasPrefix(k, prefix) {
			n++
		}
	}
	return n
}

// VettedLen is how many vetted records whose key starts with prefix the
// store holds ("": all).
func (c *Chunks) VettedLen(prefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k := range c.vetted {
		if strings.HasPrefix(k, prefix) {
			n++
		}
	}
	return n
}
