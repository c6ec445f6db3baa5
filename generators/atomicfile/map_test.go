package atomicfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestMapRegular: a file below MapMin and one above it read back whole,
// an empty one as empty; a directory is refused as ReadRegular refuses it.
// The mapped bytes stay what they were when the file is appended to and
// then replaced by a rename, the only ways a gen changes a store it
// mapped.
func TestMapRegular(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, int(MapMin) - 1, int(MapMin), 3*int(MapMin) + 17} {
		data := bytes.Repeat([]byte("opforge\n"), size/8+1)[:size]
		path := filepath.Join(dir, "store")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := MapRegular(path)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: got %d bytes, %v", size, len(got), err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("appended")); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if _, err := Write(path, []byte("replaced"), 0o644); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: changed by an append and a replace", size)
		}
	}
	if _, err := MapRegular(dir); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("a directory: %v, want ErrNotRegular", err)
	}
	if _, err := MapRegular(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no file: %v, want ErrNotExist", err)
	}
}
