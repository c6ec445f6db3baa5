package verify

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/opforge/opforge/generators/procgroup"

	"github.com/opforge/opforge/generators/harness"
)

// DefaultCaseTimeout bounds each stage of a runner (importing torch,
// loading an implementation, one case): generous for Triton's interpreter
// and a cold import, short enough that a hung kernel ends a CI job.
const DefaultCaseTimeout = 5 * time.Minute

// progress is the runner's line before each stage ({"stage": ...}).
type progress struct {
	Stage string `json:"stage"`
}

// pythonCheck is what verify found of its Python: the interpreter, and
// why it cannot run the runner (problem: every case a skip) or why it is
// broken (fatal: a hang or a crash while checking it, every case a
// failure).
type pythonCheck struct {
	path, problem string
	fatal         bool
}

// findPython checks that p (or $OPFORGE_PYTHON, else python3) imports
// torch within timeout. A missing interpreter or torch is a skip; an
// interpreter that hangs or crashes is a failure, never a hang or a skip.
func findPython(p string, timeout time.Duration) pythonCheck {
	p = harness.Interpreter(p)
	path, err := exec.LookPath(p)
	if err != nil {
		return pythonCheck{path: p, problem: fmt.Sprintf("no Python interpreter %q (set OPFORGE_PYTHON or --python to one with torch): %v", p, err)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := procgroup.Command(ctx, path, "-c", "import torch")
	out, err := cmd.CombinedOutput()
	switch {
	case err == nil:
		return pythonCheck{path: path}
	case ctx.Err() != nil:
		return pythonCheck{path: path, fatal: true, problem: fmt.Sprintf("%s -c 'import torch' did not finish in %s; opforge killed it (SIGKILL) (--case-timeout sets the limit)", path, timeout)}
	}
	var exit *exec.ExitError
	// A signal, or a wrapper script's 128+signal exit status, is a crash.
	if errors.As(err, &exit) && (!exit.Exited() || exit.ExitCode() > 128) {
		return pythonCheck{path: path, fatal: true, problem: fmt.Sprintf("%s crashed while importing torch (%s): %s", path, exit.ProcessState, lastLine(string(out)))}
	}
	why := lastLine(string(out))
	if why == "" {
		why = err.Error()
	}
	return pythonCheck{path: path, problem: fmt.Sprintf("%s cannot import torch (set OPFORGE_PYTHON or --python to one with torch): %s", path, why)}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "\n"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// runJob runs the runner on one (package, target) job, with impl's module
// beside it, and reads its results. A stage (importing torch, loading the
// implementation, one case) that reports no progress within timeout gets
// the runner's process group killed; a runner that dies (a crash, a
// signal) fails the cases it did not report, naming the stage it was in.
// An interrupt or termination of opforge kills the group too (it is not in
// the terminal's group) and reports interrupted.
func runJob(python string, j job, impl harness.Implementation, env []string, timeout time.Duration) (results []Result, interrupted bool) {
	j.Implementation = jobImpl{File: impl.File, Class: impl.Class}
	in, err := json.Marshal(j)
	fail := func(reason string) ([]Result, bool) {
		var rs []Result
		for _, op := range j.Ops {
			rs = append(rs, Result{Package: j.Package, Op: op.Op, Target: j.Target, Case: "-", Status: Fail, Reason: reason})
		}
		return rs, false
	}
	if err != nil {
		return fail("internal: " + err.Error())
	}
	dir, err := os.MkdirTemp("", "opforge-verify-")
	if err != nil {
		return fail(err.Error())
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "runner.py")
	if err := os.WriteFile(script, runner, 0o644); err != nil {
		return fail(err.Error())
	}
	if f := impl.File; !implementationFile().MatchString(f) {
		return fail(fmt.Sprintf("internal: the %s runner's implementation module is named %q, not <target>_verify.py", j.Target, f))
	}
	if err := os.WriteFile(filepath.Join(dir, impl.File), impl.Source, 0o644); err != nil {
		return fail(err.Error())
	}
	cmd := exec.Command(python, script)
	procgroup.Own(cmd)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = append(append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1"), env...)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fail(err.Error())
	}
	if err := cmd.Start(); err != nil {
		return fail(fmt.Sprintf("starting %s: %v", python, err))
	}
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			lines <- bytes.Clone(sc.Bytes())
		}
	}()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(stop)
	var rs []Result
	stage, timedOut := "start "+python, false
	var stopped os.Signal
	watchdog := time.NewTimer(timeout)
	defer watchdog.Stop()
	kill := func() {
		procgroup.Kill(cmd)
		// The group is dead; what it wrote before is still worth reading.
		for range lines {
		}
	}
read:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				break read
			}
			// Only the harness's own lines are progress: a kernel that prints
			// in a loop is as stuck as one that is silent.
			var p progress
			if json.Unmarshal(line, &p) == nil && p.Stage != "" {
				stage = p.Stage
				watchdog.Reset(timeout)
				continue
			}
			var r Result
			if json.Unmarshal(line, &r) != nil || r.Op == "" {
				continue
			}
			watchdog.Reset(timeout)
			r.Package, r.Target = j.Package, j.Target
			rs = append(rs, r)
		case <-watchdog.C:
			timedOut = true
			kill()
			break read
		case stopped = <-stop:
			kill()
			break read
		}
	}
	runErr := cmd.Wait()
	var why string
	switch {
	case stopped != nil:
		why = fmt.Sprintf("interrupted (%v) in stage %q; opforge killed the runner", stopped, stage)
	case timedOut:
		why = fmt.Sprintf("timed out: no progress for %s in stage %q; opforge killed the runner (SIGKILL) (--case-timeout sets the limit)", timeout, stage)
	case runErr != nil:
		why = fmt.Sprintf("the runner died in stage %q (%s)", stage, describeExit(runErr))
		if msg := lastLine(stderr.String()); msg != "" {
			why += ": " + msg
		}
	default:
		why = fmt.Sprintf("the runner exited after stage %q without reporting them", stage)
		if msg := lastLine(stderr.String()); msg != "" {
			why += ": " + msg
		}
	}
	return append(rs, unreported(j, rs, why)...), stopped != nil
}

// describeExit names how a process ended: its signal or exit status.
func describeExit(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ProcessState.String()
	}
	return err.Error()
}

// unreported fails, per op of j, the cases the runner did not report.
func unreported(j job, rs []Result, why string) []Result {
	got := map[[2]string]bool{}
	for _, r := range rs {
		got[[2]string{r.Op, r.Case}] = true
	}
	var out []Result
	for _, op := range j.Ops {
		missing := 0
		for _, c := range op.Cases {
			if !got[[2]string{op.Op, c.Name}] {
				missing++
			}
		}
		if missing > 0 {
			out = append(out, Result{Package: j.Package, Op: op.Op, Target: j.Target, Case: "-", Status: Fail,
				Reason: fmt.Sprintf("%d of %d cases did not run: %s", missing, len(op.Cases), why)})
		}
	}
	return out
}

// tailBuffer keeps the last 64 KiB written to it: a runner's stderr, of
// which verify reports the last line, must not grow without bound.
type tailBuffer struct{ b []byte }

const tailLimit = 64 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailLimit {
		t.b = append(t.b[:0], t.b[len(t.b)-tailLimit:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }
