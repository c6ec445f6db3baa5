package buildengine

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// project is a small C++ library built with the real g++, through a
// wrapper that logs every compiler process the engine starts.
type project struct {
	dir, log, cxx string
}

func newProject(t *testing.T) *project {
	t.Helper()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ is not installed")
	}
	dir := t.TempDir()
	p := &project{dir: dir, log: filepath.Join(dir, "compiler.log"), cxx: filepath.Join(dir, "cxx")}
	wrapper := "#!/bin/sh\necho \"$@\" >> " + p.log + "\nexec " + gxx + " \"$@\"\n"
	p.write(t, "cxx", wrapper)
	_ = os.Chmod(p.cxx, 0o755)
	p.write(t, "src/common.h", "inline int twice(int x) { return 2 * x; }\n")
	p.write(t, "src/a.cpp", "#include \"common.h\"\nint a() { return twice(1); }\n")
	p.write(t, "src/b.cpp", "#include \"common.h\"\nint b() { return twice(2); }\n")
	p.write(t, "src/c.cpp", "int c() { return 3; }\n")
	return p
}

func (p *project) write(t *testing.T, name, data string) {
	t.Helper()
	full := filepath.Join(p.dir, name)
	_ = os.MkdirAll(filepath.Dir(full), 0o755)
	if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (p *project) units() []*Unit {
	var units []*Unit
	var objs, ids []string
	for _, s := range []string{"a", "b", "c"} {
		obj := filepath.Join(p.dir, "build", s+".o")
		src := filepath.Join(p.dir, "src", s+".cpp")
		units = append(units, &Unit{
			ID: "compile " + s, Tool: p.cxx, Source: src, Inputs: []string{src}, Output: obj,
			Args: []string{"-std=c++17", "-fPIC", "-Wall", "-Werror", "-MMD", "-MF", DepArg, "-c", src, "-o", OutArg},
		})
		objs = append(objs, obj)
		ids = append(ids, "compile "+s)
	}
	lib := filepath.Join(p.dir, "build", "libx.so")
	units = append(units, &Unit{ID: "link libx.so", Tool: p.cxx, Inputs: objs, Output: lib, After: ids,
		Args: append([]string{"-shared", "-o", OutArg}, objs...)})
	return units
}

// processes returns and clears the compiler invocations logged so far.
func (p *project) processes(t *testing.T) []string {
	data, _ := os.ReadFile(p.log)
	_ = os.Remove(p.log)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func (p *project) run(t *testing.T) (Result, string, error) {
	var log bytes.Buffer
	e := &Engine{StateFile: filepath.Join(p.dir, "build", ".state.json"), Log: &log, Jobs: 2}
	r, err := e.Run(context.Background(), p.units())
	return r, log.String(), err
}

func TestIncrementalBuild(t *testing.T) {
	p := newProject(t)
	r, log, err := p.run(t)
	if err != nil || r.Built != 4 {
		t.Fatalf("cold build: %+v %v\n%s", r, err, log)
	}
	if n := len(p.processes(t)); n != 4 {
		t.Errorf("cold build started %d processes, want 4", n)
	}
	// No-op: zero compiler processes, even after git-style mtime resets.
	future := time.Now().Add(time.Hour)
	for _, f := range []string{"src/a.cpp", "src/common.h"} {
		_ = os.Chtimes(filepath.Join(p.dir, f), future, future)
	}
	r, log, err = p.run(t)
	if err != nil || r.Built != 0 || r.UpToDate != 4 || r.Processes != 0 {
		t.Errorf("no-op build: %+v %v\n%s", r, err, log)
	}
	if got := p.processes(t); len(got) != 0 {
		t.Errorf("no-op build started compilers: %v", got)
	}
	// One source changes: exactly its compile, then the link.
	p.write(t, "src/c.cpp", "int c() { return 4; }\n")
	r, log, err = p.run(t)
	if err != nil || r.Built != 2 {
		t.Errorf("one-file change: %+v %v\n%s", r, err, log)
	}
	got := p.processes(t)
	if len(got) != 2 || !strings.Contains(got[0], "c.cpp") || !strings.Contains(got[1], "-shared") {
		t.Errorf("one-file change ran %v", got)
	}
	// A header found through the depfile: a and b rebuild (and the link, as
	// their code changed); c does not.
	p.write(t, "src/common.h", "inline int twice(int x) { return 3 * x + 1; }\n")
	r, _, err = p.run(t)
	if got := p.processes(t); err != nil || r.Built != 3 {
		t.Errorf("header change: %+v %v %v", r, err, got)
	}
	if left, _ := filepath.Glob(filepath.Join(p.dir, "build", "*.tmp")); len(left) > 0 {
		t.Errorf("temporaries left behind: %v", left)
	}
}

// failedCommand is the command line the log shows under the FAILED line
// of unit id.
func failedCommand(t *testing.T, log, id string) string {
	t.Helper()
	lines := strings.Split(log, "\n")
	for i, l := range lines {
		if strings.Contains(l, "FAILED "+id+" ") && i+1 < len(lines) {
			return strings.TrimSpace(lines[i+1])
		}
	}
	t.Fatalf("no FAILED %s in\n%s", id, log)
	return ""
}

func TestShellQuote(t *testing.T) {
	for _, word := range []string{"plain-arg.o", "", "with space", "it's", `a"b`, "$HOME", "x;rm -rf /", "back\\slash", "-DX=\"1\"", "new\nline"} {
		out, err := exec.Command("sh", "-c", "printf %s "+shellQuote(word)).Output()
		if err != nil || string(out) != word {
			t.Errorf("%q quoted as %s reads back as %q (%v)", word, shellQuote(word), out, err)
		}
	}
}

func TestFailedCompileKeepsLastGoodLibrary(t *testing.T) {
	p := newProject(t)
	if _, _, err := p.run(t); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(p.dir, "build", "libx.so")
	good, _ := os.ReadFile(lib)
	p.write(t, "src/b.cpp", "int b() { return undefined_thing; }\n")
	r, log, err := p.run(t)
	if err == nil || r.Failed != 1 || r.Skipped != 1 {
		t.Fatalf("broken source: %+v %v", r, err)
	}
	if !strings.Contains(log, "undefined_thing") || !strings.Contains(log, "FAILED compile b") || !strings.Contains(log, "b.cpp:1") {
		t.Errorf("the compiler's own diagnostics are not shown:\n%s", log)
	}
	now, _ := os.ReadFile(lib)
	if !bytes.Equal(good, now) {
		t.Error("the last good library was replaced")
	}
	// The command shown is the one to paste: no placeholders, and run by
	// sh it fails the same way.
	line := failedCommand(t, log, "compile b")
	if strings.Contains(line, OutArg) || strings.Contains(line, DepArg) {
		t.Errorf("the failed command shows the engine's placeholders: %s", line)
	}
	out, err := exec.Command("sh", "-c", line).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "undefined_thing") {
		t.Errorf("pasting %s: %v\n%s", line, err, out)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "build", "b.o")); err != nil {
		t.Error("the last good object was removed")
	}
	// Fixing the source rebuilds it and the link.
	p.write(t, "src/b.cpp", "int b() { return 5; }\n")
	p.processes(t)
	if r, _, err := p.run(t); err != nil || r.Built != 2 {
		t.Errorf("after the fix: %+v %v", r, err)
	}
}

