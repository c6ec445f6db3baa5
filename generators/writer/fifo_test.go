//go:build unix

package writer

import (
	"syscall"
	"testing"
	"time"
)

// TestLiveMarkFIFOIsNoWriter: a FIFO named like a running writer's live
// mark is not opened to test its lock (which would wait forever): the
// leftovers walk and check go on. Found by an independent review.
func TestLiveMarkFIFOIsNoWriter(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(liveMark(root, "1-abc"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan bool, 1)
	go func() {
		HasLeftovers(root)
		done <- Unsettled(root)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("opening a FIFO named as a live mark")
	}
}
