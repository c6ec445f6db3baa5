package writer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/filestat"
)

func set(files ...*fileset.File) *fileset.Set {
	s := fileset.New()
	for _, f := range files {
		if err := s.Add(f); err != nil {
			panic(err)
		}
	}
	return s
}

func owned(path, body string) *fileset.File {
	return &fileset.File{Path: path, Owned: true, Data: []byte("// header\nint f() {\n  // opforge:begin impl\n" + body + "  // opforge:end impl\n}\n")}
}

func plain(path, data string) *fileset.File { return &fileset.File{Path: path, Data: []byte(data)} }

// vouchedNow is Options whose Vouched answers, for each of paths below
// root, the stat it has now: as the gen cache vouches for a tree the
// last gen left untouched.
func vouchedNow(t *testing.T, root string, paths ...string) Options {
	t.Helper()
	vouched := map[string]filestat.Stat{}
	for _, p := range paths {
		st, ok := filestat.Of(filepath.Join(root, p))
		if !ok {
			t.Fatal(p)
		}
		vouched[p] = st
	}
	return Options{Vouched: func(p string) (filestat.Stat, bool) { st, ok := vouched[p]; return st, ok }}
}

func apply(t *testing.T, root string, s *fileset.Set) (*diag.List, Stats) {
	t.Helper()
	var l diag.List
	p := Prepare(root, s, &l)
	if l.HasErrors() {
		return &l, Stats{}
	}
	st, err := Apply(p)
	if err != nil {
		t.Fatal(err)
	}
	return &l, st
}

func read(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// snapshot maps every file under root to its bytes and mtime.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			m[p] = string(b) + "@" + info.ModTime().String()
		}
		return nil
	})
	return m
}

func TestWriteOnlyChangedAndRemoveStale(t *testing.T) {
	root := t.TempDir()
	_, st := apply(t, root, set(plain("a/x.txt", "x"), plain("a/y.txt", "y"), plain("b/z.txt", "z")))
	if st.Written != 4 { // three files and the manifest
		t.Fatalf("first run wrote %d files", st.Written)
	}
	old := time.Now().Add(-time.Hour)
	_ = os.Chtimes(filepath.Join(root, "a/x.txt"), old, old)
	_, st = apply(t, root, set(plain("a/x.txt", "x"), plain("a/y.txt", "y2")))
	if st.Written != 2 || st.Unchanged != 1 || st.Removed != 1 {
		t.Errorf("second run: %+v, want y and the manifest written, x unchanged, z removed", st)
	}
	if info, _ := os.Stat(filepath.Join(root, "a/x.txt")); !info.ModTime().Equal(old) {
		t.Errorf("unchanged file was rewritten (mtime moved)")
	}
	if _, err := os.Stat(filepath.Join(root, "b")); !os.IsNotExist(err) {
		t.Errorf("empty directory of the stale file is left behind")
	}
}

