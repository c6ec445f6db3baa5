//go:build unix

package load_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
)

// TestSpecialFiles: a FIFO named *.yaml in the opdefs tree is refused
// without being opened (opening it would block until a writer came), and
// so is a symlink to one; a symlink to a regular file is read.
func TestSpecialFiles(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.yaml"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.xml"), 0o644); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile("../../testdata/diagnostics/shape-values/ops.yaml")
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(t.TempDir(), "real.yaml")
	os.WriteFile(real, good, 0o644)
	os.Symlink(real, filepath.Join(root, "link.yaml"))
	os.Symlink("pipe.yaml", filepath.Join(root, "link-pipe.yml"))
	os.Symlink("link.yaml", filepath.Join(root, "link-link.yaml"))

	done := make(chan *diag.List, 1)
	go func() {
		var l diag.List
		load.Tree(root, &l)
		done <- &l
	}()
	var l *diag.List
	select {
	case l = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("loading a tree with a FIFO hangs")
	}
	byFile := map[string][]string{}
	for _, d := range l.Sorted() {
		byFile[filepath.Base(d.Pos.File)] = append(byFile[filepath.Base(d.Pos.File)], d.String())
	}
	for _, f := range []string{"pipe.yaml", "pipe.xml", "link-pipe.yml", "link-link.yaml"} {
		ds := byFile[f]
		if len(ds) != 1 || !strings.Contains(ds[0], ":1:1: error: ") || !strings.HasSuffix(ds[0], "[not-regular-file]") {
			t.Errorf("%s: diagnostics %q, want one not-regular-file error at 1:1", f, ds)
		}
	}
	if ds := byFile["link.yaml"]; len(ds) == 0 || strings.Contains(strings.Join(ds, "\n"), "not-regular-file") {
		t.Errorf("link.yaml (a symlink to a regular file) was not read: %q", ds)
	}
}
