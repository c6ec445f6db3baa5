package writer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
)

// tree maps every entry under root to its bytes and mode (directories
// included), mtimes left out: what the user sees of the tree.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		r, _ := filepath.Rel(root, p)
		fi, _ := d.Info()
		if d.IsDir() {
			m[r+"/"] = fi.Mode().String()
			return nil
		}
		b, _ := os.ReadFile(p)
		m[r] = fi.Mode().String() + " " + string(b)
		return nil
	})
	return m
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for p, v := range want {
		if got[p] != v {
			t.Errorf("%s: %s is %q, want %q", what, p, got[p], v)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: extra %s", what, p)
		}
	}
}

// scenario is a tree made by one generation and edited by the user, and
// the next generation, which replaces, creates (in an existing and in a
// new directory), removes stale files and rewrites the manifest.
func scenario(t *testing.T) (root string, next func() *fileset.Set) {
	t.Helper()
	root = t.TempDir()
	if l, _ := apply(t, root, set(owned("pkg/op.cpp", "  return 0;\n"), plain("pkg/gen.txt", "g1\n"), plain("old/stale.txt", "s\n"), owned("old/stale.cpp", "  return 0;\n"))); l.HasErrors() {
		t.Fatal(diagText(l))
	}
	p := filepath.Join(root, "pkg/op.cpp")
	writeFile(t, p, strings.Replace(read(t, p), "  return 0;\n", "  return mine();\n", 1))
	_ = os.Chmod(filepath.Join(root, "pkg/gen.txt"), 0o600)
	return root, func() *fileset.Set {
		return set(&fileset.File{Path: "pkg/op.cpp", Owned: true, Data: []byte("// header v2\nint f(int x) {\n  // opforge:begin impl\n  return 0;\n  // opforge:end impl\n}\n")},
			plain("pkg/gen.txt", "g2\n"), plain("pkg/new.txt", "n\n"), plain("fresh/dir/x.txt", "x\n"))
	}
}

// withHook runs f with the Apply hook set, counting the changes it sees.
func withHook(fail func(n int, op, path string) error, f func()) int {
	var mu sync.Mutex
	n := 0
	hook = func(op, path string) error {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fail(n, op, path)
	}
	defer func() { hook = nil }()
	f()
	return n
}

func prepareApply(t *testing.T, root string, s *fileset.Set) error {
	t.Helper()
	var l diag.List
	p := Prepare(root, s, &l)
	if l.HasErrors() {
		t.Fatalf("prepare: %s", diagText(&l))
	}
	_, err := Apply(p)
	return err
}

// An I/O error at any change Apply makes leaves the tree exactly as it was
// (bytes, modes, no temporaries) and is an ApplyError naming the file.
func TestInjectedFailureRollsBack(t *testing.T) {
	_, next := scenario(t)
	root, _ := scenario(t)
	total := withHook(func(int, string, string) error { return nil }, func() {
		if err := prepareApply(t, root, next()); err != nil {
			t.Fatal(err)
		}
	})
	if total < 8 {
		t.Fatalf("only %d changes seen", total)
	}
	for k := 1; k <= total; k++ {
		root, next := scenario(t)
		before := tree(t, root)
		var failed string
		withHook(func(n int, op, path string) error {
			if n == k {
				failed = op + " " + path
				return syscall.EIO
			}
			return nil
		}, func() {
			err := prepareApply(t, root, next())
			if failed == "remove "+PendingName {
				// The manifest is in place: the gen is done, and a journal
				// it failed to remove only repeats the manifest.
				if err != nil {
					t.Errorf("gen failed on removing its journal: %v", err)
				}
				failed = "skip"
				return
			}
			var ae *ApplyError
			if !errors.As(err, &ae) || !errors.Is(err, syscall.EIO) || len(ae.NotRestored) > 0 {
				t.Errorf("failure at change %d (%s): error %v", k, failed, err)
			}
		})
		if failed != "skip" {
			sameTree(t, fmt.Sprintf("after a failure at change %d (%s)", k, failed), tree(t, root), before)
		}
	}
}

// A kill at any change Apply makes is finished by the next gen: the tree
// is then exactly what an uninterrupted gen makes, user code included.
func TestInjectedKillConverges(t *testing.T) {
	want, next := scenario(t)
	if err := prepareApply(t, want, next()); err != nil {
		t.Fatal(err)
	}
	clean := tree(t, want)
	if !strings.Contains(clean["pkg/op.cpp"], "return mine();") {
		t.Fatalf("clean gen lost user code: %q", clean["pkg/op.cpp"])
	}
	for k := 1; ; k++ {
		root, next := scenario(t)
		killed := false
		withHook(func(n int, op, path string) error {
			if n == k {
				killed = true
				return errKilled
			}
			return nil
		}, func() { _ = prepareApply(t, root, next()) })
		if !killed {
			break // past the last change
		}
		var l diag.List
		p := Prepare(root, next(), &l)
		if l.HasErrors() {
			t.Errorf("gen after a kill at change %d: %s", k, diagText(&l))
			continue
		}
		if _, err := Apply(p); err != nil {
			t.Fatalf("gen after a kill at change %d: %v", k, err)
		}
		sameTree(t, fmt.Sprintf("after a kill at change %d", k), tree(t, root), clean)
	}
}

