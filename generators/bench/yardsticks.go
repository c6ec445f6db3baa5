package bench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/opforge/opforge/generators/registry"
)

// ErrNoYardstick is returned (wrapped, with the reason) when a yardstick
// cannot run on this machine; the bench then says so instead of a row.
var ErrNoYardstick = errors.New("yardstick not available")

// paired runs a (opforge) and b (its yardstick) Repeats times in turn, a b
// a b ..., so that a machine whose speed drifts slows both alike, and
// returns the median wall time of each.
func paired(a, b func(rep int) (time.Duration, error)) (time.Duration, time.Duration, error) {
	return pairedN(Repeats, a, b)
}

// pairedN is paired over n pairs.
func pairedN(n int, a, b func(rep int) (time.Duration, error)) (time.Duration, time.Duration, error) {
	var as, bs []time.Duration
	for rep := 0; rep < n; rep++ {
		for _, side := range []struct {
			run func(int) (time.Duration, error)
			to  *[]time.Duration
		}{{a, &as}, {b, &bs}} {
			d, err := side.run(rep)
			if err != nil {
				return 0, 0, err
			}
			*side.to = append(*side.to, d)
		}
	}
	return medianOf(as), medianOf(bs), nil
}

func medianOf(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// timed runs one command (argv) in dir with env and returns its wall time.
func timed(argv []string, dir string, env []string) (time.Duration, []byte, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	return time.Since(start), out, err
}

// ColdBuild measures a cold `opforge build` of the team build's package of
// n synthetic ops beside the target's yardstick, the package built cold
// with its own build files (registry.TeamBench.Yardstick), each in a fresh
// build folder every run. Then, in the folders the last pair built, a
// no-op build of each: opforge's beside the yardstick's last command
// (ninja) with nothing to do, the issue's own measure of a no-op build.
func ColdBuild(o Options, n int) (cold, noop Comparison, err error) {
	c := Comparison{Name: fmt.Sprintf("cold build, %d ops, %s", n, teamTitle)}
	noop = Comparison{Name: fmt.Sprintf("no-op build, %d ops, %s", n, teamTitle), YardstickName: "ninja in the CMake build folder of the package's CMakeLists.txt"}
	yardstick := registry.TeamBench.Yardstick
	if yardstick == nil {
		return c, noop, fmt.Errorf("%w: the %s target names no build to compare with", ErrNoYardstick, teamTarget)
	}
	dir, err := filepath.Abs(filepath.Join(o.Work, fmt.Sprintf("cold-build-n%d", n)))
	if err != nil {
		return c, noop, err
	}
	out := filepath.Join(dir, "out")
	if err := Synthesize(filepath.Join(dir, "opdefs", "bench", "bench.yaml"), n, teamTarget, 0); err != nil {
		return c, noop, err
	}
	if _, err := o.gen(filepath.Join(dir, "opdefs"), out); err != nil {
		return c, noop, err
	}
	pkgs, _ := filepath.Glob(filepath.Join(out, teamTarget, "*", "CMakeLists.txt"))
	if len(pkgs) != 1 {
		return c, noop, fmt.Errorf("%w: the generated %s package has no CMakeLists.txt of its own", ErrNoYardstick, teamTarget)
	}
	toolchains, err := filepath.Abs(o.Toolchains)
	if err != nil {
		return c, noop, err
	}
	env := teamEnv()
	cmds, extra, err := yardstick(filepath.Dir(pkgs[0]), filepath.Join(dir, "yardstick-build"), env)
	if err != nil || len(cmds) == 0 {
		return c, noop, fmt.Errorf("%w: %v", ErrNoYardstick, err)
	}
	c.YardstickName = "CMake configure + ninja (the package's CMakeLists.txt)"
	runOpforge := func(rep int) (time.Duration, error) {
		argv := []string{o.Binary, "build", teamTarget, "--out", out, "--build", filepath.Join(dir, fmt.Sprintf("opforge-build-%d", rep)), "--toolchains", toolchains}
		d, output, err := timed(argv, dir, env)
		if m := cannotStart.Find(output); err != nil && m != nil {
			return d, fmt.Errorf("%w: %s", ErrNoYardstick, m)
		} else if err != nil {
			return d, fmt.Errorf("opforge build %s: %v\n%s", teamTarget, err, output)
		}
		return d, nil
	}
	runYardstick := func(rep int) (time.Duration, error) {
		cmds, _, _ := yardstick(filepath.Dir(pkgs[0]), filepath.Join(dir, fmt.Sprintf("yardstick-build-%d", rep)), env)
		var total time.Duration
		for _, argv := range cmds {
			d, output, err := timed(argv, dir, append(append([]string{}, env...), extra...))
			total += d
			if err != nil {
				return total, fmt.Errorf("%s: %v\n%s", argv[0], err, output)
			}
		}
		return total, nil
	}
	if c.OpForge, c.Yardstick, err = paired(runOpforge, runYardstick); err != nil {
		return c, noop, err
	}
	last := Repeats - 1
	noopOpforge := func(int) (time.Duration, error) { return runOpforge(last) }
	lastCmds, _, _ := yardstick(filepath.Dir(pkgs[0]), filepath.Join(dir, fmt.Sprintf("yardstick-build-%d", last)), env)
	noopYardstick := func(int) (time.Duration, error) {
		d, output, err := timed(lastCmds[len(lastCmds)-1], dir, append(append([]string{}, env...), extra...))
		if err != nil {
			return d, fmt.Errorf("%v\n%s", err, output)
		}
		return d, nil
	}
	noop.OpForge, noop.Yardstick, err = pairedN(noopPairs, noopOpforge, noopYardstick)
	return c, noop, err
}

// noopPairs is how many runs (or pairs) time a no-op build: a few
// milliseconds each, where one run of a loaded machine would decide a
// median of 3.
const noopPairs = 21

// PeerGen measures opforge's cold generation of n synthetic ops for the
// peer generator's target (registry.PeerBench) beside that generator on
// its own spec of the same ops, each into a fresh folder every run.
func PeerGen(o Options, n int) (Comparison, error) {
	peer := registry.PeerBench
	c := Comparison{Name: fmt.Sprintf("cold generate, %d ops, %s", n, peer.Target), YardstickName: peer.Name}
	dir, err := filepath.Abs(filepath.Join(o.Work, fmt.Sprintf("peer-n%d", n)))
	if err != nil {
		return c, err
	}
	if _, _, err := peer.Command(n, filepath.Join(dir, "peer"), filepath.Join(dir, "peer-out-probe")); err != nil {
		return c, fmt.Errorf("%w: %v", ErrNoYardstick, err)
	}
	opdefs := filepath.Join(dir, "opdefs")
	if err := Synthesize(filepath.Join(opdefs, "bench", "bench.yaml"), n, peer.Target, 0); err != nil {
		return c, err
	}
	runOpforge := func(rep int) (time.Duration, error) {
		st, err := o.gen(opdefs, filepath.Join(dir, fmt.Sprintf("opforge-%d", rep), "out"))
		return st.Wall, err
	}
	runPeer := func(rep int) (time.Duration, error) {
		argv, cwd, err := peer.Command(n, filepath.Join(dir, "peer"), filepath.Join(dir, fmt.Sprintf("peer-out-%d", rep)))
		if err != nil {
			return 0, err
		}
		d, output, err := timed(argv, cwd, os.Environ())
		if err != nil {
			return d, fmt.Errorf("%s: %v\n%s", peer.Name, err, output)
		}
		return d, nil
	}
	c.OpForge, c.Yardstick, err = paired(runOpforge, runPeer)
	return c, err
}
