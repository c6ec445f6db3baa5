package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeedsABinary: without an opforge binary to time, the bench says how
// to get one and measures nothing.
func TestNeedsABinary(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"--opforge", filepath.Join(t.TempDir(), "opforge")}, &out, &errs)
	if code != 2 || out.Len() != 0 || !strings.Contains(errs.String(), "go build -o build/opforge ./generators/cmd/opforge") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errs.String())
	}
	if code := run([]string{"extra"}, &out, &errs); code != 2 {
		t.Errorf("a positional argument: exit %d, want 2", code)
	}
}

// TestInstalledIsACopy: the binary timed is a copy of the one given, with
// its bytes and an executable mode, in the bench's folder.
func TestInstalledIsACopy(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "opforge")
	want := bytes.Repeat([]byte("\x7fELF opforge "), 100000)
	if err := os.WriteFile(src, want, 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := installed(src, work)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(got) != work {
		t.Errorf("copied to %s, not into %s", got, work)
	}
	data, err := os.ReadFile(got)
	if err != nil || !bytes.Equal(data, want) {
		t.Fatalf("the copy holds %d bytes (%v), not the binary's %d", len(data), err, len(want))
	}
	if fi, err := os.Stat(got); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("the copy is not executable: %v %v", fi.Mode(), err)
	}
	if _, err := installed(src, work); err == nil {
		t.Error("a second copy over the first was made without a word")
	}
}
