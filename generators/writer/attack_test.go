package writer

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/filelock"
	"github.com/opforge/opforge/generators/fileset"
)

// hasCode reports whether l holds an error with code.
func hasCode(l *diag.List, code string) bool {
	for _, d := range l.Sorted() {
		if d.Code == code && d.Severity == diag.Error {
			return true
		}
	}
	return false
}

func diagText(l *diag.List) string {
	var b strings.Builder
	_ = l.WriteText(&b)
	return b.String()
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every way the user's work can sit where gen is about to write stops gen
// with an error naming the place, and leaves the tree exactly as it was.
func TestUserWorkStopsGen(t *testing.T) {
	region := owned("op.cpp", "  return 0;\n")
	cases := []struct {
		name  string
		edit  func(t *testing.T, root string)
		code  string
		where string // file:line the diagnostic must name
		says  string // what the advice must say
	}{
		{
			name: "owned file unreadable (a directory in its place)",
			edit: func(t *testing.T, root string) {
				p := filepath.Join(root, "op.cpp")
				_ = os.Remove(p)
				_ = os.MkdirAll(filepath.Join(p, "x"), 0o755)
			},
			code: "unsafe-path", where: "op.cpp",
		},
		{
			name: "both markers of an edited region deleted",
			edit: func(t *testing.T, root string) {
				p := filepath.Join(root, "op.cpp")
				s := strings.Replace(read(t, p), "  return 0;\n", "  keep_me();\n", 1)
				s = strings.Replace(s, "  // opforge:begin impl\n", "", 1)
				writeFile(t, p, strings.Replace(s, "  // opforge:end impl\n", "", 1))
			},
			code: "generated-edited", where: "op.cpp:3", says: `user regions, "impl" (its opforge:begin/end markers are gone`,
		},
		{
			name: "code written just outside a region",
			edit: func(t *testing.T, root string) {
				p := filepath.Join(root, "op.cpp")
				writeFile(t, p, strings.Replace(read(t, p), "  // opforge:end impl\n", "  // opforge:end impl\n  outside();\n", 1))
			},
			code: "generated-edited", where: "op.cpp:6", says: `user regions, "impl" (line 3)`,
		},
		{
			name: "hand edit of a generated file",
			edit: func(t *testing.T, root string) {
				writeFile(t, filepath.Join(root, "gen.txt"), "one\nmine\nthree\n")
			},
			code: "generated-edited", where: "gen.txt:2", says: "this file has no user regions, so no edit of it survives regeneration: change the opdef",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			apply(t, root, set(region, plain("gen.txt", "one\ntwo\nthree\n")))
			c.edit(t, root)
			before := snapshot(t, root)
			// The same generated files: nothing changed but the user's edit.
			l, _ := apply(t, root, set(owned("op.cpp", "  return 0;\n"), plain("gen.txt", "one\ntwo\nthree\n")))
			if !hasCode(l, c.code) {
				t.Fatalf("diagnostics lack %s:\n%s", c.code, diagText(l))
			}
			if !strings.Contains(diagText(l), c.where) {
				t.Errorf("diagnostics do not name %s:\n%s", c.where, diagText(l))
			}
			if !strings.Contains(diagText(l), c.says) {
				t.Errorf("diagnostics do not say %q:\n%s", c.says, diagText(l))
			}
			after := snapshot(t, root)
			for p, v := range before {
				if after[p] != v {
					t.Errorf("%s changed although an error was found", p)
				}
			}
		})
	}
}

// A marker error in a file that is still generated must not advise deleting
// it as if it were stale: that advice, followed, deletes user code.
func TestMarkerErrorAdviceForGeneratedFile(t *testing.T) {
	root := t.TempDir()
	apply(t, root, set(owned("op.cpp", "  return 0;\n")))
	p := filepath.Join(root, "op.cpp")
	writeFile(t, p, strings.Replace(read(t, p), "  // opforge:end impl\n", "", 1))
	l, _ := apply(t, root, set(owned("op.cpp", "  return 0;\n")))
	text := diagText(l)
	if !hasCode(l, "user-region-markers") {
		t.Fatalf("no marker error:\n%s", text)
	}
	for _, bad := range []string{"no longer generated", "delete this one", "remove it by hand"} {
		if strings.Contains(text, bad) {
			t.Errorf("advice for a still generated file says %q:\n%s", bad, text)
		}
	}
}

// A manifest entry naming a file opforge never wrote (tampered, or merged
// badly) must not make gen delete that file.
func TestTamperedManifestDeletesNothing(t *testing.T) {
	root := t.TempDir()
	apply(t, root, set(plain("gen.txt", "g\n")))
	writeFile(t, filepath.Join(root, "mine.txt"), "my notes\n")
	mp := filepath.Join(root, ManifestName)
	writeFile(t, mp, strings.Replace(read(t, mp), `"files": [`, `"files": [{"path": "mine.txt"}, {"path": "mine2.txt", "hash": "0000000000000000"},`, 1))
	writeFile(t, filepath.Join(root, "mine2.txt"), "more notes\n")
	var l diag.List
	p := Prepare(root, set(plain("gen.txt", "g\n")), &l)
	if !l.HasErrors() {
		if _, err := Apply(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"mine.txt", "mine2.txt"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s, which opforge never wrote, is gone: %v", f, err)
		}
	}
}

