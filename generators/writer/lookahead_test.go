package writer

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
)

// TestLookAheadIsTheWritersLook: a look at a kept file taken ahead
// (LookAhead.Look, which gen starts once its cache vouched for the file)
// is the plan's look at it: an edit before that look leaves the file
// unvouched, as one before the plan's own look did; the first plan takes
// the looks, and a second plan given the same LookAhead looks for itself.
func TestLookAheadIsTheWritersLook(t *testing.T) {
	root := t.TempDir()
	apply(t, root, set(plain("d/a.txt", "hello\n"), plain("d/b.txt", "world\n")))
	o := vouchedNow(t, root, "d/a.txt", "d/b.txt", ManifestName)
	kept := func() *fileset.Set {
		return set(&fileset.File{Path: "d/a.txt", Kept: true}, &fileset.File{Path: "d/b.txt", Kept: true})
	}
	edit := func(p string) {
		t.Helper()
		// Another size and mtime, whatever the clock's grain.
		if err := os.WriteFile(filepath.Join(root, p), []byte("edited by hand\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(filepath.Join(root, p), later, later); err != nil {
			t.Fatal(err)
		}
	}
	edit("d/b.txt") // after the cache vouched, before the look: unvouched
	o.LookAhead = NewLookAhead(root)
	o.LookAhead.Look([]string{"d/a.txt", "d/b.txt"})
	edit("d/a.txt") // after the look: the plan takes the look
	var l diag.List
	p := PrepareWith(root, kept(), o, &l)
	if l.HasErrors() || len(p.Unvouched) != 1 || p.Unvouched[0] != "d/b.txt" {
		t.Fatalf("first plan: unvouched %v (%v), want d/b.txt alone: the look taken ahead is the plan's", p.Unvouched, l.Sorted())
	}
	p = PrepareWith(root, kept(), o, &l)
	if len(p.Unvouched) != 2 {
		t.Fatalf("second plan with the same LookAhead: unvouched %v, want both (it looks for itself)", p.Unvouched)
	}
}

// TestLookAheadStatIsThePlansLook: Stat takes the look at a path no walk
// reached (or waits for the one taking it) and publishes it, so the plan
// keeps a file by the look the cache vouched by: an edit after Stat is
// not seen by this plan, as one after the plan's own look is not; a path
// never stated is looked at by the plan.
func TestLookAheadStatIsThePlansLook(t *testing.T) {
	root := t.TempDir()
	apply(t, root, set(plain("d/a.txt", "hello\n"), plain("d/b.txt", "world\n")))
	o := vouchedNow(t, root, "d/a.txt", "d/b.txt", ManifestName)
	o.LookAhead = NewLookAhead(root)
	if fi, err := o.LookAhead.Stat("d/a.txt"); err != nil || fi == nil || fi.Size() != 6 {
		t.Fatalf("Stat: %v, %v", fi, err)
	}
	for _, p := range []string{"d/a.txt", "d/b.txt"} {
		if err := os.WriteFile(filepath.Join(root, p), []byte("edited by hand\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(filepath.Join(root, p), later, later); err != nil {
			t.Fatal(err)
		}
	}
	var l diag.List
	p := PrepareWith(root, set(&fileset.File{Path: "d/a.txt", Kept: true}, &fileset.File{Path: "d/b.txt", Kept: true}), o, &l)
	if l.HasErrors() || len(p.Unvouched) != 1 || p.Unvouched[0] != "d/b.txt" {
		t.Fatalf("unvouched %v (%v), want d/b.txt alone: the look Stat took is the plan's", p.Unvouched, l.Sorted())
	}
}
