package buildengine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/opforge/opforge/generators/filestat"
	"github.com/opforge/opforge/generators/procgroup"

	"github.com/opforge/opforge/generators/filelock"
)

// Placeholders in Unit.Args replaced by temporary paths at run time, so a
// tool never writes the real artifact directly.
const (
	OutArg = "{out}"
	DepArg = "{dep}"
)

// Unit is one tool invocation producing one artifact.
type Unit struct {
	// ID names the unit in progress lines and errors.
	ID string
	// Tool is the executable; Args its arguments, with OutArg (and DepArg
	// when the tool writes a make-style depfile) where the paths go.
	Tool string
	Args []string
	// Inputs are the files whose contents decide the output (the source,
	// or the objects of a link). Headers come from the depfile.
	Inputs []string
	// Output is the artifact path.
	Output string
	// After lists IDs of units that must succeed first.
	After []string
	// Dir is the working directory (default: the current one).
	Dir string
	// Source is the main source file, for compile_commands.json; empty for
	// links.
	Source string
	// Launcher, when set, is run with Tool and Args as its arguments — a
	// compiler cache (ccache, sccache) or any wrapper. It runs only for
	// units that are out of date. Its path and its binary's contents are
	// part of the unit's key: an artifact is only as good as what made it,
	// so switching launchers rebuilds. A launcher that exits non-zero never
	// fails the unit (the tool then runs directly, see runner.exec); one
	// that exits 0 without a valid artifact does.
	Launcher string
	// Format is what the artifact must be to be trusted (FormatAuto: by
	// the output's extension). An artifact that is not fails the unit and
	// is removed.
	Format Format
}

// DefaultUnitTimeout bounds one unit's processes when Engine.UnitTimeout
// is zero: far above any compile or link opforge generates (seconds to a
// few minutes for the largest CUDA unit), far below forever.
const DefaultUnitTimeout = 30 * time.Minute

// Result of one Run.
type Result struct {
	Built, UpToDate, Failed, Skipped int
	Elapsed                          time.Duration
	// Processes counts tool processes started (0 for a no-op build).
	Processes int
	// Launched counts units run through their launcher; LauncherFailed
	// those whose launcher failed where the tool alone succeeded.
	Launched, LauncherFailed int
	// LauncherOff is set when the launcher failed often enough that the
	// rest of the build ran without it.
	LauncherOff bool
	// Seen is every file the up-to-date check read or trusted (tools,
	// launchers, inputs, the headers of the last depfiles), with the stat
	// it saw when it took the file's hash: a file whose stat is still this
	// one holds what the check decided on. A file it found absent is in
	// Seen with Exists false.
	Seen map[string]SeenFile
}

// SeenFile is a file as the up-to-date check saw it.
type SeenFile struct {
	Exists bool          `json:"exists"`
	Stat   filestat.Stat `json:"stat"`
}

// launcherGiveUp is how many launcher failures (where the tool alone then
// succeeded) turn the launcher off for the rest of a build. A cache that
// is down fails every unit the same way, and each failure costs a wasted
// process and often a connection timeout: two say enough.
const launcherGiveUp = 2

// Engine runs units, remembering successful runs in a state file.
type Engine struct {
	// StateFile holds the keys of successful runs and the stat cache.
	StateFile string
	// Jobs is the parallelism; 0 means the number of CPUs.
	Jobs int
	// Log receives the progress of the units run (Display), their
	// failures and warnings, and the summary.
	Log io.Writer
	// Display is how Log shows the units: a line as each starts and ends,
	// or a status line rewritten in place on a terminal.
	Display Display
	// Label prefixes the summary line.
	Label string
	// UnitTimeout bounds each unit's processes, launcher and tool
	// together; at the bound the unit's process group is killed and the
	// unit fails. 0 means DefaultUnitTimeout.
	UnitTimeout time.Duration
}

