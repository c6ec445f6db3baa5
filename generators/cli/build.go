package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/opforge/opforge/generators/buildengine"
	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/selection"
	"github.com/opforge/opforge/generators/verify"
)

// buildCmd builds the generated packages of one target (or all) with the
// vendor toolchains: preflight first, then incremental parallel builds.
func buildCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := buildplan.DefaultOptions()
	locs := buildLocations(fs, &o.Out, &o.Build, &o.Toolchains)
	arch := fs.String("arch", "", "architectures to build, comma-separated, for a target that builds several (default all)")
	jobs := fs.Int("jobs", 0, "parallel units (default: the number of CPUs)")
	var sel selection.Flags
	sel.Register(fs, "build only these packages (default all; a build compiles whole packages)", "")
	timeout := fs.Duration("unit-timeout", buildengine.DefaultUnitTimeout, "the longest one unit (its launcher, compiler or linker) may run before its processes are killed")
	rest, err := parse(fs, args)
	if err == nil && *timeout <= 0 {
		fmt.Fprintf(stderr, "opforge build: --unit-timeout must be positive, not %s\n", *timeout)
		err = flag.ErrHelp
	}
	if err != nil || len(rest) != 1 {
		fmt.Fprintf(stderr, "usage: opforge build %s|all [--package LIST] [--arch LIST] [--jobs N] [--unit-timeout D]\n", strings.Join(registry.Builders(), "|"))
		return 2
	}
	at, ok := settle("build", fs, locs, []string{"out"}, stderr)
	if !ok {
		return 1
	}
	// Units run from the root, so a build from any folder of the
	// repository is the same build (the same keys: nothing rebuilt).
	back, _, err := at.atRoot(locs, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "opforge build: %v\n", err)
		return 1
	}
	defer back()
	o.Packages = sel.Packages
	o.NoopRecord = true
	if *arch != "" {
		o.Variants = strings.Split(*arch, ",")
	}
	names := []string{rest[0]}
	if rest[0] == "all" {
		names = registry.Builders()
	}
	display := buildDisplay(stdout, os.Getenv)
	failed := false
	var ctx context.Context
	for _, t := range names {
		if buildplan.Noop(o, t, stdout) {
			continue // nothing changed since its last successful build
		}
		if ctx == nil {
			// The units' processes run in process groups of their own, out
			// of the terminal's reach: an interrupt is passed on by killing
			// them, and a second one ends opforge at once. Set up for the
			// first target that runs units: a no-op build runs none and
			// would pay for the signal thread.
			var stop context.CancelFunc
			ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() { <-ctx.Done(); stop() }()
		}
		plan, err := planFor(o, t)
		if err == nil {
			plan.UnitTimeout = *timeout
			plan.Display = display
			_, err = plan.Run(ctx, stdout, *jobs)
		}
		if err == nil && plan.Notes != "" {
			fmt.Fprintln(stdout, plan.Notes)
		}
		if err != nil {
			fmt.Fprintf(stderr, "opforge build %s: %v\n", t, err)
			failed = true
		}
		if ctx.Err() != nil {
			break // interrupted: the next targets would only say so again
		}
	}
	if failed {
		return 1
	}
	return 0
}

// buildLocations are the folder flags of the commands that build: the
// generated tree, the artifacts and the descriptors; unset, the op
// repository's (settle).
func buildLocations(fs *flag.FlagSet, out, build, toolchains *string) []location {
	fs.StringVar(out, "out", *out, "generated skeletons (default: the op repository's out/)")
	fs.StringVar(build, "build", *build, "artifact directory (default: the op repository's build/)")
	fs.StringVar(toolchains, "toolchains", *toolchains, "toolchain descriptors (default: the op repository's toolchains/)")
	return []location{{"out", out, "out"}, {"build", build, "build"}, {"toolchains", toolchains, "toolchains"}}
}

func planFor(o buildplan.Options, target string) (*buildplan.Plan, error) {
	if b, ok := registry.Builder(target); ok {
		return b.BuildPlan(o)
	}
	return nil, fmt.Errorf("unknown build target %q (%s, all)", target, strings.Join(registry.Builders(), ", "))
}

// doctorCmd prints, per target, where every SDK and tool was found or why
// not, then, per verify runner, what it found of what it needs to run here
// or what to install or set. Missing pieces are reported, not failed: the
// exit status is 0 unless doctor itself cannot run.
func doctorCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := buildplan.DefaultOptions()
	fs.StringVar(&o.Toolchains, "toolchains", o.Toolchains, "toolchain descriptors (default: the op repository's toolchains/)")
	vo := verify.DoctorOptions{}
	fs.StringVar(&vo.Python, "python", "", "the Python verify runs (default $OPFORGE_PYTHON, else python3)")
	fs.DurationVar(&vo.Timeout, "timeout", verify.DefaultDoctorTimeout, "the longest a Python probe may run")
	if rest, err := parse(fs, args); err != nil || len(rest) > 0 {
		return 2
	}
	// Outside an op repository doctor still runs: on the built-in
	// descriptors, or those --toolchains names.
	if _, ok := settle("doctor", fs, []location{{"toolchains", &o.Toolchains, "toolchains"}}, nil, stderr); !ok {
		return 1
	}
	if err := buildplan.Doctor(o, stdout, registry.Doctor()); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	vo.Toolchains, vo.Env = o.Toolchains, o.Env
	verify.Doctor(stdout, vo, registry.Verifiers())
	return 0
}