func TestUserCodeSurvivesRegeneration(t *testing.T) {
	root := t.TempDir()
	apply(t, root, set(owned("op.cpp", "  return 0;\n")))
	path := filepath.Join(root, "op.cpp")
	edited := strings.Replace(read(t, path), "  return 0;\n", "  int v = compute();\n  return v;\n", 1)
	_ = os.WriteFile(path, []byte(edited), 0o644)
	// The skeleton around the region changes (a new header line and signature).
	next := &fileset.File{Path: "op.cpp", Owned: true, Data: []byte("// header v2\nint f(int extra) {\n  // opforge:begin impl\n  return 0;\n  // opforge:end impl\n}\n")}
	if l, _ := apply(t, root, set(next)); l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	got := read(t, path)
	want := "// header v2\nint f(int extra) {\n  // opforge:begin impl\n  int v = compute();\n  return v;\n  // opforge:end impl\n}\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestPrepareLeavesFreshAlone: the plan holds new values; the generator's
// file set keeps its skeletons, whatever Prepare merged.
func TestPrepareLeavesFreshAlone(t *testing.T) {
	root := t.TempDir()
	apply(t, root, set(owned("op.cpp", "  return 0;\n")))
	path := filepath.Join(root, "op.cpp")
	_ = os.WriteFile(path, []byte(strings.Replace(read(t, path), "  return 0;\n", "  return 1;\n", 1)), 0o644)
	skeleton := owned("op.cpp", "  return 0;\n")
	want := *skeleton
	want.Data = append([]byte(nil), skeleton.Data...)
	fresh := set(skeleton)
	var l diag.List
	p := Prepare(root, fresh, &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	if got := p.Files.Get("op.cpp"); got == skeleton || !strings.Contains(string(got.Data), "return 1;") {
		t.Errorf("the plan's file is the generator's or lacks the user's region: %q", got.Data)
	}
	if got := fresh.Get("op.cpp"); got != skeleton || string(got.Data) != string(want.Data) || got.Owned != want.Owned || got.Path != want.Path {
		t.Errorf("Prepare changed the generator's file: %q", got.Data)
	}
	if fresh.Get(ManifestName) != nil || len(fresh.Files()) != 1 {
		t.Errorf("Prepare added to the generator's set: %d files", len(fresh.Files()))
	}
}

func TestErrorsWriteNothing(t *testing.T) {
	cases := []struct {
		name  string
		setup func(root string)
		next  *fileset.Set
		code  string
		says  string // in the message, when set
	}{
		{
			name: "broken markers",
			setup: func(root string) {
				p := filepath.Join(root, "op.cpp")
				_ = os.WriteFile(p, []byte(strings.Replace(read(nil, p), "  // opforge:end impl\n", "", 1)), 0o644)
			},
			next: set(owned("op.cpp", "  return 1;\n"), plain("new.txt", "n")),
			code: "user-region-markers",
		},
		{
			name: "region with no place",
			setup: func(root string) {
				p := filepath.Join(root, "op.cpp")
				_ = os.WriteFile(p, []byte(strings.Replace(read(nil, p), "  return 0;\n", "  keep_me();\n", 1)), 0o644)
			},
			next: set(&fileset.File{Path: "op.cpp", Owned: true, Data: []byte("// opforge:begin kernel\n// opforge:end kernel\n")}, plain("new.txt", "n")),
			code: "user-region-orphan",
		},
		{
			name: "region moved to another file",
			setup: func(root string) {
				p := filepath.Join(root, "op.cpp")
				_ = os.WriteFile(p, []byte(strings.Replace(read(nil, p), "  return 0;\n", "  keep_me();\n", 1)), 0o644)
			},
			next: set(&fileset.File{Path: "op.cpp", Owned: true, Data: []byte("// opforge:begin kernel\n// opforge:end kernel\n"),
				Moved: map[string]string{"impl": "its code belongs in region impl of other.cpp now"}}),
			code: "user-region-orphan",
			says: `no longer has a region "impl": its code belongs in region impl of other.cpp now; move the code there`,
		},
		{
			name: "stale file with user code",
			setup: func(root string) {
				p := filepath.Join(root, "op.cpp")
				_ = os.WriteFile(p, []byte(strings.Replace(read(nil, p), "  return 0;\n", "  keep_me();\n", 1)), 0o644)
			},
			next: set(plain("new.txt", "n")),
			code: "user-code-stale",
		},
		{
			name: "symlink in the way",
			setup: func(root string) {
				_ = os.Symlink(os.TempDir(), filepath.Join(root, "link"))
			},
			next: set(owned("op.cpp", "  return 0;\n"), plain("link/evil.txt", "x")),
			code: "unsafe-path",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			apply(t, root, set(owned("op.cpp", "  return 0;\n")))
			c.setup(root)
			before := snapshot(t, root)
			l, _ := apply(t, root, c.next)
			if !l.HasErrors() {
				t.Fatal("no error")
			}
			found := false
			for _, d := range l.Sorted() {
				found = found || d.Code == c.code && strings.Contains(d.Message, c.says)
			}
			if !found {
				t.Errorf("codes %v, want %s", l.Sorted(), c.code)
			}
			after := snapshot(t, root)
			if len(before) != len(after) {
				t.Fatalf("files changed: %d before, %d after", len(before), len(after))
			}
			for p, v := range before {
				if after[p] != v {
					t.Errorf("%s changed although an error was found", p)
				}
			}
		})
	}
}

func TestDrift(t *testing.T) {
	root := t.TempDir()
	files := func() *fileset.Set { return set(plain("a.txt", "a\nb\n"), owned("op.cpp", "  return 0;\n")) }
	apply(t, root, files())
	check := func() []string {
		var l diag.List
		Diff(Prepare(root, files(), &l), &l)
		var out []string
		for _, d := range l.Sorted() {
			out = append(out, d.Code+" "+filepath.Base(d.Pos.File))
		}
		return out
	}
	if got := check(); len(got) != 0 {
		t.Fatalf("fresh tree drifts: %v", got)
	}
	// User code inside a region is not drift.
	p := filepath.Join(root, "op.cpp")
	_ = os.WriteFile(p, []byte(strings.Replace(read(t, p), "return 0;", "return 42;", 1)), 0o644)
	if got := check(); len(got) != 0 {
		t.Fatalf("user region edit reported as drift: %v", got)
	}
	// Build and import artifacts beside the sources are not drift.
	_ = os.MkdirAll(filepath.Join(root, "pkg", "build", "x86"), 0o755)
	_ = os.WriteFile(filepath.Join(root, "pkg", "build", "x86", "lib.so"), []byte("elf"), 0o644)
	_ = os.MkdirAll(filepath.Join(root, "pkg", "__pycache__"), 0o755)
	_ = os.WriteFile(filepath.Join(root, "pkg", "__pycache__", "m.cpython-311.pyc"), []byte("pyc"), 0o644)
	if got := check(); len(got) != 0 {
		t.Fatalf("artifacts reported as drift: %v", got)
	}
	_ = os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\nB\n"), 0o644)
	_ = os.WriteFile(filepath.Join(root, "untracked.txt"), []byte("?"), 0o644)
	_ = os.Remove(filepath.Join(root, ManifestName))
	got := strings.Join(check(), ",")
	for _, want := range []string{"drift-changed a.txt", "drift-extra untracked.txt", "drift-missing " + ManifestName} {
		if !strings.Contains(got, want) {
			t.Errorf("drift %q lacks %q", got, want)
		}
	}
}

// listAll returns every path under root, directories with a trailing slash.
func listAll(t *testing.T, root string) []string {
	t.Helper()
	var all []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		r, _ := filepath.Rel(root, p)
		if d.IsDir() {
			r += "/"
		}
		all = append(all, filepath.ToSlash(r))
		return nil
	})
	return all
}