func (e *Engine) unitTimeout() time.Duration {
	if e.UnitTimeout > 0 {
		return e.UnitTimeout
	}
	return DefaultUnitTimeout
}

// Run brings every unit up to date. It returns an error naming the failed
// units; their tools' output has been written to Log.
func (e *Engine) Run(ctx context.Context, units []*Unit) (Result, error) {
	start := time.Now()
	show := newDisplay(e.Log, e.Display, len(units))
	// One build at a time per state file: two would race on the state and
	// on the artifacts. The lock goes with the process however it ends.
	unlock, err := filelock.LockContext(ctx, e.StateFile+".lock", func(holder string) {
		who := "another opforge build here"
		if holder != "" {
			who += " (pid " + holder + ")"
		}
		show.printf("%swaiting for %s to finish\n", labelOf(e.Label), who)
	})
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	// Leftovers of a killed build, removed while the lock says no build
	// runs here, before any unit makes temporaries of its own.
	for _, u := range units {
		removeLeftovers(u.Output)
	}
	st := loadState(e.StateFile)
	if err := checkGraph(units); err != nil {
		return Result{}, err
	}
	jobs := e.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	r := &runner{e: e, st: st, show: show, done: map[string]chan struct{}{}, ok: map[string]bool{}, sem: make(chan struct{}, jobs)}
	for _, u := range units {
		r.done[u.ID] = make(chan struct{})
	}
	var wg sync.WaitGroup
	for _, u := range units {
		wg.Add(1)
		go func(u *Unit) {
			defer wg.Done()
			defer close(r.done[u.ID])
			r.run(ctx, u)
		}(u)
	}
	wg.Wait()
	show.finish()
	r.res.Elapsed = time.Since(start)
	r.res.Seen = st.seen()
	if err := st.save(e.StateFile); err != nil {
		return r.res, err
	}
	label := labelOf(e.Label)
	if r.res.LauncherFailed > 0 {
		off := ""
		if r.res.LauncherOff {
			off = "; it was turned off for the rest of this build"
		}
		show.printf("%swarning: the compiler launcher failed on %d of %d launched units; they were compiled directly%s\n", label, r.res.LauncherFailed, r.res.Launched, off)
	}
	launched := ""
	if r.res.Launched > 0 {
		launched = fmt.Sprintf(" (%d through the compiler launcher)", r.res.Launched)
	}
	show.printf("%s%d units: %d built%s, %d up to date, %d failed, %d skipped in %s\n", label, len(units), r.res.Built, launched, r.res.UpToDate, r.res.Failed, r.res.Skipped, r.res.Elapsed.Round(time.Millisecond))
	if len(r.failed) > 0 {
		sort.Strings(r.failed)
		return r.res, fmt.Errorf("%d failed: %s", len(r.failed), strings.Join(r.failed, ", "))
	}
	return r.res, nil
}

func labelOf(label string) string {
	if label != "" {
		return label + ": "
	}
	return label
}

func checkGraph(units []*Unit) error {
	ids := map[string]bool{}
	outs := map[string]string{}
	for _, u := range units {
		if ids[u.ID] {
			return fmt.Errorf("two build units named %s", u.ID)
		}
		ids[u.ID] = true
		if other, dup := outs[u.Output]; dup {
			return fmt.Errorf("units %s and %s both produce %s", other, u.ID, u.Output)
		}
		outs[u.Output] = u.ID
	}
	for _, u := range units {
		for _, a := range u.After {
			if !ids[a] {
				return fmt.Errorf("unit %s waits for unknown unit %s", u.ID, a)
			}
		}
	}
	return nil
}

type runner struct {
	e      *Engine
	st     *state
	show   *display
	done   map[string]chan struct{}
	mu     sync.Mutex
	ok     map[string]bool
	failed []string
	res    Result
	sem    chan struct{}
	seq    int // units started
}

