package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/stageclock"
)

// Step is one measured command.
type Step struct {
	Name         string
	Ops          int
	Targets      string
	Wall         time.Duration
	FilesWritten int
	BytesWritten int64
	PeakRSS      int64 // bytes
	User, Sys    time.Duration
	CopyFloor    time.Duration
	// Stages is where the run's wall time went, stage by stage, as
	// `opforge gen` reports it under OPFORGE_STAGES (nil: not a gen).
	Stages []stageclock.Stage
}

// Options of a run.
type Options struct {
	Binary     string // the opforge executable
	Toolchains string // toolchains/
	Work       string // scratch directory
	Sizes      []int
	Out        io.Writer
}

// Synthesize writes a package of n ops for the given targets ("" = every
// target): each op has a type variable, two inputs with symbolic shapes,
// an int, a float and an array param, and one output with a computed shape.
func Synthesize(path string, n int, targets string, variant int) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "version: 1\npackage: {name: Bench%d, domain: bench, version: 1.0.0, namespace: bench}\nops:\n", n)
	for i := 0; i < n; i++ {
		scale := "1.0"
		if i == 0 && variant > 0 {
			scale = strconv.Itoa(variant) + ".5"
		}
		fmt.Fprintf(&sb, `  - name: Op%04d
    description: Synthetic op %d.
    types: {T: [float32, float16]}
    inputs:
      - {name: x, type: T, shape: [N, C, H, W]}
      - {name: y, type: T, shape: [N, C, H, W]}
    params:
      - {name: k, type: [int32, uint32], default: 2, min: 1}
      - {name: scale, type: float32, default: %s}
      - {name: pads, type: ["int32[2]", "uint32[2]"], default: [1, 1]}
    outputs:
      - {name: z, type: T, shape: [N, C, "H + pads[0] + pads[1]", "ceil_div(W, k)"]}
`, i, i, scale)
		if targets != "" {
			fmt.Fprintf(&sb, "    targets: {%s: {}}\n", targets)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(sb.String()), 0o644)
}

var genLine = regexp.MustCompile(`(\d+) written \((\d+) bytes\)`)

// gen runs `opforge gen` and measures it. Dirty pages of earlier steps
// are flushed first, so that no step pays for another's writeback.
func (o Options) gen(opdefs, out string) (Step, error) {
	flushDirty()
	cmd := exec.Command(o.Binary, "gen", "--opdefs", opdefs, "--toolchains", o.Toolchains, "--out", out, "--cache", cachePath(out))
	cmd.Env = append(os.Environ(), stageclock.EnvVar+"=1")
	start := time.Now()
	output, err := cmd.CombinedOutput()
	st := Step{Wall: time.Since(start)}
	if err != nil {
		return st, fmt.Errorf("opforge gen: %v\n%s", err, output)
	}
	st.usage(cmd.ProcessState)
	st.Stages, _ = stageclock.Parse(string(output))
	if m := genLine.FindStringSubmatch(string(output)); m != nil {
		st.FilesWritten, _ = strconv.Atoi(m[1])
		st.BytesWritten, _ = strconv.ParseInt(m[2], 10, 64)
	}
	return st, nil
}

// usage takes the peak memory and CPU times of a finished process. CPU
// time is steadier than wall time where file-system speed varies: it
// separates opforge's own work (user) from the kernel's (sys).
func (s *Step) usage(ps *os.ProcessState) {
	s.PeakRSS = peakRSS(ps)
	s.User, s.Sys = ps.UserTime(), ps.SystemTime()
}

func cachePath(out string) string { return filepath.Join(filepath.Dir(out), "build", "gen-cache.json") }

// copyFloor times `cp -r` of a tree into a fresh directory in work (left
// there: see measure).
func copyFloor(tree, work string) (time.Duration, error) {
	dst := filepath.Join(work, "copy")
	flushDirty()
	start := time.Now()
	out, err := exec.Command("cp", "-r", tree, dst).CombinedOutput()
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("cp -r: %v %s", err, out)
	}
	return d, nil
}

