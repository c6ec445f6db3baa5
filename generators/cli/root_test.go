package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// initRepo makes an op repository with init and gen in a new folder and
// returns its root.
func initRepo(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo")
	if code, out, errs := run("init", root); code != 0 {
		t.Fatalf("init: %d\n%s%s", code, out, errs)
	}
	t.Chdir(root)
	if code, out, errs := run("gen"); code != 0 {
		t.Fatalf("gen: %d\n%s%s", code, out, errs)
	}
	return root
}

// tree lists every file below dir with its bytes.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCommandsFindTheRoot: gen, check, mv, validate and verify run in a
// folder below an op repository's root work on the repository (the same
// bytes as at the root, nothing written where the user stands), and name
// files as they read from there.
func TestCommandsFindTheRoot(t *testing.T) {
	root := initRepo(t)
	atRoot := tree(t, filepath.Join(root, "out"))
	nested := filepath.Join(root, "opdefs", "my_ops")
	t.Chdir(nested)
	if code, out, errs := run("gen", "--full"); code != 0 || !strings.Contains(out, "in ../../out: 0 written") {
		t.Errorf("gen in opdefs/my_ops: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run("check"); code != 0 || !strings.Contains(errs, "opforge check: ../../opdefs and 26 generated files in ../../out: 0 error(s), 0 warning(s)") {
		t.Errorf("check in opdefs/my_ops: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run("validate"); code != 0 || !strings.Contains(errs, "1 file(s)") {
		t.Errorf("validate in opdefs/my_ops: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run("mv", "ScaledSiLU", "ScaledGELU"); code != 0 {
		t.Errorf("mv in opdefs/my_ops: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run("mv", "op", "ScaledGELU", "ScaledSiLU"); code != 0 {
		t.Errorf("mv op back in opdefs/my_ops: %d\n%s%s", code, out, errs)
	}
	if got := tree(t, filepath.Join(root, "out")); !equalTrees(got, atRoot) {
		t.Errorf("gen and two renames from opdefs/my_ops left another out/ than gen at the root")
	}
	if entries, _ := os.ReadDir(nested); len(entries) != 1 {
		t.Errorf("commands wrote into opdefs/my_ops: %v", entries)
	}
	// A diagnostic names the file from here.
	yaml := filepath.Join(nested, "my_ops.yaml")
	data, _ := os.ReadFile(yaml)
	if err := os.WriteFile(yaml, []byte(strings.Replace(string(data), "{name: y, type: T, shape: [N, C, H, W]}", "{name: y, type: T, shape: [N, Q, H, W]}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check"}, {"verify", "--python", "/nonexistent"}} {
		code, _, errs := run(args...)
		if code != 1 || !strings.Contains(errs, "\n../../opdefs/my_ops/my_ops.yaml:") && !strings.HasPrefix(errs, "../../opdefs/my_ops/my_ops.yaml:") {
			t.Errorf("%s after a bad edit: %d\n%s", args[0], code, errs)
		}
	}
	if wd, _ := os.Getwd(); wd != nested {
		t.Errorf("the working directory is %s after verify, not %s", wd, nested)
	}
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestBuildFromAFolderBelowTheRoot: build run below the root builds at the
// root (so it says, the way make does), and is the same build: run again
// at the root, every unit is up to date.
func TestBuildFromAFolderBelowTheRoot(t *testing.T) {
	root := initRepo(t)
	occ := filepath.Join(t.TempDir(), "aipuocc")
	body := "#!/bin/sh\nout=''; prev=''\nfor a in \"$@\"; do if [ \"$prev\" = -o ]; then out=$a; fi; prev=$a; done\necho object > \"$out\"\n"
	if err := os.WriteFile(occ, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AIPUOCC", occ)
	t.Setenv("OPFORGE_COMPILER_LAUNCHER", "")
	nested := filepath.Join(root, "out", "aipu")
	t.Chdir(nested)
	code, out, errs := run("build", "aipu", "--jobs", "2")
	if code != 0 || !strings.Contains(out, "opforge: Entering directory '"+root+"'\n") || !strings.Contains(out, "8 built") || !strings.HasSuffix(out, "opforge: Leaving directory '"+root+"'\n") {
		t.Fatalf("build aipu in out/aipu: %d\n%s%s", code, out, errs)
	}
	if wd, _ := os.Getwd(); wd != nested {
		t.Errorf("the working directory is %s after build, not %s", wd, nested)
	}
	if _, err := os.Stat(filepath.Join(root, "build", "aipu", ".opforge-build.json")); err != nil {
		t.Errorf("no build state in the root's build/: %v", err)
	}
	if _, err := os.Stat(filepath.Join(nested, "build")); err == nil {
		t.Errorf("build wrote a build/ below out/aipu")
	}
	t.Chdir(root)
	if code, out, errs := run("build", "aipu"); code != 0 || !strings.Contains(out, "0 built, 8 up to date") || strings.Contains(out, "Entering") {
		t.Errorf("build aipu at the root after a build in out/aipu: %d\n%s%s", code, out, errs)
	}
}

// outsideAnyRepository is a new folder no op repository holds, or a skip
// where one above the temporary directory does.
func outsideAnyRepository(t *testing.T) string {
	dir := t.TempDir()
	if root, _, found := findRoot(dir); found {
		t.Skipf("%s holds opdefs/, so no folder below it is outside an op repository", root)
	}
	return dir
}

// TestOutsideAnyRepository: outside an op repository the commands that
// need one stop (exit 1), saying where they looked, and write nothing.
func TestOutsideAnyRepository(t *testing.T) {
	dir := outsideAnyRepository(t)
	t.Chdir(dir)
	for _, args := range [][]string{
		{"gen"}, {"check"}, {"mv", "A", "B"}, {"build", "trt"}, {"verify"},
		{"gen", "--out", "out"}, // --opdefs missing still
	} {
		code, out, errs := run(args...)
		if code != 1 || !strings.Contains(errs, "not in an op repository: no opdefs/ folder") || !strings.Contains(errs, "looked in "+dir) ||
			!strings.Contains(errs, "opforge init") {
			t.Errorf("%v outside a repository: %d\n%s%s", args, code, out, errs)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Fatalf("%v outside a repository wrote %v", args, entries)
		}
	}
}

// TestExplicitFolders: --opdefs and --out name folders relative to the
// working directory, inside an op repository or outside any; outside, the
// gen cache goes to build/ beside --out (the repository writer assumes).
func TestExplicitFolders(t *testing.T) {
	dir := outsideAnyRepository(t)
	if code, out, errs := run("init", filepath.Join(dir, "r")); code != 0 {
		t.Fatalf("init: %d\n%s%s", code, out, errs)
	}
	t.Chdir(dir)
	flags := []string{"--opdefs", "r/opdefs", "--out", "r/out"}
	if code, out, errs := run(append([]string{"gen"}, flags...)...); code != 0 || !strings.Contains(out, "files in r/out:") {
		t.Fatalf("gen with both folders named: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run(append([]string{"check"}, flags...)...); code != 0 {
		t.Errorf("check with both folders named: %d\n%s%s", code, out, errs)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("gen outside a repository wrote beside r/: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(dir, "r", "build", ".opforge-gen-cache")); err != nil {
		t.Errorf("no gen cache beside --out: %v", err)
	}
	// Inside the repository, a named folder is still the working
	// directory's: here, out/ named from opdefs/my_ops.
	t.Chdir(filepath.Join(dir, "r", "opdefs", "my_ops"))
	if code, out, errs := run("check", "--out", "../../out"); code != 0 || !strings.Contains(errs, "in ../../out: 0 error(s)") {
		t.Errorf("check --out ../../out in opdefs/my_ops: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run("check", "--opdefs", "nowhere"); code != 1 || !strings.Contains(errs, "--opdefs nowhere: no such folder") {
		t.Errorf("check --opdefs nowhere: %d\n%s%s", code, out, errs)
	}
}

func TestLookedIn(t *testing.T) {
	for _, c := range []struct {
		dirs []string
		want string
	}{
		{[]string{"/a/b", "/a", "/"}, "/a/b, /a, /"},
		{[]string{"/a/b/c/d", "/a/b/c", "/a/b", "/a", "/"}, "/a/b/c/d, /a/b/c, ... /: 5 folders"},
	} {
		if got := lookedIn(c.dirs); got != c.want {
			t.Errorf("lookedIn(%v) = %q, want %q", c.dirs, got, c.want)
		}
	}
}

func TestFromRoot(t *testing.T) {
	for _, c := range []struct{ cwd, path, want string }{
		{"/r/opdefs/x", "../../out", "out"},
		{"/r/opdefs/x", "/elsewhere/out", "/elsewhere/out"},
		{"/r/opdefs/x", "../../../other", "/other"},
		{"/r", "out", "out"},
	} {
		if got := fromRoot("/r", c.cwd, c.path); got != c.want {
			t.Errorf("fromRoot(/r, %s, %s) = %q, want %q", c.cwd, c.path, got, c.want)
		}
	}
}