func (r *runner) run(ctx context.Context, u *Unit) {
	for _, a := range u.After {
		<-r.done[a]
	}
	r.mu.Lock()
	for _, a := range u.After {
		if !r.ok[a] {
			r.res.Skipped++
			r.mu.Unlock()
			return
		}
	}
	r.mu.Unlock()
	if key := r.st.key(u, r.st.prevDeps(u)); r.st.upToDate(u, key) {
		// The key says nothing of what sits at the output: an artifact
		// that is not what it should be (left by an older opforge that
		// trusted a lying launcher, or overwritten since) is rebuilt.
		bad := checkArtifact(u.Output, formatOf(u))
		if bad == nil {
			r.finish(u, true, func() { r.res.UpToDate++ })
			return
		}
		_ = os.Remove(u.Output)
		r.show.printf("%s: removed %s, which is not a %s (%v); building it again\n", u.ID, u.Output, formatOf(u), bad)
	}
	r.sem <- struct{}{}
	defer func() { <-r.sem }()
	r.mu.Lock()
	r.seq++
	seq := r.seq
	r.mu.Unlock()
	r.show.start(seq, u)
	t0 := time.Now()
	out, deps, procs, runErr := r.exec(ctx, u)
	elapsed := time.Since(t0)
	r.mu.Lock()
	r.res.Processes += procs
	r.mu.Unlock()
	if runErr != nil {
		why, failed := "", u.ID
		var ue *unitError
		if errors.As(runErr, &ue) {
			why = "  " + u.ID + ": " + ue.msg + "\n"
			failed += " (" + ue.short + ")"
		}
		r.show.failed(seq, u, elapsed, why, out)
		r.finish(u, false, func() { r.res.Failed++; r.failed = append(r.failed, failed) })
		return
	}
	r.show.done(seq, u, elapsed, out)
	r.st.record(u, deps)
	r.finish(u, true, func() { r.res.Built++ })
}

func (r *runner) finish(u *Unit, ok bool, count func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ok[u.ID] = ok
	count()
}

// exec runs the unit writing to temporary paths beside the output, then
// renames the artifact into place: a failure never clobbers the previous
// good artifact. With a launcher, the unit runs through it first; if that
// exits non-zero, the tool runs once more on its own, and only the tool's
// own failure fails the unit — a cache that is down, full or broken costs
// time, never a build. Whatever exits 0, its artifact is checked before it
// is trusted, and all of it runs within the unit timeout.
func (r *runner) exec(ctx context.Context, u *Unit) (out []byte, deps []string, procs int, err error) {
	if err := os.MkdirAll(filepath.Dir(u.Output), 0o755); err != nil {
		return []byte(err.Error()), nil, 0, err
	}
	tmpOut, tmpDep, err := temporaries(u.Output)
	if err != nil {
		return []byte(err.Error()), nil, 0, err
	}
	defer os.Remove(tmpOut) // gone after the rename, unless the run failed
	args := make([]string, len(u.Args))
	for i, a := range u.Args {
		a = strings.ReplaceAll(a, OutArg, tmpOut)
		args[i] = strings.ReplaceAll(a, DepArg, tmpDep)
	}
	defer os.Remove(tmpDep)
	timeout := r.e.unitTimeout()
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errUnitTimeout)
	defer cancel()
	procs = 1
	via := "" // the launcher that made the artifact; "" for the tool itself
	if r.launcherOn(u) {
		via = u.Launcher
		out, err = runTool(ctx, u.Dir, u.Launcher, append([]string{u.Tool}, args...), tmpOut)
		if err != nil && ctx.Err() == nil {
			launcherOut := out
			procs++
			via = ""
			if out, err = runTool(ctx, u.Dir, u.Tool, args, tmpOut); err == nil {
				r.launcherFailed(u, launcherOut)
			}
		}
	} else {
		out, err = runTool(ctx, u.Dir, u.Tool, args, tmpOut)
	}
	if err != nil {
		if ctx.Err() != nil {
			err = stopped(ctx, u, via, timeout)
		}
		return out, nil, procs, err
	}
	if bad := checkArtifact(tmpOut, formatOf(u)); bad != nil {
		_ = os.Remove(tmpOut) // never renamed into place, never kept
		return out, nil, procs, untrusted(u, via, bad)
	}
	if data, err := os.ReadFile(tmpDep); err == nil {
		deps = parseDepfile(data, u.Dir)
	}
	if err := os.Rename(tmpOut, u.Output); err != nil {
		return []byte(err.Error()), nil, procs, err
	}
	return out, deps, procs, nil
}

