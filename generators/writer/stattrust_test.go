package writer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/filestat"
)

// TestHandEditKeepingItsStatIsNotOverwritten: found by an independent
// review. A hand edit that keeps the file's size, inode and mtime (an
// in-place write with the mtime put back, as touch -r, cp -p or a coarse
// clock leave it) looks untouched to every stat, the gen cache's
// included. A stat may spare the writer reading or writing a file, never
// decide that one may be overwritten: the bytes about to be replaced are
// fingerprinted, and the edit is reported.
func TestHandEditKeepingItsStatIsNotOverwritten(t *testing.T) {
	root := t.TempDir()
	apply(t, root, set(plain("a.txt", "hello\n")))
	full := filepath.Join(root, "a.txt")
	vouched := map[string]filestat.Stat{}
	for _, p := range []string{"a.txt", ManifestName} {
		st, ok := filestat.Of(filepath.Join(root, p))
		if !ok {
			t.Fatal(p)
		}
		vouched[p] = st
	}
	fi, err := os.Stat(full)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(full, os.O_WRONLY, 0) // in place: the same inode
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("HELLO\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(full, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if st, _ := filestat.Of(full); st != vouched["a.txt"] {
		t.Skipf("this file system did not keep the edited file's stat (%+v, was %+v): nothing to test", st, vouched["a.txt"])
	}
	var l diag.List
	PrepareWith(root, set(plain("a.txt", "world\n")), Options{Vouched: func(p string) (filestat.Stat, bool) { st, ok := vouched[p]; return st, ok }}, &l)
	if !strings.Contains(diagText(&l), "[generated-edited]") {
		t.Fatalf("a hand edit that kept its stat would be overwritten: %v", l.Sorted())
	}
}

// TestSymlinkedDirectoryStaysRefused: found by an independent review. The
// writer remembers the directories it looked at, and trusts a file's
// directory once it was found one (pathChecker.parentOK): looking for the
// topmost missing directory must not remember the directories below a
// refused one (a symlink), or a later check would take a path through it.
func TestSymlinkedDirectoryStaysRefused(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(elsewhere, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(elsewhere, "b", "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, "a")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	c := newPathChecker(root)
	if _, err := c.check("a/b/x"); err == nil {
		t.Fatal("a path through a symlinked directory was taken")
	}
	c = newPathChecker(root)
	c.topMissing("a/b/c")
	if _, err := c.check("a/b/x"); err == nil {
		t.Fatal("after looking for a missing directory below it, a path through a symlinked directory was taken")
	}
}
