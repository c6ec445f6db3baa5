package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// versionCmd prints what `opforge --version` and `opforge version` say:
// the module version and the commit the binary was built from, read from
// the build information Go records in every binary.
func versionCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "opforge version: no arguments expected, got %q\n", args[0])
		return 2
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(info))
	return 0
}

// versionLine describes a build: "opforge v1.2.0 (commit 0123456789ab
// from 2026-01-02T03:04:05Z, modified; go1.26.0 linux/amd64)". `go build` in a clone records the
// commit (vcs.revision) and whether the work tree had changes
// (vcs.modified); `go run` and `go test` record none, and `go install` of
// a tagged module records its version but no commit.
func versionLine(info *debug.BuildInfo) string {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	if info == nil {
		return fmt.Sprintf("opforge (no build information: a binary built without module support; %s %s)", runtime.Version(), platform)
	}
	version := info.Main.Version
	if version == "" || version == "(devel)" {
		version = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	commit := "no commit recorded (go run, go test, or a build outside a clone)"
	if rev := settings["vcs.revision"]; rev != "" {
		commit = "commit " + rev[:min(len(rev), 12)]
		if at := settings["vcs.time"]; at != "" {
			commit += " from " + at
		}
		if settings["vcs.modified"] == "true" {
			commit += ", modified"
		}
	}
	return fmt.Sprintf("opforge %s (%s; %s %s)", version, commit, info.GoVersion, platform)
}
