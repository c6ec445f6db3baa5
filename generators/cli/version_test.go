package cli

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	platform := runtime.GOOS + "/" + runtime.GOARCH
	cases := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"go build in a clone with changes",
			&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20260102030405-0123456789ab+dirty"},
				Settings: vcs("vcs", "git", "vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-01-02T03:04:05Z", "vcs.modified", "true")},
			"opforge v0.0.0-20260102030405-0123456789ab+dirty (commit 0123456789ab from 2026-01-02T03:04:05Z, modified; go1.26.0 " + platform + ")"},
		{"go build of a clean tag",
			&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.0"},
				Settings: vcs("vcs.revision", "fedcba9876543210", "vcs.modified", "false")},
			"opforge v1.2.0 (commit fedcba987654; go1.26.0 " + platform + ")"},
		{"go install of a module version records no commit",
			&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.0"}},
			"opforge v1.2.0 (no commit recorded (go run, go test, or a build outside a clone); go1.26.0 " + platform + ")"},
		{"go run",
			&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}},
			"opforge (devel) (no commit recorded (go run, go test, or a build outside a clone); go1.26.0 " + platform + ")"},
		{"a test binary names no main module version",
			&debug.BuildInfo{GoVersion: "go1.26.0"},
			"opforge (devel) (no commit recorded (go run, go test, or a build outside a clone); go1.26.0 " + platform + ")"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := versionLine(c.info); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	if got := versionLine(nil); !strings.HasPrefix(got, "opforge (no build information") {
		t.Errorf("without build information: %s", got)
	}
}

// Both spellings print the running binary's line (here, the test
// binary's: no commit) and exit 0; an argument is a usage error.
func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, errs := run(args...)
		if code != 0 || !strings.HasPrefix(out, "opforge ") || !strings.Contains(out, runtime.Version()) || errs != "" {
			t.Errorf("opforge %s: %d %q %q", args[0], code, out, errs)
		}
	}
	if code, _, _ := run("version", "extra"); code != 2 {
		t.Errorf("opforge version extra: exit %d, want 2", code)
	}
}
