//go:build unix

package gen

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenCacheSkipsFIFOs: a FIFO among the toolchain descriptors makes
// the cache unusable, at once; reading it would wait for a writer forever
// while holding gen's lock.
func TestOpenCacheSkipsFIFOs(t *testing.T) {
	dir := t.TempDir()
	tc := filepath.Join(dir, "toolchains")
	if err := os.MkdirAll(filepath.Join(dir, "opdefs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(tc, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(tc, "zz.yaml"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := OpenCache(Options{OpDefs: filepath.Join(dir, "opdefs"), Toolchains: tc, Out: filepath.Join(dir, "out")}, filepath.Join(dir, "build", "cache"))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a FIFO among the descriptors: the cache opened")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OpenCache is reading a FIFO")
	}
}

// TestCacheFilesSkipFIFOs: a FIFO where the gen cache or one of its stores
// lies is neither read nor written through (either would wait for the
// other end forever, holding gen's lock): the gen runs as without a cache
// and puts regular files in their place.
func TestCacheFilesSkipFIFOs(t *testing.T) {
	s := newIncrSession(t, 3)
	s.gen("initial state")
	paths := []string{s.cachePath(), newSectionStore(s.cachePath()).path, newItemStore(s.cachePath()).path}
	for _, path := range paths {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
	}
	s.ops[0].description = "Changed."
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.gen("the cache and its stores are FIFOs")
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("gen is reading or writing a FIFO")
	}
	for _, path := range paths {
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s after the gen: %v, %v; want a regular file", path, fi.Mode(), err)
		}
	}
}