// errUnitTimeout is the cause of a unit's context ending at its timeout,
// told apart from the build's own context ending (an interrupt).
var errUnitTimeout = errors.New("unit timeout")

// unitError is a failure the engine diagnosed itself (a timeout, an
// artifact it does not trust), where no tool's output says why: msg is
// shown under the failed unit, short in the build's list of failures.
type unitError struct{ msg, short string }

func (e *unitError) Error() string { return e.msg }

// stage names what the unit was running: "compile", "link", with the
// launcher it ran through.
func stage(u *Unit, via string) string {
	s := "run"
	switch f := formatOf(u); {
	case f == FormatShared:
		s = "link"
	case f == FormatArchive:
		s = "archive"
	case f == FormatObject || u.Source != "":
		s = "compile"
	}
	if via != "" {
		s += " through compiler launcher " + via
	}
	return s
}

// stopped is the error of a unit whose context ended while a process ran:
// at its timeout, or by the build's interruption.
func stopped(ctx context.Context, u *Unit, via string, timeout time.Duration) error {
	if errors.Is(context.Cause(ctx), errUnitTimeout) {
		return &unitError{
			msg:   fmt.Sprintf("the %s ran past the unit timeout of %s (--unit-timeout); its process group was killed with %s", stage(u, via), timeout, procgroup.KillSignal),
			short: fmt.Sprintf("timed out after %s, killed with %s", timeout, procgroup.KillSignal),
		}
	}
	return &unitError{
		msg:   fmt.Sprintf("the build was interrupted during the %s; its process group was killed with %s", stage(u, via), procgroup.KillSignal),
		short: "interrupted",
	}
}

// untrusted is the error of a unit whose process exited 0 without
// writing a valid artifact.
func untrusted(u *Unit, via string, bad error) error {
	who := "compiler launcher " + via
	short := "bad output from compiler launcher " + via
	if via == "" {
		who, short = u.Tool, "bad output"
	}
	return &unitError{
		msg: fmt.Sprintf("%s exited 0, but what it wrote for %s is not a %s: %v; it was removed and nothing was kept",
			who, u.Output, formatOf(u), bad),
		short: short,
	}
}

// pipeGrace bounds how long a finished process's output pipes are
// waited for: a launcher that starts a daemon (sccache starts its server
// on first use) can leave a child holding them open for as long as the
// daemon lives.
var pipeGrace = 5 * time.Second

// runTool runs one process in a process group of its own, which ctx's end
// kills. What it wrote is checked by the caller.
func runTool(ctx context.Context, dir, tool string, args []string, tmpOut string) ([]byte, error) {
	_ = os.Remove(tmpOut) // a failed launcher may have left half a file
	cmd := procgroup.Command(ctx, tool, args...)
	cmd.WaitDelay = pipeGrace
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if errors.Is(err, exec.ErrWaitDelay) && ctx.Err() == nil {
		// It exited 0; only a daemon it left holds the pipes.
		err = nil
	}
	if err != nil {
		os.Remove(tmpOut)
		if errors.Is(err, exec.ErrNotFound) || os.IsNotExist(err) {
			return append(out, []byte(err.Error())...), err
		}
		return out, err
	}
	return out, nil
}

