package writer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
)

// TestLookAheadDirSwappedForSymlink: found by an independent review. A
// directory a kept file lies in, swapped for a symlink after the look
// ahead and before the plan: the plan still refuses to write through the
// link, as it does without a LookAhead (the looks serve the kept files
// only; the plan checks the directories of what it writes).
func TestLookAheadDirSwappedForSymlink(t *testing.T) {
	for _, withAhead := range []bool{false, true} {
		base := t.TempDir()
		root := filepath.Join(base, "out")
		elsewhere := filepath.Join(base, "elsewhere")
		if err := os.MkdirAll(elsewhere, 0o755); err != nil {
			t.Fatal(err)
		}
		apply(t, root, set(plain("d/a.txt", "hello\n"), plain("d/b.txt", "world\n")))
		o := vouchedNow(t, root, "d/a.txt", "d/b.txt", ManifestName)
		if withAhead {
			o.LookAhead = NewLookAhead(root)
			o.LookAhead.Look([]string{"d/a.txt"}) // gen: after Reusable, while the targets render
		}
		// While the targets render, out/d becomes a link to a directory
		// outside out/ (same files, same inodes).
		if err := os.Rename(filepath.Join(root, "d"), filepath.Join(elsewhere, "d")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(elsewhere, "d"), filepath.Join(root, "d")); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
		fresh := set(&fileset.File{Path: "d/a.txt", Kept: true}, plain("d/b.txt", "changed\n"), plain("d/c.txt", "new\n"))
		var l diag.List
		p := PrepareWith(root, fresh, o, &l)
		if l.HasErrors() {
			continue // refused, as it must be
		}
		if _, err := Apply(p); err != nil {
			t.Logf("withAhead=%v: apply: %v", withAhead, err)
		}
		got, _ := os.ReadFile(filepath.Join(elsewhere, "d", "b.txt"))
		_, cerr := os.Stat(filepath.Join(elsewhere, "d", "c.txt"))
		t.Errorf("withAhead=%v: the plan took a symlinked directory; outside out/: b.txt=%q, c.txt written=%v", withAhead, got, cerr == nil)
	}
}

// TestLookAheadDirRemovedMidGen: found by an independent review. A
// directory of kept files removed while the targets render: the files the
// plan writes there are written (the plan checks their directory itself,
// not from the look ahead), with or without a LookAhead.
func TestLookAheadDirRemovedMidGen(t *testing.T) {
	for _, withAhead := range []bool{false, true} {
		root := filepath.Join(t.TempDir(), "out")
		apply(t, root, set(plain("d/a.txt", "hello\n"), plain("d/b.txt", "world\n")))
		o := vouchedNow(t, root, "d/a.txt", "d/b.txt", ManifestName)
		if withAhead {
			o.LookAhead = NewLookAhead(root)
			o.LookAhead.Look([]string{"d/a.txt"})
		}
		if err := os.RemoveAll(filepath.Join(root, "d")); err != nil {
			t.Fatal(err)
		}
		fresh := set(&fileset.File{Path: "d/a.txt", Kept: true}, plain("d/b.txt", "changed\n"))
		var l diag.List
		p := PrepareWith(root, fresh, o, &l)
		if l.HasErrors() {
			t.Fatalf("withAhead=%v: %v", withAhead, l.Sorted())
		}
		if _, err := Apply(p); err != nil {
			t.Fatalf("withAhead=%v: apply: %v", withAhead, err)
		}
		if got, err := os.ReadFile(filepath.Join(root, "d", "b.txt")); err != nil || string(got) != "changed\n" {
			t.Fatalf("withAhead=%v: d/b.txt after apply: %q, %v", withAhead, got, err)
		}
	}
}