func TestCompileCommands(t *testing.T) {
	p := newProject(t)
	path := filepath.Join(p.dir, "build", "compile_commands.json")
	if err := WriteCompileCommands(path, p.units()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	s := string(data)
	if strings.Count(s, `"file"`) != 3 || strings.Contains(s, OutArg) || strings.Contains(s, DepArg) || strings.Contains(s, "-MMD") {
		t.Errorf("compile_commands.json:\n%s", s)
	}
}

func TestGraphErrors(t *testing.T) {
	e := &Engine{StateFile: filepath.Join(t.TempDir(), "s.json")}
	_, err := e.Run(context.Background(), []*Unit{{ID: "a", Output: "x"}, {ID: "b", Output: "x"}})
	if err == nil || !strings.Contains(err.Error(), "both produce") {
		t.Errorf("duplicate output: %v", err)
	}
	_, err = e.Run(context.Background(), []*Unit{{ID: "a", Output: "x", After: []string{"nope"}}})
	if err == nil || !strings.Contains(err.Error(), "unknown unit") {
		t.Errorf("unknown dependency: %v", err)
	}
}

func TestParseDepfile(t *testing.T) {
	got := parseDepfile([]byte("out.o: src/a.cpp \\\n  /usr/include/x.h src/a.cpp\n"), "/proj")
	want := []string{"/proj/src/a.cpp", "/usr/include/x.h"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %v", got)
	}
}

// TestConcurrentBuilds: two builds of one tree at once both succeed — the
// second waits for the first (saying so) and finds everything up to date.
func TestConcurrentBuilds(t *testing.T) {
	p := newProject(t)
	var wg sync.WaitGroup
	results := make([]Result, 2)
	logs := make([]string, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], logs[i], errs[i] = p.run(t)
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("build %d: %v\n%s", i, errs[i], logs[i])
		}
	}
	if built := results[0].Built + results[1].Built; built != 4 {
		t.Errorf("%d units built in all, want 4 (one build, one no-op): %+v %+v", built, results[0], results[1])
	}
	// The holder's pid follows when the waiter read it: the holder writes
	// it just after taking the lock, so a waiter that comes in between
	// names no pid (seen on a loaded 2-core machine).
	if !strings.Contains(logs[0]+logs[1], "waiting for another opforge build here") {
		t.Errorf("neither build said it waited:\n%s\n%s", logs[0], logs[1])
	}
}

// TestLeftoverTemporaries: what killed builds left beside an output — a
// directory where an older opforge put its fixed-name temporary, and unique
// temporaries — does not break the next build, and the unique ones go.
func TestLeftoverTemporaries(t *testing.T) {
	p := newProject(t)
	build := filepath.Join(p.dir, "build")
	for _, d := range []string{"a.o.tmp", "a.o.d.tmp"} {
		if err := os.MkdirAll(filepath.Join(build, d, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"b.o.1234.tmp", "b.o.1234.d.tmp", "libx.so.99.tmp"} {
		p.write(t, filepath.Join("build", f), "half written")
	}
	if r, log, err := p.run(t); err != nil || r.Built != 4 {
		t.Fatalf("%+v %v\n%s", r, err, log)
	}
	// Not a temporary of b.o (another output's, or the user's): kept.
	p.write(t, filepath.Join("build", "b.o.x.o.tmp"), "someone else's")
	p.write(t, "src/a.cpp", "int a() { return 2; }\n")
	if r, log, err := p.run(t); err != nil || r.Built != 2 {
		t.Fatalf("%+v %v\n%s", r, err, log)
	}
	for _, f := range []string{"b.o.1234.tmp", "b.o.1234.d.tmp", "libx.so.99.tmp"} {
		if _, err := os.Stat(filepath.Join(build, f)); !os.IsNotExist(err) {
			t.Errorf("leftover %s stayed: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(build, "b.o.x.o.tmp")); err != nil {
		t.Errorf("a file that is no temporary of b.o was removed: %v", err)
	}
}
