package buildplan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/opforge/opforge/generators/buildengine"
	"github.com/opforge/opforge/generators/selection"
	"github.com/opforge/opforge/generators/toolchain"
)

// Options locate the inputs and outputs of builds.
type Options struct {
	Out        string // generated skeletons (out/)
	Build      string // artifacts (build/)
	Toolchains string // descriptors (toolchains/)
	Env        toolchain.Env
	// Packages, when set, limits a build to these packages (by name).
	Packages []string
	// Variants, when set, limits a build to these of the target's build
	// variants (architectures, say: x86, aarch64 ...); a target without variants
	// ignores it.
	Variants []string
	// NoopRecord keeps, after each successful build, the record that lets
	// the next build with nothing to do stop at a stat check (Noop). Only
	// with Env the real environment: the record hashes os.Environ.
	NoopRecord bool
}

// PackageDirs are the paths of marker (a directory or file name) in the
// generated package directories of target under out/ that hold one,
// sorted, limited to o.Packages when set; a package named there that out/
// does not hold is an error naming those it does.
func (o Options) PackageDirs(target, marker string) ([]string, error) {
	srcs := o.Env.Glob(filepath.Join(o.Out, target, "*", marker))
	sort.Strings(srcs)
	if len(o.Packages) == 0 {
		return srcs, nil
	}
	byName := map[string]string{}
	var known []string
	for _, s := range srcs {
		name := filepath.Base(filepath.Dir(s))
		byName[name] = s
		known = append(known, name)
	}
	var out, unknown []string
	for _, p := range o.Packages {
		if s, ok := byName[p]; ok {
			out = append(out, s)
		} else {
			unknown = append(unknown, p)
		}
	}
	if len(unknown) > 0 {
		return nil, errors.New(strings.Join(selection.Unknown(target+" package", "in "+filepath.Join(o.Out, target), unknown, known), "\n"))
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// DefaultOptions are the repository layout and the real environment.
func DefaultOptions() Options {
	return Options{Out: "out", Build: "build", Toolchains: toolchain.Dir, Env: toolchain.OSEnv()}
}

// Plan is what building one target would run.
type Plan struct {
	Target    string
	Units     []*buildengine.Unit
	Missing   []toolchain.Found
	StateFile string
	CompDB    string
	// Extra runs after the units succeed (e.g. laying out plugin dirs).
	Extra func() error
	// Launchers are the compiler launchers asked for that cannot be used;
	// Run warns about each, and their compiles run directly.
	Launchers []toolchain.Found
	// Notes are printed after a successful run (e.g. where the artifacts
	// are to be found), or "".
	Notes string
	// Preface is printed before the units run (e.g. what the build will
	// not make), or "".
	Preface string
	// UnitTimeout bounds each unit's processes (0: the engine's default,
	// buildengine.DefaultUnitTimeout).
	UnitTimeout time.Duration
	// Display is how the log shows the units (a line each, or a status
	// line on a terminal).
	Display buildengine.Display

	versions *toolchain.VersionCache
	probes   *toolchain.Probes
	opts     *Options // as the target planned with (WithVersionCache)
}

// versionCacheName is the tool-version cache's file in the build folder.
const versionCacheName = ".opforge-tool-versions.json"

// WithVersionCache gives the environment a tool-version cache kept in the
// build directory, saved when the plan runs, and a recorder of what
// planning looks at on disk (toolchain.Probes), which the no-op record
// keeps. Every target's BuildPlan starts with it.
func WithVersionCache(o Options, p *Plan) toolchain.Env {
	if o.Env.Versions == nil {
		o.Env.Versions = toolchain.OpenVersionCache(filepath.Join(o.Build, versionCacheName))
	}
	if o.Env.Probes == nil {
		o.Env.Probes = toolchain.NewProbes()
	}
	p.versions, p.probes = o.Env.Versions, o.Env.Probes
	opts := o
	p.opts = &opts
	return o.Env
}

// Stat is os.Stat for a target's planning, recorded with the plan's
// probes: a path the plan depends on that changes makes the next no-op
// build plan again.
func (p *Plan) Stat(path string) (os.FileInfo, error) {
	return toolchain.Env{Probes: p.probes}.Stat(path)
}

// Launcher returns the path compiles run through, or "" when none is
// configured or the one asked for is unusable (recorded for a warning).
func (p *Plan) Launcher(f toolchain.Found) string {
	if f.OK() {
		return f.Path
	}
	if f.Configured() && !slices.ContainsFunc(p.Launchers, func(g toolchain.Found) bool { return g.Problem == f.Problem }) {
		p.Launchers = append(p.Launchers, f)
	}
	return ""
}

// Require records f as missing unless it was found.
func (p *Plan) Require(f toolchain.Found) {
	if !f.OK() {
		p.Missing = append(p.Missing, f)
	}
}

// Preflight reports the missing pieces, one line each, or nil.
func (p *Plan) Preflight() error {
	if len(p.Missing) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var lines []string
	for _, m := range p.Missing {
		line := fmt.Sprintf("  %s: %s", m.Name, m.Problem)
		if !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	return fmt.Errorf("%s build cannot start, %d missing:\n%s", p.Target, len(lines), strings.Join(lines, "\n"))
}

// Run checks the preflight, writes compile_commands.json and runs the
// units.
func (p *Plan) Run(ctx context.Context, log io.Writer, jobs int) (buildengine.Result, error) {
	if err := p.Preflight(); err != nil {
		return buildengine.Result{}, err
	}
	for _, l := range p.Launchers {
		fmt.Fprintf(log, "%s: warning: %s: %s; compiles run without it\n", p.Target, l.Name, l.Problem)
	}
	if p.Preface != "" {
		fmt.Fprintln(log, p.Preface)
	}
	if len(p.Units) == 0 {
		fmt.Fprintf(log, "%s: nothing to build (no generated packages)\n", p.Target)
		return buildengine.Result{}, nil
	}
	if err := os.MkdirAll(filepath.Dir(p.StateFile), 0o755); err != nil {
		return buildengine.Result{}, err
	}
	p.forgetNoop()
	if p.versions != nil {
		if err := p.versions.Save(); err != nil {
			return buildengine.Result{}, err
		}
	}
	if p.CompDB != "" {
		if err := buildengine.WriteCompileCommands(p.CompDB, p.Units); err != nil {
			return buildengine.Result{}, err
		}
	}
	e := &buildengine.Engine{StateFile: p.StateFile, Log: log, Jobs: jobs, Label: p.Target, UnitTimeout: p.UnitTimeout, Display: p.Display}
	r, err := e.Run(ctx, p.Units)
	if err == nil && p.Extra != nil {
		err = p.Extra()
	}
	if err == nil {
		err = p.recordNoop(r)
	}
	return r, err
}

// DoctorTarget is one target as doctor sees it: the name of its
// toolchain descriptor and, for a target that builds, its build plan, whose
// missing files (beyond SDKs and tools) doctor reports too.
type DoctorTarget struct {
	Name string
	Plan func(Options) (*Plan, error) // nil: none
}

// Doctor resolves every SDK and tool of every target's descriptor for
// `mage doctor`.
func Doctor(o Options, w io.Writer, targets []DoctorTarget) error {
	problems := 0
	for _, target := range targets {
		d, err := toolchain.Load(o.Toolchains, target.Name)
		if err != nil {
			fmt.Fprintf(w, "%s: %v\n", target.Name, err)
			problems++
			continue
		}
		fmt.Fprintf(w, "%s (%s)\n", target.Name, d.Path)
		for _, f := range o.Env.ResolveAll(d) {
			problems += report(w, f)
		}
		if d.Launcher != nil {
			reportLauncher(w, o.Env.ResolveLauncher(d.Launcher), "compiles run directly; set "+d.Launcher.Env+"=ccache (or another compiler cache) to share results")
		}
		for _, t := range d.Tools {
			if t.Launcher != nil {
				reportLauncher(w, o.Env.ResolveLauncher(t.Launcher), fmt.Sprintf("%s compiles use the target's launcher; %s gives them one of their own", t.Name, t.Launcher.Env))
			}
		}
		if target.Plan != nil {
			p, err := target.Plan(o)
			if err == nil {
				for _, m := range p.Missing {
					if m.Kind == "file" {
						problems += report(w, m)
					}
				}
			}
		}
	}
	if problems > 0 {
		fmt.Fprintf(w, "%d piece(s) missing or too old; builds that need them will stop before compiling and say the same.\n", problems)
	}
	return nil
}

// reportLauncher prints a launcher's line, with unset saying what happens
// when none is configured. A launcher is optional, so none and an unusable
// one are not counted as missing pieces.
func reportLauncher(w io.Writer, f toolchain.Found, unset string) {
	switch {
	case f.OK():
		report(w, f)
	case f.Problem != "":
		fmt.Fprintf(w, "  warning  %-28s %s; compiles run without it\n", f.Name, f.Problem)
	default:
		fmt.Fprintf(w, "  none     %-28s %s\n", f.Name, unset)
	}
}

func report(w io.Writer, f toolchain.Found) int {
	if f.OK() {
		v := ""
		if f.Version != "" {
			v = " " + f.Version
		}
		fmt.Fprintf(w, "  ok       %-28s %s%s (via %s)\n", f.Name, f.Path, v, f.Via)
		return 0
	}
	fmt.Fprintf(w, "  missing  %-28s %s\n", f.Name, f.Problem)
	return 1
}
