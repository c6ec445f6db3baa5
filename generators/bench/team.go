package bench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/opforge/opforge/generators/buildengine/remotecache"
)

// TeamStep is one cold build of the team case.
type TeamStep struct {
	Name string
	Ops  int
	// Units is the number of compile units; Compiled how many compilers
	// actually ran (ccache's misses, or every unit without a launcher);
	// RemoteHits how many results came from the shared cache.
	Units, Compiled, RemoteHits int
	Wall                        time.Duration
	User, Sys                   time.Duration
}

// ErrTeamSkipped is returned (wrapped, with the reason) when the team case
// cannot run on this machine.
var ErrTeamSkipped = errors.New("team build skipped")

// TeamHeader is the table header TeamBuild prints.
var TeamHeader = "| cold build of the " + teamTitle + " package | ops | compile units | wall | user / sys CPU | compilers run | remote hits |\n|---|---|---|---|---|---|---|\n"

// TeamBuild measures what a shared compiler cache saves a team: the
// package of n synthetic ops for teamTarget (targets.go), built cold in
// three fresh clones, each `opforge build <teamTarget>` in its own
// process — plainly (no launcher); with
// ccache, an empty local cache and an empty remote (the first developer,
// who fills it); and with ccache, an empty local cache and the now warm
// remote (everyone after). The remote is a redis-server on loopback. It
// needs ccache, redis-server and what the target's build needs (its
// preflight says what is missing); otherwise it returns ErrTeamSkipped
// with what is missing. teamCompilerEnv sets what the target's compilers
// need.
func TeamBuild(o Options, n int) ([]TeamStep, error) {
	ccache, err := exec.LookPath("ccache")
	if err != nil {
		return nil, fmt.Errorf("%w: ccache is not installed (apt-get install ccache)", ErrTeamSkipped)
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, fmt.Errorf("%w: redis-server is not installed (apt-get install redis-server)", ErrTeamSkipped)
	}
	dir, err := filepath.Abs(filepath.Join(o.Work, fmt.Sprintf("team-n%d", n)))
	if err != nil {
		return nil, err
	}
	toolchains, err := filepath.Abs(o.Toolchains)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "redis"), 0o755); err != nil {
		return nil, err
	}
	redis, err := remotecache.StartRedis(filepath.Join(dir, "redis"))
	if err != nil {
		return nil, err
	}
	defer redis.Stop()
	env := teamEnv()
	var steps []TeamStep
	for i, name := range []string{"plain (no launcher)", "ccache, empty local and remote cache", "ccache, empty local cache, warm remote"} {
		// Each clone is an op repository of its own (opdefs/ beside out/):
		// opforge build finds the root it builds as git does, the nearest
		// folder above holding opdefs/.
		clone := filepath.Join(dir, fmt.Sprintf("clone-%d", i))
		opdefs := filepath.Join(clone, "opdefs")
		if err := Synthesize(filepath.Join(opdefs, "bench", "bench.yaml"), n, teamTarget, 0); err != nil {
			return steps, err
		}
		if _, err := o.gen(opdefs, filepath.Join(clone, "out")); err != nil {
			return steps, err
		}
		cmdEnv := env
		var cc *remotecache.Ccache
		if i > 0 {
			if cc, err = remotecache.NewCcache(ccache, filepath.Join(clone, "ccache"), redis.URL()); err != nil {
				return steps, err
			}
			cmdEnv = append(cc.Environ(env), "OPFORGE_COMPILER_LAUNCHER="+ccache)
		}
		st, err := teamBuild(o.Binary, clone, toolchains, cmdEnv)
		if err != nil {
			return steps, err
		}
		st.Name, st.Ops, st.Compiled = name, n, st.Units
		if cc != nil {
			stats, err := cc.Stats()
			if err != nil {
				return steps, err
			}
			st.Compiled, st.RemoteHits = stats.Compiled(), stats.RemoteHits()
		}
		fmt.Fprintf(o.Out, "| %s | %d | %d | %s | %s / %s | %d | %d |\n", st.Name, st.Ops, st.Units, ms(st.Wall), ms(st.User), ms(st.Sys), st.Compiled, st.RemoteHits)
		steps = append(steps, st)
	}
	return steps, nil
}

// teamEnv is the environment of the builds: the caller's without any
// launcher or compiler-cache setting (each step sets its own, so a
// developer's ccache cannot make the plain step warm), with what the
// target's compilers need (teamCompilerEnv).
func teamEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "OPFORGE_COMPILER_LAUNCHER", strings.HasSuffix(name, "_LAUNCHER"),
			strings.HasPrefix(name, "CCACHE_"), strings.HasPrefix(name, "SCCACHE_"):
			continue
		}
		env = append(env, kv)
	}
	return teamCompilerEnv(env)
}

var (
	unitsLine    = regexp.MustCompile(`(\d+) units: (\d+) built`)
	cannotStart  = regexp.MustCompile(`(?s)build cannot start.*`)
	launchedLine = regexp.MustCompile(`\((\d+) through the compiler launcher\)`)
)

// teamBuild runs one cold `opforge build <teamTarget>` in clone and counts its
// compile units (every unit but the one link per package).
func teamBuild(binary, clone, toolchains string, env []string) (TeamStep, error) {
	flushDirty() // as in gen: no step pays for another's writeback
	cmd := exec.Command(binary, "build", teamTarget, "--toolchains", toolchains)
	cmd.Dir, cmd.Env = clone, env
	start := time.Now()
	output, err := cmd.CombinedOutput()
	st := TeamStep{Wall: time.Since(start)}
	if err != nil {
		if m := cannotStart.Find(output); m != nil {
			return st, fmt.Errorf("%w: %s", ErrTeamSkipped, m)
		}
		return st, fmt.Errorf("opforge build %s: %v\n%s", teamTarget, err, output)
	}
	st.User, st.Sys = cmd.ProcessState.UserTime(), cmd.ProcessState.SystemTime()
	m := unitsLine.FindSubmatch(output)
	if m == nil {
		return st, fmt.Errorf("opforge build %s printed no summary:\n%s", teamTarget, output)
	}
	units, _ := strconv.Atoi(string(m[1]))
	st.Units = units - 1 // the library's link: the bench generates one package
	if l := launchedLine.FindSubmatch(output); l != nil {
		if launched, _ := strconv.Atoi(string(l[1])); launched != st.Units {
			return st, fmt.Errorf("%d of %d compile units ran through the launcher:\n%s", launched, st.Units, output)
		}
	}
	return st, nil
}
