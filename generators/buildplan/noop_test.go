package buildplan

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/buildengine"
	"github.com/opforge/opforge/generators/filestat"
	"github.com/opforge/opforge/generators/toolchain"
)

// fakeTool copies its source ($1) to its output ($2), writes a depfile
// ($3) naming the source and hdr.h beside it, and logs each run.
const fakeTool = `#!/bin/sh
echo run >> "$FAKE_LOG"
cat "$1" > "$2"
printf '%s: %s %s\n' "$2" "$1" "$(dirname "$1")/hdr.h" > "$3"
`

// fakePlan plans as a target does: its tool resolved from FAKE_CC, its
// sources found by a glob, a flag taken from FAKE_FLAG.
func fakePlan(o Options) (*Plan, error) {
	p := &Plan{Target: "fake", StateFile: filepath.Join(o.Build, "fake", ".opforge-build.json")}
	o.Env = WithVersionCache(o, p)
	cc := o.Env.ResolveTool(toolchain.Tool{Name: "cc", Env: "FAKE_CC"})
	p.Require(cc)
	for _, src := range o.Env.Glob(filepath.Join(o.Out, "fake", "*.c")) {
		base := strings.TrimSuffix(filepath.Base(src), ".c")
		p.Units = append(p.Units, &buildengine.Unit{ID: base, Tool: cc.Path, Inputs: []string{src},
			Args:   []string{src, buildengine.OutArg, buildengine.DepArg, o.Env.Getenv("FAKE_FLAG")},
			Output: filepath.Join(o.Build, "fake", base+".txt")})
	}
	return p, nil
}

