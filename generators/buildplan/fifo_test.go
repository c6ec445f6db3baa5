//go:build unix

package buildplan

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/toolchain"
)

// TestStateFilesSkipFIFOs: a FIFO where a build's no-op record or the
// tools' version cache lies is not read (the read would wait for a writer
// forever): the build takes the slow path. Found by an independent review.
func TestStateFilesSkipFIFOs(t *testing.T) {
	o := Options{Build: t.TempDir()}
	record := noopPath(o, "trt")
	if err := os.MkdirAll(filepath.Dir(record), 0o755); err != nil {
		t.Fatal(err)
	}
	versions := filepath.Join(o.Build, versionCacheName)
	for _, path := range []string{record, versions} {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
	}
	done := make(chan bool, 1)
	go func() {
		noop := Noop(o, "trt", io.Discard)
		toolchain.OpenVersionCache(versions)
		done <- noop
	}()
	select {
	case noop := <-done:
		if noop {
			t.Fatal("a FIFO for the no-op record: the build was taken as done")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO as the no-op record or the version cache")
	}
}
