package registry_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/registry"
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
	o := buildplan.Options{Out: filepath.Join(root, "out"), Build: filepath.Join(root, "build"), Toolchains: "../../toolchains", Env: toolchain.Env{
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
		if err := buildplan.Doctor(o, &out, registry.Doctor()); err != nil {
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