// Repeats is how often each step runs; the median run is reported, as
// file-system speed on shared machines varies from one second to the next.
const Repeats = 3

// median runs measure Repeats times and returns the run with the median
// wall time.
func median(measure func(rep int) (Step, error)) (Step, error) {
	return medianN(Repeats, measure)
}

// medianN is median over n runs: a no-op build takes a few milliseconds,
// where one slow run of a loaded machine would decide a median of 3.
func medianN(n int, measure func(rep int) (Step, error)) (Step, error) {
	runs := make([]Step, 0, n)
	for rep := 0; rep < n; rep++ {
		st, err := measure(rep)
		if err != nil {
			return st, err
		}
		runs = append(runs, st)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Wall < runs[j].Wall })
	return runs[len(runs)/2], nil
}

// Run measures every size and target combination and prints a table.
func Run(o Options) ([]Step, error) {
	var steps []Step
	combos := append([]string{""}, registry.Names()...)
	for _, n := range o.Sizes {
		for _, only := range combos {
			if only != "" && n != o.Sizes[len(o.Sizes)-1] {
				continue // per-target runs only at the largest size
			}
			label := only
			if label == "" {
				label = "all"
			}
			combo, err := o.measure(n, only, filepath.Join(o.Work, fmt.Sprintf("n%d-%s", n, label)))
			if err != nil {
				return steps, err
			}
			for _, s := range combo {
				s.Ops, s.Targets = n, label
				o.print(s)
				steps = append(steps, s)
			}
		}
	}
	return steps, nil
}