// New directories are staged and renamed into place; files in existing
// directories are created beside their siblings. Either way no staging
// directory or temporary file is left, and every byte arrives.
func TestNewDirectoriesAreStaged(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "old", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := set(
		plain("old/deep/a.txt", "a"),       // parent exists
		plain("old/deep/new/b.txt", "b"),   // below a new directory in an old one
		plain("old/deep/new/c/d.txt", "d"), // same staged tree, nested
		plain("fresh/x/y/z.txt", "z"),      // a new top-level tree
		plain("top.txt", "t"),              // in the root itself
	)
	_, st := apply(t, root, files)
	if st.Written != 6 {
		t.Fatalf("wrote %d files, want 5 and the manifest", st.Written)
	}
	want := []string{"fresh/", "fresh/x/", "fresh/x/y/", "fresh/x/y/z.txt", "old/", "old/deep/", "old/deep/a.txt",
		"old/deep/new/", "old/deep/new/b.txt", "old/deep/new/c/", "old/deep/new/c/d.txt", "opforge.manifest.json", "top.txt"}
	if got := listAll(t, root); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("tree:\n got %v\nwant %v", got, want)
	}
	for _, f := range files.Files() {
		if got := read(t, filepath.Join(root, f.Path)); got != string(f.Data) {
			t.Errorf("%s holds %q, want %q", f.Path, got, f.Data)
		}
	}
}

// A write that fails (here: a name longer than any file system allows)
// leaves no staging directory behind and the old tree as it was.
func TestFailedStagingLeavesNothing(t *testing.T) {
	root := t.TempDir()
	_, _ = apply(t, root, set(plain("keep/a.txt", "a")))
	before := listAll(t, root)
	var l diag.List
	p := Prepare(root, set(plain("keep/a.txt", "a"), plain("new/b.txt", "b"), plain("new/"+strings.Repeat("n", 300), "c")), &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	if _, err := Apply(p); err == nil {
		t.Fatal("Apply of an impossible name succeeded")
	}
	if got := listAll(t, root); strings.Join(got, " ") != strings.Join(before, " ") {
		t.Errorf("tree after a failed Apply:\n got %v\nwant %v", got, before)
	}
}

// TestUserSources: assembly a user adds in an <arch>_asm directory is
// theirs (the generated HTP build picks it up), not drift; nothing else is.
func TestUserSources(t *testing.T) {
	for path, want := range map[string]bool{
		"htp/Pkg/src/ops/v73_asm/fast.S":     true,
		"htp/Pkg/src/ops/x86_asm/k.S":        true,
		"htp/Pkg/src/ops/android_asm/k.S":    true,
		"htp/Pkg/src/ops/fast.S":             false,
		"htp/Pkg/src/ops/v73_asm/helper.cpp": false,
		"htp/Pkg/src/ops/v73_asm":            false,
	} {
		if got := IsUserSource(path); got != want {
			t.Errorf("IsUserSource(%s) = %v, want %v", path, got, want)
		}
	}
}