// A FIFO (or device) where gen or check reads must be refused without
// opening it: opening a FIFO blocks until a writer comes.
func TestNonRegularFilesRefused(t *testing.T) {
	root := t.TempDir()
	apply(t, root, set(plain("gen.txt", "g\n"), owned("op.cpp", "  return 0;\n")))
	for _, f := range []string{"gen.txt", "op.cpp"} {
		_ = os.Remove(filepath.Join(root, f))
		if err := syscall.Mkfifo(filepath.Join(root, f), 0o644); err != nil {
			t.Skip("no FIFOs here:", err)
		}
	}
	done := make(chan *diag.List, 1)
	go func() {
		var l diag.List
		p := Prepare(root, set(plain("gen.txt", "g\n"), owned("op.cpp", "  return 0;\n")), &l)
		if !l.HasErrors() {
			Diff(p, &l)
		}
		done <- &l
	}()
	select {
	case l := <-done:
		if !hasCode(l, "unsafe-path") || !strings.Contains(diagText(l), "gen.txt") || !strings.Contains(diagText(l), "op.cpp") {
			t.Errorf("FIFOs not refused:\n%s", diagText(l))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Prepare hangs on a FIFO")
	}
}

// A symlinked output root is refused like any symlink below it.
func TestSymlinkedRootRefused(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "elsewhere")
	_ = os.Mkdir(real, 0o755)
	root := filepath.Join(dir, "out")
	if err := os.Symlink(real, root); err != nil {
		t.Fatal(err)
	}
	var l diag.List
	p := Prepare(root, set(plain("gen.txt", "g\n")), &l)
	if !hasCode(&l, "unsafe-path") {
		if _, err := Apply(p); err != nil {
			t.Fatal(err)
		}
		t.Fatalf("no unsafe-path error for a symlinked root:\n%s", diagText(&l))
	}
	if got := listAll(t, real); len(got) != 0 {
		t.Errorf("wrote through the symlinked root: %v", got)
	}
}

// A generated file the user made read-only keeps its mode when rewritten.
func TestModeKept(t *testing.T) {
	root := t.TempDir()
	apply(t, root, set(plain("gen.txt", "g\n"), &fileset.File{Path: "run.sh", Data: []byte("#!/bin/sh\n"), Mode: 0o755}))
	_ = os.Chmod(filepath.Join(root, "gen.txt"), 0o444)
	apply(t, root, set(plain("gen.txt", "g2\n"), &fileset.File{Path: "run.sh", Data: []byte("#!/bin/sh\n:\n"), Mode: 0o755}))
	for f, want := range map[string]os.FileMode{"gen.txt": 0o444, "run.sh": 0o755} {
		fi, err := os.Stat(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", f, fi.Mode().Perm(), want)
		}
	}
	if read(t, filepath.Join(root, "gen.txt")) != "g2\n" {
		t.Error("gen.txt not rewritten")
	}
}

// An I/O error in the middle of Apply (here: one name no file system
// takes, among files that change) leaves every file as it was.
func TestApplyAllOrNothing(t *testing.T) {
	root := t.TempDir()
	apply(t, root, set(plain("a.txt", "a"), plain("d/b.txt", "b"), plain("z.txt", "z")))
	before := listAll(t, root)
	snap := snapshot(t, root)
	var l diag.List
	p := Prepare(root, set(plain("a.txt", "a2"), plain("d/b.txt", "b2"), plain("new/x.txt", "x"), plain("new/"+strings.Repeat("n", 300), "c")), &l)
	if l.HasErrors() {
		t.Fatal(diagText(&l))
	}
	if _, err := Apply(p); err == nil {
		t.Fatal("Apply of an impossible name succeeded")
	} else if !strings.Contains(err.Error(), strings.Repeat("n", 300)) {
		t.Errorf("error does not name the file: %v", err)
	}
	if got := listAll(t, root); strings.Join(got, " ") != strings.Join(before, " ") {
		t.Errorf("tree after a failed Apply:\n got %v\nwant %v", got, before)
	}
	after := snapshot(t, root)
	for f, v := range snap {
		if after[f] != v {
			t.Errorf("%s changed by a failed Apply", f)
		}
	}
}

