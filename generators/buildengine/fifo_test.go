//go:build unix

package buildengine

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStateSkipsFIFO: a FIFO where the build state lies is not read (the
// read would wait for a writer forever): the build starts from no state.
func TestStateSkipsFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan *state, 1)
	go func() { done <- loadState(path) }()
	select {
	case st := <-done:
		if len(st.Outputs) != 0 || len(st.Files) != 0 {
			t.Fatalf("state from a FIFO: %+v", st)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("loadState is reading a FIFO")
	}
}

// TestInputFIFOIsNotRead: a FIFO among a unit's inputs is not opened to
// hash it (which would wait for a writer forever): its hash stays unknown.
// Found by an independent review.
func TestInputFIFOIsNotRead(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "input.h")
	if err := syscall.Mkfifo(input, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan string, 1)
	go func() { done <- loadState(filepath.Join(dir, "state.json")).fileHash(input) }()
	select {
	case h := <-done:
		if h != "-" {
			t.Fatalf("a FIFO input hashed as %q, want unknown (-)", h)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("fileHash is reading a FIFO")
	}
}
