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