// Leftovers of a killed gen (temporaries beside files, hidden staging
// trees) are removed by the next one; names that merely look similar stay.
func TestLeftoversRemoved(t *testing.T) {
	root := t.TempDir()
	files := func() *fileset.Set { return set(plain("a/x.txt", "x"), owned("op.cpp", "  return 0;\n")) }
	apply(t, root, files())
	// 99999999 is above any pid_max: a dead writer. The parent process
	// is alive but holds no live mark here: its pid proves nothing (a
	// reused pid). A writer that holds its mark is at work: its
	// temporaries and mark stay.
	left := []string{"a/.x.txt.tmp-99999999-lz3x8k-1", ".op.cpp.tmp-99999999-lz3x8k-2", ".pkg.tmp-99999999-lz3x8k-3/sub/f.txt",
		fmt.Sprintf(".y.txt.tmp-%d-lz3x8k-4", os.Getppid())}
	for _, f := range left {
		_ = os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755)
		writeFile(t, filepath.Join(root, f), "half")
	}
	release, err := filelock.Hold(liveMark(root, "4242-lz3x8k"))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	keep := []string{"a/.x.txt.tmp-mine", "notes.tmp-1-2-3", ".z.txt.tmp-4242-lz3x8k-5", ".opforge-writer.tmp-4242-lz3x8k-0"}
	for _, f := range keep[:3] {
		writeFile(t, filepath.Join(root, f), "user")
	}
	var l diag.List
	Diff(Prepare(root, files(), &l), &l)
	if text := diagText(&l); strings.Count(text, "left by an interrupted gen") != 4 || strings.Count(text, "being written by an opforge that runs now") != 2 {
		t.Errorf("check does not name each leftover once:\n%s", text)
	}
	if !HasLeftovers(root) {
		t.Error("HasLeftovers misses the leftovers")
	}
	if l, _ := apply(t, root, files()); l.HasErrors() {
		t.Fatal(diagText(l))
	}
	for _, f := range left {
		if _, err := os.Lstat(filepath.Join(root, strings.SplitN(f, "/", 2)[0])); strings.HasPrefix(f, ".pkg") && err == nil {
			t.Errorf("staging tree %s left", f)
		}
		if _, err := os.Lstat(filepath.Join(root, f)); err == nil {
			t.Errorf("leftover %s not removed", f)
		}
	}
	for _, f := range keep {
		if _, err := os.Lstat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s removed: %v", f, err)
		}
	}
	if HasLeftovers(root) {
		t.Error("HasLeftovers names a live writer's temporaries")
	}
	// That writer may die before the next Apply: a gen that saw them must
	// let Apply look again (Options.NoLeftovers).
	if !Unsettled(root) {
		t.Error("Unsettled misses a live writer's temporaries")
	}
	release()
	for _, f := range keep[2:] {
		_ = os.Remove(filepath.Join(root, f))
	}
	if Unsettled(root) {
		t.Error("Unsettled names what no writer left (notes.tmp-1-2-3 and a/.x.txt.tmp-mine are a user's names)")
	}
}

// A cold gen killed while staging leaves a staging tree and its live
// mark; while the killed process is a zombie its pid still answers
// kill(pid, 0). The next Apply removes them all the same: the zombie
// holds no lock.
func TestZombieWriterLeftovers(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start a child process: %v", err)
	}
	pid := cmd.Process.Pid
	// Not reaped until the end: a zombie meanwhile.
	defer cmd.Wait()
	for i := 0; ; i++ {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Skipf("no /proc to see the zombie: %v", err)
		}
		if f := strings.Fields(string(data)); len(f) > 2 && f[2] == "Z" {
			break
		}
		if i > 500 {
			t.Fatal("child did not exit")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("kill(zombie, 0) = %v; the test needs a pid that answers", err)
	}
	root := t.TempDir()
	files := func() *fileset.Set { return set(plain("htp/P/a.txt", "a")) }
	owner := fmt.Sprintf("%d-lz3x8k", pid)
	left := []string{".htp.tmp-" + owner + "-1/P/a.txt", ".opforge-writer.tmp-" + owner + "-0"}
	for _, f := range left {
		_ = os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755)
		writeFile(t, filepath.Join(root, f), "half")
	}
	if !HasLeftovers(root) {
		t.Error("a zombie's staging tree is taken for work in progress")
	}
	if l, _ := apply(t, root, files()); l.HasErrors() {
		t.Fatal(diagText(l))
	}
	for _, f := range left {
		if _, err := os.Lstat(filepath.Join(root, strings.SplitN(f, "/", 2)[0])); err == nil {
			t.Errorf("leftover %s kept", f)
		}
	}
	var l diag.List
	Diff(Prepare(root, files(), &l), &l)
	if l.HasErrors() {
		t.Errorf("check after the gen: %s", diagText(&l))
	}
}

// An Apply error becomes a diagnostic at the file it failed on, saying
// whether the tree was put back.
func TestReportApplyError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&ApplyError{Path: "a/b.txt", Err: syscall.EIO}, "out/a/b.txt: error: cannot write: input/output error; every file opforge had changed was put back"},
		{&ApplyError{Path: "a/b.txt", Err: syscall.EIO, NotRestored: []string{"c.txt"}}, "out/a/b.txt: error: cannot write: input/output error, and could not put back c.txt; the journal"},
	} {
		var l diag.List
		Report("out", c.err, &l)
		if got := diagText(&l); !strings.Contains(got, c.want) || !strings.Contains(got, "[write]") {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