// TestNoopRecord: a build with nothing to do is a stat check that runs
// no tool, and every change that reaches a unit (a source, a header of its
// depfile, a new source, the tool, a flag, the environment, the output)
// or the record itself runs the real check again.
func TestNoopRecord(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write := func(path, text string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("tools/cc", fakeTool, 0o755)
	write("out/fake/a.c", "a", 0o644)
	write("out/fake/hdr.h", "h", 0o644)
	cc, _ := filepath.Abs("tools/cc")
	log, _ := filepath.Abs("tool.log")
	t.Setenv("FAKE_CC", cc)
	t.Setenv("FAKE_LOG", log)
	t.Setenv("FAKE_FLAG", "-O1")
	o := DefaultOptions()
	o.Toolchains, o.NoopRecord = "toolchains", true
	runs := func() int {
		data, _ := os.ReadFile(log)
		return strings.Count(string(data), "run")
	}
	// build is `opforge build`: the record first, else the real check.
	build := func() (noop bool) {
		t.Helper()
		var out bytes.Buffer
		if Noop(o, "fake", &out) {
			if !strings.Contains(out.String(), "fake: 1 units: 0 built, 1 up to date") && !strings.Contains(out.String(), "fake: 2 units: 0 built, 2 up to date") {
				t.Errorf("no-op output %q", out.String())
			}
			return true
		}
		p, _ := fakePlan(o)
		if _, err := p.Run(context.Background(), &out, 1); err != nil {
			t.Fatalf("build: %v\n%s", err, out.String())
		}
		return false
	}
	// touch changes a file's mtime, as an edit that keeps the size does.
	touch := func(path string) {
		t.Helper()
		later := time.Now().Add(time.Duration(runs()+1) * time.Second)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
	}
	// A JSON record left by an older opforge is removed with the first
	// record this one writes.
	legacy := noopPath(o, "fake") + ".json"
	write(legacy, "{}", 0o644)
	if build() {
		t.Fatal("the first build took the no-op path")
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("the legacy JSON record is still there (%v)", err)
	}
	if before := runs(); !build() || runs() != before {
		t.Fatalf("an unchanged build was not a no-op (or ran the tool)")
	}
	for _, c := range []struct {
		name   string
		change func()
	}{
		{"a source edited", func() { write("out/fake/a.c", "b", 0o644) }},
		{"a source touched", func() { touch("out/fake/a.c") }},
		{"a header of the depfile edited", func() { write("out/fake/hdr.h", "hh", 0o644) }},
		{"a new source", func() { write("out/fake/b.c", "b", 0o644) }},
		{"the tool changed", func() { write("tools/cc", fakeTool+"\n", 0o755) }},
		{"a flag changed", func() { t.Setenv("FAKE_FLAG", "-O2") }},
		{"another variable of the environment", func() { t.Setenv("CPATH", "/somewhere") }},
		{"the output removed", func() { os.Remove(filepath.Join(o.Build, "fake", "a.txt")) }},
		{"the record corrupt", func() {
			write(noopPath(o, "fake"), "{not json", 0o644)
		}},
		{"the state file edited", func() { touch(filepath.Join(o.Build, "fake", ".opforge-build.json")) }},
	} {
		c.change()
		if build() {
			t.Errorf("%s: the build took the no-op path", c.name)
			continue
		}
		if before := runs(); !build() || runs() != before {
			t.Errorf("%s: the build after the real check was not a no-op", c.name)
		}
	}
	// Another selection has a record of its own.
	other := o
	other.Packages = []string{"x"}
	if noopPath(other, "fake") == noopPath(o, "fake") {
		t.Error("two selections share one record")
	}
}

// TestNoopProbesNoticeTheDisk: planning's questions are asked again, and
// an answer that changed (a file appearing where planning looked and found
// none, a glob's new match, another tool first on PATH) says so.
func TestNoopProbesNoticeTheDisk(t *testing.T) {
	dir := t.TempDir()
	p := toolchain.NewProbes()
	env := toolchain.Env{Probes: p, Getenv: func(string) string { return "" }, LookPath: func(string) (string, error) { return "/bin/x", nil }}
	missing := filepath.Join(dir, "sdk", "probe.h")
	env.Stat(missing)
	env.Glob(filepath.Join(dir, "*.c"))
	same, _ := p.Unchanged(env.LookPath)
	if !same {
		t.Fatal("unchanged disk reported as changed")
	}
	if err := os.WriteFile(filepath.Join(dir, "new.c"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if same, what := p.Unchanged(env.LookPath); same || !strings.HasSuffix(what, "*.c") {
		t.Errorf("a new glob match: same %v, what %q", same, what)
	}
	os.Remove(filepath.Join(dir, "new.c"))
	os.MkdirAll(filepath.Dir(missing), 0o755)
	os.WriteFile(missing, nil, 0o644)
	if same, what := p.Unchanged(env.LookPath); same || what != missing {
		t.Errorf("a probed file appearing: same %v, what %q", same, what)
	}
	os.Remove(missing)
	env.LookPath("cc") // a direct lookup records nothing; resolution's does
	env.ResolveTool(toolchain.Tool{Name: "cc", Names: []string{"cc"}})
	if same, _ := p.Unchanged(env.LookPath); !same {
		t.Fatal("unchanged PATH reported as changed")
	}
	elsewhere := func(string) (string, error) { return "/usr/local/bin/x", nil }
	if same, what := p.Unchanged(elsewhere); same || what != "PATH: cc" {
		t.Errorf("another tool first on PATH: same %v, what %q", same, what)
	}
}

// TestNoopRecordCodec round-trips a record with every field set and
// refuses it cut at every length, with a byte added, and at another
// version.
func TestNoopRecordCodec(t *testing.T) {
	p := toolchain.NewProbes()
	p.Paths["/sdk/bin/clang++"] = toolchain.PathState{Exists: true, Stat: filestat.Stat{Size: 9, MTime: -3, Ino: 1 << 40}, Mode: 0o755}
	p.Paths["/sdk/missing"] = toolchain.PathState{}
	p.Globs["out/**/*.cpp"] = []string{"out/a.cpp", "out/b/c.cpp"}
	p.Globs["none/*"] = []string{}
	p.Looks["ninja"] = "/usr/bin/ninja"
	p.Looks["nvcc"] = ""
	r := noopRecord{Version: noopVersion, Key: "k", Units: 3, Preface: "pre\nface", Notes: "ünï",
		Files:  map[string]buildengine.SeenFile{"a": {Exists: true, Stat: filestat.Stat{Size: 1, MTime: 2, Ino: 3}}, "gone": {}},
		Probes: p}
	data := r.encode()
	var got noopRecord
	if !got.decode(data) {
		t.Fatal("decode refused encode's bytes")
	}
	if !reflect.DeepEqual(got.Files, r.Files) || !reflect.DeepEqual(got.Probes.Paths, p.Paths) || !reflect.DeepEqual(got.Probes.Globs, p.Globs) ||
		!reflect.DeepEqual(got.Probes.Looks, p.Looks) || got.Key != r.Key || got.Units != r.Units || got.Preface != r.Preface || got.Notes != r.Notes {
		t.Errorf("round trip: got %+v, want %+v", got, r)
	}
	if again := got.encode(); !bytes.Equal(again, data) {
		t.Error("encoding the decoded record gave other bytes")
	}
	for n := range len(data) {
		if (&noopRecord{}).decode(data[:n]) {
			t.Errorf("decode accepted the record cut at %d of %d bytes", n, len(data))
		}
	}
	if (&noopRecord{}).decode(append(data, 0)) {
		t.Error("decode accepted a trailing byte")
	}
	r.Version = noopVersion + 1
	if (&noopRecord{}).decode(r.encode()) {
		t.Error("decode accepted another version")
	}
}
