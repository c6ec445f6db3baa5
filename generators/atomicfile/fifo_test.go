//go:build unix

package atomicfile

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestWriteOverFIFO: Write compares with what path holds only when it is a
// regular file, so a FIFO there cannot hang it (opening one to read waits
// for a writer); the FIFO is replaced.
func TestWriteOverFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	if _, err := ReadRegular(path); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("ReadRegular of a FIFO: %v, want ErrNotRegular", err)
	}
	if _, err := MapRegular(path); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("MapRegular of a FIFO: %v, want ErrNotRegular", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Write(path, []byte("data"), 0o644)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Write is opening the FIFO")
	}
	if got, err := ReadRegular(path); err != nil || string(got) != "data" {
		t.Fatalf("after Write: %q, %v", got, err)
	}
}