// A file that cannot be read (I/O error, permission) stops gen: replacing
// it would drop its user regions; removing it as stale would too.
func TestReadErrorStopsGen(t *testing.T) {
	for _, victim := range []string{"pkg/op.cpp", "pkg/gen.txt", "old/stale.cpp"} {
		t.Run(victim, func(t *testing.T) {
			root, next := scenario(t)
			before := snapshot(t, root)
			readFile0 := readFile
			readFile = func(name string) ([]byte, error) {
				if strings.HasSuffix(filepath.ToSlash(name), victim) {
					return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EIO}
				}
				return readFile0(name)
			}
			defer func() { readFile = readFile0 }()
			l, _ := apply(t, root, next())
			if !hasCode(l, "read") || !strings.Contains(diagText(l), victim+": error: ") {
				t.Errorf("no read error at %s:\n%s", victim, diagText(l))
			}
			after := snapshot(t, root)
			for p, v := range before {
				if after[p] != v {
					t.Errorf("%s changed although a file could not be read", p)
				}
			}
		})
	}
}

// --force overwrites hand edits outside regions, keeping region bodies.
func TestForceOverwritesHandEdits(t *testing.T) {
	root := t.TempDir()
	files := func() *fileset.Set { return set(owned("op.cpp", "  return 0;\n"), plain("gen.txt", "one\n")) }
	apply(t, root, files())
	p := filepath.Join(root, "op.cpp")
	writeFile(t, p, strings.Replace(read(t, p), "  return 0;\n", "  return mine();\n", 1)+"stray();\n")
	writeFile(t, filepath.Join(root, "gen.txt"), "edited\n")
	var l diag.List
	plan := PrepareWith(root, files(), Options{Force: true}, &l)
	if l.HasErrors() {
		t.Fatal(diagText(&l))
	}
	if _, err := Apply(plan); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); strings.Contains(got, "stray") || !strings.Contains(got, "return mine();") {
		t.Errorf("op.cpp after --force:\n%s", got)
	}
	if got := read(t, filepath.Join(root, "gen.txt")); got != "one\n" {
		t.Errorf("gen.txt after --force: %q", got)
	}
}

// A gen killed just before its manifest, then the opdefs reverted: the
// only change left is removing what the killed gen added, which only the
// journal names.
func TestKilledThenRevertedRemovesJournalFiles(t *testing.T) {
	root := t.TempDir()
	a := func() *fileset.Set { return set(plain("a.txt", "a\n")) }
	apply(t, root, a())
	want := tree(t, root)
	withHook(func(n int, op, path string) error {
		if op == "rename" && path == ManifestName {
			return errKilled
		}
		return nil
	}, func() { _ = prepareApply(t, root, set(plain("a.txt", "a\n"), plain("new/x.txt", "x\n"))) })
	if _, err := os.Stat(filepath.Join(root, "new/x.txt")); err != nil {
		t.Fatalf("the killed gen did not get as far as intended: %v", err)
	}
	if err := prepareApply(t, root, a()); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "after the reverted gen", tree(t, root), want)
}

// A version 1 manifest (no fingerprints) is still read: its files are
// regenerated as before, and the manifest becomes version 2.
func TestVersion1ManifestRead(t *testing.T) {
	root := t.TempDir()
	files := func() *fileset.Set { return set(owned("op.cpp", "  return 0;\n"), plain("gen.txt", "g\n")) }
	apply(t, root, files())
	p := filepath.Join(root, "op.cpp")
	writeFile(t, p, strings.Replace(read(t, p), "  return 0;\n", "  return mine();\n", 1))
	writeFile(t, filepath.Join(root, ManifestName), `{"version": 1, "files": [{"path": "gen.txt"}, {"path": "op.cpp", "owned": true, "regions": {"impl": "x"}}]}`)
	writeFile(t, filepath.Join(root, "gen.txt"), "old bytes\n")
	if l, _ := apply(t, root, files()); l.HasErrors() {
		t.Fatal(diagText(l))
	}
	if got := read(t, filepath.Join(root, "gen.txt")); got != "g\n" {
		t.Errorf("gen.txt: %q", got)
	}
	if !strings.Contains(read(t, p), "return mine();") {
		t.Error("user code lost")
	}
	m, err := ReadManifest(root)
	if err != nil || m.Version != 2 || m.Files[0].Hash == "" {
		t.Errorf("manifest after gen: %+v %v", m, err)
	}
}

// A file saved by someone else while gen runs (between Prepare and the
// rename over it, or created where gen creates one) is not overwritten:
// Apply backs out, every other file as it was, and says so.
func TestConcurrentEditNotOverwritten(t *testing.T) {
	for _, victim := range []string{"pkg/gen.txt", "pkg/new.txt", "fresh", "old/stale.txt"} {
		t.Run(victim, func(t *testing.T) {
			root, next := scenario(t)
			var err error
			withHook(func(n int, op, path string) error {
				if path == victim && (op == "rename" || op == "remove") {
					full := filepath.Join(root, victim)
					if victim == "fresh" {
						_ = os.Mkdir(full, 0o755)
						full = filepath.Join(full, "mine.txt")
					}
					writeFile(t, full, "saved by the user\n")
				}
				return nil
			}, func() { err = prepareApply(t, root, next()) })
			if !errors.Is(err, errChanged) {
				t.Fatalf("Apply over a concurrent edit: %v", err)
			}
			full := filepath.Join(root, victim)
			if victim == "fresh" {
				full = filepath.Join(full, "mine.txt")
			}
			if got := read(t, full); got != "saved by the user\n" {
				t.Errorf("%s holds %q", victim, got)
			}
			if got := read(t, filepath.Join(root, "pkg/op.cpp")); !strings.Contains(got, "int f() {") {
				t.Errorf("op.cpp not rolled back:\n%s", got)
			}
		})
	}
}