// measure runs the three generation steps on one synthetic package. Each
// cold generation is followed by `cp -r` of what it wrote, and the copy
// times are reduced to their median as the generation times are.
func (o Options) measure(n int, targets, dir string) ([]Step, error) {
	opdefs := filepath.Join(dir, "opdefs")
	var out string // the last cold run's tree, which the later steps reuse
	defs := filepath.Join(opdefs, "bench", "bench.yaml")
	if err := Synthesize(defs, n, targets, 0); err != nil {
		return nil, err
	}
	// Each cold run writes a tree of its own and nothing is deleted until
	// the whole bench is over: removing thousands of files just before a
	// measurement slows file creation on some file systems (discard,
	// journal), which would charge one step for another's cleanup.
	var floors []time.Duration
	cold, err := median(func(rep int) (Step, error) {
		out = filepath.Join(dir, fmt.Sprintf("cold-%d", rep), "out")
		st, err := o.gen(opdefs, out)
		if err != nil {
			return st, err
		}
		floor, err := copyFloor(out, filepath.Dir(out))
		floors = append(floors, floor)
		return st, err
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(floors, func(i, j int) bool { return floors[i] < floors[j] })
	cold.Name, cold.CopyFloor = "cold generate", floors[len(floors)/2]
	noop, err := median(func(int) (Step, error) { return o.gen(opdefs, out) })
	if err != nil {
		return nil, err
	}
	noop.Name = "no-op generate"
	one, err := median(func(rep int) (Step, error) {
		if err := Synthesize(defs, n, targets, rep+1); err != nil {
			return Step{}, err
		}
		return o.gen(opdefs, out)
	})
	if err != nil {
		return nil, err
	}
	one.Name = "one op changed"
	return []Step{cold, noop, one}, nil
}

// Header is the table header Run prints.
const Header = "| step | ops | targets | wall | user / sys CPU | files written | bytes written | peak RSS | cp -r of the tree | wall / cp -r |\n|---|---|---|---|---|---|---|---|---|---|\n"

func (o Options) print(s Step) {
	floor, ratio := "", ""
	if s.CopyFloor > 0 {
		floor = ms(s.CopyFloor)
		ratio = Ratio(s.Wall, s.CopyFloor)
	}
	fmt.Fprintf(o.Out, "| %s | %d | %s | %s | %s / %s | %d | %d | %.1f MiB | %s | %s |\n", s.Name, s.Ops, s.Targets, ms(s.Wall), ms(s.User), ms(s.Sys), s.FilesWritten, s.BytesWritten, float64(s.PeakRSS)/(1<<20), floor, ratio)
}

// StagesHeader is the header of the table PrintStages writes.
const StagesHeader = "| step | ops | targets | wall | where it went (OPFORGE_STAGES; shares of the stages' sum, which leaves out process start) |\n|---|---|---|---|---|\n"

// PrintStages prints where the wall time of each generation step at the
// largest size went, stage by stage with each stage's share: issue 30
// asks for each stage's share before and after a change.
func (o Options) PrintStages(steps []Step) {
	if len(o.Sizes) == 0 {
		return
	}
	largest := slices.Max(o.Sizes)
	for _, s := range steps {
		if s.Ops != largest || len(s.Stages) == 0 || s.Name == "no-op generate" {
			continue
		}
		var total time.Duration
		for _, st := range s.Stages {
			total += st.Took
		}
		var parts []string
		for _, st := range s.Stages {
			parts = append(parts, fmt.Sprintf("%s %s (%.0f%%)", st.Name, ms(st.Took), 100*float64(st.Took)/float64(max(total, 1))))
		}
		fmt.Fprintf(o.Out, "| %s | %d | %s | %s | %s |\n", s.Name, s.Ops, s.Targets, ms(s.Wall), strings.Join(parts, ", "))
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// NoopBuild measures a no-op `opforge build` of an n-op package for
// noopTarget (targets.go). The package is first built for noopArch with a
// stand-in compiler
// (testdata/build/fake-compiler.sh behind a fake SDK layout): a no-op
// build starts no compiler, so what is measured is opforge's own work —
// hashing inputs and checking the state — which is what the goal is about.
func NoopBuild(o Options, n int, fakeCompiler string) (Step, error) {
	dir := filepath.Join(o.Work, fmt.Sprintf("build-n%d", n))
	opdefs := filepath.Join(dir, "opdefs")
	out := filepath.Join(dir, "out")
	if err := Synthesize(filepath.Join(opdefs, "bench", "bench.yaml"), n, noopTarget, 0); err != nil {
		return Step{}, err
	}
	if _, err := o.gen(opdefs, out); err != nil {
		return Step{}, err
	}
	script, err := os.ReadFile(fakeCompiler)
	if err != nil {
		return Step{}, err
	}
	sdk := filepath.Join(dir, "sdk")
	if err := os.MkdirAll(sdk, 0o755); err != nil {
		return Step{}, err
	}
	cxx := filepath.Join(sdk, "clang++")
	if err := os.WriteFile(cxx, script, 0o755); err != nil {
		return Step{}, err
	}
	sdkEnv, err := noopSDK(sdk, cxx)
	if err != nil {
		return Step{}, err
	}
	log := filepath.Join(dir, "compilers.log")
	env := append(append(os.Environ(), sdkEnv...), "FAKE_LOG="+log)
	run := func() (Step, error) {
		cmd := exec.Command(o.Binary, "build", noopTarget, "--arch", noopArch, "--out", out, "--build", filepath.Join(dir, "build"), "--toolchains", o.Toolchains)
		cmd.Env = env
		start := time.Now()
		output, err := cmd.CombinedOutput()
		st := Step{Name: "no-op build", Ops: n, Targets: noopTarget + " (" + noopArch + ")", Wall: time.Since(start)}
		st.usage(cmd.ProcessState)
		if err != nil {
			return st, fmt.Errorf("opforge build: %v\n%s", err, output)
		}
		return st, nil
	}
	if _, err := run(); err != nil { // cold build with the stand-in compiler
		return Step{}, err
	}
	_ = os.Remove(log)
	st, err := medianN(noopPairs, func(int) (Step, error) { return run() })
	if err != nil {
		return st, err
	}
	if data, _ := os.ReadFile(log); len(strings.TrimSpace(string(data))) > 0 {
		return st, fmt.Errorf("the no-op build started compilers:\n%s", data)
	}
	o.print(st)
	return st, nil
}

// Comparison is one of opforge's steps beside its yardstick (ninja's
// no-op on the same units, cp -r of the same tree), the ratio first.
type Comparison struct {
	Name               string
	OpForge, Yardstick time.Duration
	YardstickName      string
}

// ComparisonHeader is the table header PrintComparison rows go under.
const ComparisonHeader = "| opforge / yardstick | step | opforge | yardstick |\n|---|---|---|---|\n"

// PrintComparison prints c with the ratio first.
func (o Options) PrintComparison(c Comparison) {
	fmt.Fprintf(o.Out, "| %s | %s | %s | %s: %s |\n", Ratio(c.OpForge, c.Yardstick), c.Name, ms(c.OpForge), c.YardstickName, ms(c.Yardstick))
}

// Ratio is a/b to two decimals below 1 ("0.21x") and one from 1 up
// ("2.3x"): a goal such as 0.15x of a cold gen cannot be read from one
// decimal.
func Ratio(a, b time.Duration) string {
	r := float64(a) / float64(b)
	if r < 1 {
		return fmt.Sprintf("%.2fx", r)
	}
	return fmt.Sprintf("%.1fx", r)
}

// NinjaNoop measures ninja's no-op over a build.ninja that has one edge
// per unit of the build under dir (its compile_commands.json: one per
// compile, each output from its source, and the link of them all), the
// same files stated as opforge's no-op build states: the yardstick for
// it. The edges' command only touches its output, so the first run builds
// everything at once and the measured runs have nothing to do.
func NinjaNoop(o Options, dir string) (time.Duration, error) {
	ninja, err := exec.LookPath("ninja")
	if err != nil {
		return 0, fmt.Errorf("ninja is not installed: %w", err)
	}
	// Absolute paths, and ninja run in its own folder, so its log
	// (.ninja_log) stays there and not where the bench was started.
	if dir, err = filepath.Abs(dir); err != nil {
		return 0, err
	}
	dbs, _ := filepath.Glob(filepath.Join(dir, "build", "*", "compile_commands.json"))
	if len(dbs) == 0 {
		return 0, fmt.Errorf("no compile_commands.json under %s", filepath.Join(dir, "build"))
	}
	var sb strings.Builder
	sb.WriteString("rule touch\n  command = touch $out\n")
	var objs []string
	for _, db := range dbs {
		data, err := os.ReadFile(db)
		if err != nil {
			return 0, err
		}
		var cmds []struct{ Directory, File, Output string }
		if err := json.Unmarshal(data, &cmds); err != nil {
			return 0, fmt.Errorf("%s: %v", db, err)
		}
		for i, c := range cmds {
			obj := filepath.Join(dir, "ninja", fmt.Sprintf("%d-%d.o", len(objs), i))
			fmt.Fprintf(&sb, "build %s: touch %s\n", ninjaEscape(obj), ninjaEscape(absIn(c.Directory, c.File)))
			objs = append(objs, ninjaEscape(obj))
		}
	}
	fmt.Fprintf(&sb, "build %s: touch %s\n", ninjaEscape(filepath.Join(dir, "ninja", "lib.so")), strings.Join(objs, " "))
	if err := os.MkdirAll(filepath.Join(dir, "ninja"), 0o755); err != nil {
		return 0, err
	}
	file := filepath.Join(dir, "ninja", "build.ninja")
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		return 0, err
	}
	run := func(int) (Step, error) {
		start := time.Now()
		out, err := exec.Command(ninja, "-C", filepath.Dir(file)).CombinedOutput()
		if err != nil {
			return Step{}, fmt.Errorf("ninja: %v\n%s", err, out)
		}
		return Step{Wall: time.Since(start)}, nil
	}
	if _, err := run(0); err != nil {
		return 0, err
	}
	st, err := medianN(noopPairs, run)
	return st.Wall, err
}

func absIn(dir, path string) string {
	if filepath.IsAbs(path) || dir == "" {
		return path
	}
	return filepath.Join(dir, path)
}

// ninjaEscape quotes what ninja's syntax gives a meaning in a path.
func ninjaEscape(p string) string {
	return strings.NewReplacer("$", "$$", " ", "$ ", ":", "$:").Replace(p)
}
