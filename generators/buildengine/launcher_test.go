package buildengine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// launcherScript is a stand-in for ccache: it logs its argv, then either
// runs the compiler it was given or fails like a cache that is down.
func launcherScript(t *testing.T, p *project, fail bool) string {
	t.Helper()
	body := "#!/bin/sh\necho \"launcher $@\" >> " + p.log + "\nexec \"$@\"\n"
	if fail {
		body = "#!/bin/sh\necho \"launcher $@\" >> " + p.log + "\necho 'remote storage unreachable' >&2\nexit 3\n"
	}
	path := filepath.Join(p.dir, "launcher")
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func (p *project) runWith(t *testing.T, launcher string) (Result, string, error) {
	t.Helper()
	return p.runWithJobs(t, launcher, 2)
}

func (p *project) runWithJobs(t *testing.T, launcher string, jobs int) (Result, string, error) {
	t.Helper()
	units := p.units()
	for _, u := range units {
		if u.Source != "" { // compiles only: caches do not serve links
			u.Launcher = launcher
		}
	}
	var log bytes.Buffer
	e := &Engine{StateFile: filepath.Join(p.dir, "build", ".state.json"), Log: &log, Jobs: jobs}
	r, err := e.Run(context.Background(), units)
	return r, log.String(), err
}

func TestLauncherRunsOnlyOutOfDateCompiles(t *testing.T) {
	p := newProject(t)
	launcher := launcherScript(t, p, false)
	r, log, err := p.runWith(t, launcher)
	if err != nil || r.Built != 4 || r.Launched != 3 || r.LauncherFailed != 0 {
		t.Fatalf("cold build: %+v %v\n%s", r, err, log)
	}
	got := p.processes(t)
	launched := 0
	for _, l := range got {
		if strings.HasPrefix(l, "launcher "+p.cxx+" ") {
			launched++
		}
		if strings.HasPrefix(l, "launcher") && strings.Contains(l, "-shared") {
			t.Errorf("the link ran through the launcher: %s", l)
		}
	}
	if launched != 3 {
		t.Errorf("%d compiles went through the launcher, want 3:\n%s", launched, strings.Join(got, "\n"))
	}
	if !strings.Contains(log, "3 through the compiler launcher") {
		t.Errorf("the summary does not count launched units:\n%s", log)
	}
	// Unchanged, a second build starts no process.
	r, log, err = p.runWith(t, launcher)
	if err != nil || r.Built != 0 || r.Processes != 0 || len(p.processes(t)) != 0 {
		t.Errorf("no-op build through the launcher: %+v %v\n%s", r, err, log)
	}
	// The launcher is part of a compile's key (an object is only as good
	// as what made it): taking it away, or adding it back, rebuilds the
	// compiles; the link, whose objects come out the same, stays.
	for _, l := range []string{"", launcher} {
		r, log, err = p.runWith(t, l)
		if err != nil || r.Built != 3 || r.UpToDate != 1 {
			t.Errorf("switching the launcher to %q: %+v %v\n%s", l, r, err, log)
		}
		p.processes(t)
	}
}

func TestFailingLauncherNeverFailsTheBuild(t *testing.T) {
	p := newProject(t)
	launcher := launcherScript(t, p, true)
	// One job: which units ran through the launcher before it was turned
	// off is then fixed.
	r, log, err := p.runWithJobs(t, launcher, 1)
	if err != nil || r.Built != 4 || r.Launched != launcherGiveUp || r.LauncherFailed != launcherGiveUp || !r.LauncherOff {
		t.Fatalf("a failing launcher failed the build or stayed on: %+v %v\n%s", r, err, log)
	}
	if n := strings.Count(log, "warning: compiler launcher"); n != 1 {
		t.Errorf("%d per-unit warnings, want one for the build:\n%s", n, log)
	}
	for _, want := range []string{"remote storage unreachable", "compiled directly", "failed on 2 of 2 launched units", "turned off for the rest of this build", "4 units: 4 built (2 through the compiler launcher)"} {
		if !strings.Contains(log, want) {
			t.Errorf("log does not say %q:\n%s", want, log)
		}
	}
	if _, err := os.Stat(filepath.Join(p.dir, "build", "libx.so")); err != nil {
		t.Errorf("library missing: %v", err)
	}
	// Two compiles: the launcher, then the compiler alone; the third
	// compile and the link: the tool alone.
	if got := p.processes(t); len(got) != 2*2+1+1 || r.Processes != 2*2+1+1 {
		t.Errorf("%d processes logged, %d counted; want 6:\n%s", len(got), r.Processes, strings.Join(got, "\n"))
	}
	// A launcher that is not there at all is the same (a new launcher:
	// every compile runs again); one failure leaves it on.
	missing := filepath.Join(p.dir, "no-such-launcher")
	r, log, err = p.runWithJobs(t, missing, 1)
	if err != nil || r.Built != 3 || r.LauncherFailed != launcherGiveUp || !r.LauncherOff {
		t.Errorf("missing launcher: %+v %v\n%s", r, err, log)
	}
	p.write(t, "src/c.cpp", "int c() { return 9; }\n")
	r, log, err = p.runWith(t, missing)
	if err != nil || r.Built != 2 || r.LauncherFailed != 1 || r.LauncherOff {
		t.Errorf("missing launcher, one compile: %+v %v\n%s", r, err, log)
	}
}

// TestLauncherLeavingPipesOpen: a launcher that starts a daemon holding
// its output pipes (sccache starts its server on first use) does not hold
// the build for as long as the daemon lives.
func TestLauncherLeavingPipesOpen(t *testing.T) {
	defer func(d time.Duration) { pipeGrace = d }(pipeGrace)
	pipeGrace = 300 * time.Millisecond
	p := newProject(t)
	path := filepath.Join(p.dir, "daemonizing-launcher")
	body := "#!/bin/sh\n(sleep 60) &\nexec \"$@\"\n"
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	r, log, err := p.runWithJobs(t, path, 1)
	if err != nil || r.Built != 4 {
		t.Fatalf("%+v %v\n%s", r, err, log)
	}
	// Three compiles each wait at most pipeGrace for the pipes.
	if took := time.Since(t0); took > 20*time.Second {
		t.Errorf("the build took %s: it waited for the daemon", took)
	}
}

func TestCompileErrorThroughLauncherShowsTheCompiler(t *testing.T) {
	p := newProject(t)
	launcher := launcherScript(t, p, false)
	p.write(t, "src/b.cpp", "int b() { return undefined_thing; }\n")
	r, log, err := p.runWith(t, launcher)
	if err == nil || r.Failed != 1 || r.LauncherFailed != 0 {
		t.Fatalf("a broken source passed or blamed the launcher: %+v %v\n%s", r, err, log)
	}
	if !strings.Contains(log, "undefined_thing") || strings.Contains(log, "warning: compiler launcher") {
		t.Errorf("the compiler's diagnostics are not what is shown:\n%s", log)
	}
}