// launcherOn says whether u runs through its launcher, counting it when
// it does: not when the unit has none, nor once the launcher was turned
// off for this build.
func (r *runner) launcherOn(u *Unit) bool {
	if u.Launcher == "" {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.res.LauncherOff {
		return false
	}
	r.res.Launched++
	return true
}

// launcherFailed counts a unit whose launcher failed where the tool alone
// succeeded, and shows the first such failure in full: one warning per
// build, not one per unit, when a shared cache goes away. After
// launcherGiveUp of them the launcher is off for the rest of the build.
func (r *runner) launcherFailed(u *Unit, out []byte) {
	r.mu.Lock()
	r.res.LauncherFailed++
	first := r.res.LauncherFailed == 1
	if r.res.LauncherFailed >= launcherGiveUp {
		r.res.LauncherOff = true
	}
	r.mu.Unlock()
	if first {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = "(no output)"
		}
		r.show.printf("%swarning: compiler launcher %s failed on %s, which was compiled directly (further failures are only counted):\n%s\n", labelOf(r.e.Label), u.Launcher, u.ID, msg)
	}
}

// temporaries names the unit's temporary artifact and depfile beside the
// output: <output>.<random digits>.tmp and .d.tmp, unique (no two runs
// ever share a path) and created empty so the name is taken.
func temporaries(output string) (out, dep string, err error) {
	dir, base := filepath.Split(output)
	if dir == "" {
		dir = "." // CreateTemp would take "" for the system's temp dir
	}
	f, err := os.CreateTemp(dir, base+".*.tmp")
	if err != nil {
		return "", "", err
	}
	f.Close()
	out = f.Name()
	return out, strings.TrimSuffix(out, ".tmp") + ".d.tmp", nil
}

// removeLeftovers removes the temporaries a killed build left beside
// output. Only names temporaries makes are matched: the random part is
// all digits, so another output's temporaries (a.o beside a.o.x.o) are
// never taken for this one's.
func removeLeftovers(output string) {
	matches, _ := filepath.Glob(globEscape(output) + ".*.tmp")
	for _, m := range matches {
		rest := strings.TrimSuffix(strings.TrimPrefix(m, output+"."), ".tmp")
		rest = strings.TrimSuffix(rest, ".d")
		if rest != "" && strings.Trim(rest, "0123456789") == "" {
			_ = os.Remove(m)
		}
	}
}

// globEscape quotes the glob metacharacters of a path.
func globEscape(p string) string {
	var sb strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[\`, r) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// commandLine is a failed unit's command as a user can paste it into a
// shell to see the failure again: quoted for sh, run from the unit's
// directory, writing the artifact itself.
func commandLine(u *Unit) string {
	argv := standalone(u)
	for i, a := range argv {
		argv[i] = shellQuote(a)
	}
	line := strings.Join(argv, " ")
	if u.Dir != "" {
		line = "cd " + shellQuote(u.Dir) + " && " + line
	}
	return "  " + line
}

// shellQuote leaves words of plain characters alone and single-quotes the
// rest, the one quoting in which sh gives no character a meaning.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// parseDepfile reads a make-style depfile (target: dep dep \ ...) and
// returns the dependencies, made absolute against dir.
func parseDepfile(data []byte, dir string) []string {
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	var deps []string
	for _, line := range strings.Split(text, "\n") {
		i := strings.Index(line, ": ")
		if i < 0 {
			continue
		}
		// Escaped spaces are rare in SDK paths; split on plain spaces.
		for _, d := range strings.Fields(line[i+2:]) {
			if !filepath.IsAbs(d) && dir != "" {
				d = filepath.Join(dir, d)
			}
			deps = append(deps, filepath.Clean(d))
		}
	}
	sort.Strings(deps)
	out := deps[:0]
	for i, d := range deps {
		if i == 0 || d != deps[i-1] {
			out = append(out, d)
		}
	}
	return out
}

func hashBytes(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
