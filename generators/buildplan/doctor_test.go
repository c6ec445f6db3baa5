package buildplan

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/toolchain"
)

// TestDoctorReportsLaunchers: doctor names each target's compiler launcher
// — found, not asked for, or asked for and unusable — and never counts a
// launcher as a missing piece, because builds run without one.
func TestDoctorReportsLaunchers(t *testing.T) {
	root := t.TempDir()
	ccache := filepath.Join(root, "bin", "ccache")
	_ = os.MkdirAll(filepath.Dir(ccache), 0o755)
	if err := os.WriteFile(ccache, []byte("#!/bin/sh\necho 'ccache version 4.7.5'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	o := Options{Out: filepath.Join(root, "out"), Build: filepath.Join(root, "build"), Toolchains: "../../toolchains", Env: toolchain.Env{
		Getenv: func(k string) string { return env[k] },
		LookPath: func(n string) (string, error) {
			if n == "ccache" {
				return ccache, nil
			}
			return "", os.ErrNotExist
		},
		Root: root,
	}}
	doctor := func() string {
		var out bytes.Buffer
		if err := Doctor(o, &out); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	missing := func(report string) string {
		for _, l := range strings.Split(report, "\n") {
			if strings.Contains(l, "piece(s) missing") {
				return l
			}
		}
		return ""
	}
	none := doctor()
	if n := strings.Count(none, "none     launcher "); n != 3 {
		t.Errorf("%d targets say they have no launcher, want 3:\n%s", n, none)
	}
	env["OPFORGE_COMPILER_LAUNCHER"] = "ccache"
	found := doctor()
	if n := strings.Count(found, "ok       launcher"); n != 3 || !strings.Contains(found, ccache+" 4.7.5 (via $OPFORGE_COMPILER_LAUNCHER)") {
		t.Errorf("ccache not reported for every target:\n%s", found)
	}
	if missing(found) != missing(none) {
		t.Errorf("a launcher changed the missing count: %q vs %q", missing(found), missing(none))
	}
	env["OPFORGE_COMPILER_LAUNCHER"] = "ccahce"
	broken := doctor()
	if n := strings.Count(broken, "warning  launcher"); n != 3 || !strings.Contains(broken, "$OPFORGE_COMPILER_LAUNCHER=ccahce is not an executable; compiles run without it") {
		t.Errorf("an unusable launcher is not a warning:\n%s", broken)
	}
	if missing(broken) != missing(none) {
		t.Errorf("an unusable launcher counted as missing: %q vs %q", missing(broken), missing(none))
	}
}

// TestBuildWarnsAboutUnusableLauncher: a launcher set to something that is
// not there is said once, and the build runs its compiles directly.
func TestBuildWarnsAboutUnusableLauncher(t *testing.T) {
	f := newFakeSDK(t)
	f.env["OPFORGE_COMPILER_LAUNCHER"] = "/nonexistent/ccache"
	log, err := f.build(t, "x86")
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if n := strings.Count(log, "warning: launcher: $OPFORGE_COMPILER_LAUNCHER=/nonexistent/ccache is not an executable; compiles run without it"); n != 1 {
		t.Errorf("warned %d times:\n%s", n, log)
	}
	for _, c := range f.calls(t) {
		if strings.Contains(c, "ccache") {
			t.Errorf("ran through the missing launcher: %s", c)
		}
	}
}

// TestHTPCompilesRunThroughLauncher: every compile of every variant runs
// through the launcher, no link does.
func TestHTPCompilesRunThroughLauncher(t *testing.T) {
	f := newFakeSDK(t)
	launcher := filepath.Join(t.TempDir(), "launcher")
	if err := os.WriteFile(launcher, []byte("#!/bin/sh\necho \"launcher $*\" >> \"$FAKE_LOG\"\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.env["OPFORGE_COMPILER_LAUNCHER"] = launcher
	p, err := HTP(f.opts, []string{"x86", "aarch64", "v73"})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range p.Units {
		if (u.Source != "") != (u.Launcher == launcher) {
			t.Errorf("%s: launcher %q", u.ID, u.Launcher)
		}
	}
	log, err := f.build(t, "x86", "aarch64", "v73")
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	launched := 0
	for _, c := range f.calls(t) {
		if strings.HasPrefix(c, "launcher ") {
			launched++
		}
	}
	if launched == 0 || !strings.Contains(log, "through the compiler launcher") {
		t.Errorf("no compile went through the launcher:\n%s", log)
	}
	// A no-op build starts no process: not the compilers, and not the
	// launcher for its version either (cached like every tool's).
	if log, err := f.build(t, "x86", "aarch64", "v73"); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if calls := f.calls(t); len(calls) != 0 {
		t.Errorf("the no-op build started %v", calls)
	}
}
