package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/opforge/opforge/generators/bench"
)

// benchCmd measures generation and no-op builds on synthetic packages.
func benchCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	toolchains := fs.String("toolchains", "toolchains", "toolchain descriptors")
	teamOps := fs.Int("team-ops", 10, "ops in the TensorRT package of the team build (shared compiler cache)")
	fake := fs.String("fake-compiler", "testdata/build/fake-compiler.sh", "stand-in compiler for the no-op build measurement")
	if rest, err := parse(fs, args); err != nil || len(rest) > 0 {
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	// Measure on the repository's file system, where users generate (the
	// build directory), not on a scratch one that may be much slower.
	if err := os.MkdirAll("build", 0o755); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	work, err := os.MkdirTemp("build", "bench-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer os.RemoveAll(work)
	o := bench.Options{Binary: self, Toolchains: *toolchains, Work: work, Sizes: []int{10, 100, 1000}, Out: stdout}
	fmt.Fprint(stdout, bench.Header)
	if _, err := bench.Run(o); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if _, err := bench.NoopBuild(o, 100, *fake); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprint(stdout, "\n"+bench.TeamHeader)
	if _, err := bench.TeamBuild(o, *teamOps); errors.Is(err, bench.ErrTeamSkipped) {
		fmt.Fprintf(stdout, "\n%v\n", err)
	} else if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
