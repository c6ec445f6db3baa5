package buildengine

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/buildengine/cachetest"
)

// teamSources is a small library whose compiles take long enough (std::regex,
// std::map instantiations) that a cache hit is visibly cheaper.
func teamSources(n int) map[string]string {
	files := map[string]string{"src/common.h": "#pragma once\n#include <map>\n#include <regex>\n#include <string>\ninline int count(const std::string& s, const char* re) { std::regex r(re); return (int)std::distance(std::sregex_iterator(s.begin(), s.end(), r), std::sregex_iterator()); }\n"}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("src/op%d.cpp", i)] = fmt.Sprintf("#include \"common.h\"\nint op%d(const std::string& s) { std::map<std::string, int> m; m[s] = count(s, \"[a-z]+%d\"); return m[s]; }\n", i, i)
	}
	return files
}

// teamUnits compiles every source and links the library, with paths
// relative to the clone's root as `opforge build` uses them (relative paths
// are what make results shareable between checkouts in other places).
func teamUnits(n int, gxx, launcher string) []*Unit {
	var units []*Unit
	var objs, ids []string
	for i := 0; i < n; i++ {
		src := fmt.Sprintf("src/op%d.cpp", i)
		obj := fmt.Sprintf("build/op%d.o", i)
		id := "compile " + src
		units = append(units, &Unit{ID: id, Tool: gxx, Launcher: launcher, Source: src, Inputs: []string{src}, Output: obj,
			Args: []string{"-std=c++17", "-O2", "-fPIC", "-MMD", "-MF", DepArg, "-c", src, "-o", OutArg}})
		objs, ids = append(objs, obj), append(ids, id)
	}
	units = append(units, &Unit{ID: "link libteam.so", Tool: gxx, Inputs: objs, Output: "build/libteam.so", After: ids,
		Args: append([]string{"-shared", "-o", OutArg}, objs...)})
	return units
}

// clone writes the sources into a fresh directory: another developer's
// checkout, somewhere else on disk.
func clone(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	for name, data := range files {
		full := filepath.Join(dir, name)
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// buildIn runs the engine in dir as `opforge build` would there, with log
// lines passed to onLine as they come.
func buildIn(t *testing.T, dir string, units []*Unit, onLine func(string)) (Result, string, time.Duration) {
	t.Helper()
	return buildJobs(t, dir, units, 2, onLine)
}

func buildJobs(t *testing.T, dir string, units []*Unit, jobs int, onLine func(string)) (Result, string, time.Duration) {
	t.Helper()
	t.Chdir(dir)
	w := &lineWriter{onLine: onLine}
	e := &Engine{StateFile: "build/.state.json", Log: w, Jobs: jobs}
	// Bounded: a cache that hangs must fail the test, not stall CI.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	r, err := e.Run(ctx, units)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("build in %s: %v\n%s", dir, err, w.String())
	}
	return r, w.String(), elapsed
}

type lineWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	onLine func(string)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.onLine != nil {
		for _, l := range strings.Split(string(p), "\n") {
			w.onLine(l)
		}
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func sameFile(t *testing.T, a, b string) {
	t.Helper()
	x, errA := os.ReadFile(a)
	y, errB := os.ReadFile(b)
	if errA != nil || errB != nil || !bytes.Equal(x, y) {
		t.Errorf("%s and %s differ (%v, %v)", a, b, errA, errB)
	}
}

// TestRemoteCacheSharesCompilesAcrossClones is the team case with the
// real pieces: ccache with its remote storage on a real redis-server. A
// second clone with an empty local cache compiles nothing, every compile a
// remote hit by ccache's own count, and links a byte-identical library;
// the server stopped in the middle of a build, or gone, fails nothing.
func TestRemoteCacheSharesCompilesAcrossClones(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ is not installed")
	}
	redis := cachetest.StartRedis(t)
	const n = 4
	files := teamSources(n)

	first := cachetest.NewCcache(t, redis.URL())
	first.Setenv(t)
	dirA := clone(t, files)
	r, _, coldTime := buildIn(t, dirA, teamUnits(n, gxx, first.Path), nil)
	stats := first.Stats(t)
	if r.Built != n+1 || r.Launched != n || r.LauncherFailed != 0 || stats.Compiled() != n || stats.RemoteHits() != 0 {
		t.Fatalf("first clone: %+v; ccache: %s", r, stats)
	}

	second := cachetest.NewCcache(t, redis.URL())
	second.Setenv(t)
	dirB := clone(t, files)
	r, _, warmTime := buildIn(t, dirB, teamUnits(n, gxx, second.Path), nil)
	stats = second.Stats(t)
	if r.Built != n+1 || stats.Compiled() != 0 || stats.RemoteHits() != n {
		t.Errorf("second clone compiled: %+v; ccache: %s", r, stats)
	}
	sameFile(t, filepath.Join(dirA, "build/libteam.so"), filepath.Join(dirB, "build/libteam.so"))
	for i := 0; i < n; i++ {
		sameFile(t, filepath.Join(dirA, fmt.Sprintf("build/op%d.o", i)), filepath.Join(dirB, fmt.Sprintf("build/op%d.o", i)))
	}
	t.Logf("cold build %s, second clone from the remote cache %s (%.0f%%); ccache: %s", coldTime.Round(time.Millisecond), warmTime.Round(time.Millisecond), 100*warmTime.Seconds()/coldTime.Seconds(), stats)
	if warmTime > coldTime/3 {
		t.Errorf("the second clone took %s against %s cold: the remote cache saved less than two thirds", warmTime, coldTime)
	}

	// The server goes away after the first compile of a third clone (one
	// job, so the stop falls between compiles): that compile is a remote
	// hit, the rest compile, and the build neither fails nor warns.
	third := cachetest.NewCcache(t, redis.URL())
	third.Setenv(t)
	dirC := clone(t, files)
	var once sync.Once
	r, log, _ := buildJobs(t, dirC, teamUnits(n, gxx, third.Path), 1, func(line string) {
		if strings.HasPrefix(line, "[1/") && strings.Contains(line, "] done ") {
			once.Do(redis.Stop)
		}
	})
	stats = third.Stats(t)
	if r.Built != n+1 || r.LauncherFailed != 0 || strings.Contains(log, "warning") {
		t.Errorf("build with the server stopped mid-way: %+v\n%s", r, log)
	}
	if stats.RemoteHits() != 1 || stats.Compiled() != n-1 {
		t.Errorf("server stopped after the first compile: want 1 remote hit and %d compiles; ccache: %s", n-1, stats)
	}
	sameFile(t, filepath.Join(dirA, "build/libteam.so"), filepath.Join(dirC, "build/libteam.so"))

	// Nothing listens there any more: every compile runs, none fails.
	fourth := cachetest.NewCcache(t, redis.URL())
	fourth.Setenv(t)
	dirD := clone(t, files)
	r, _, _ = buildIn(t, dirD, teamUnits(n, gxx, fourth.Path), nil)
	if stats = fourth.Stats(t); r.Built != n+1 || stats.Compiled() != n {
		t.Errorf("build with the server gone: %+v; ccache: %s", r, stats)
	}
}

// TestBrokenCacheNeverFailsTheBuild runs a real launcher that cannot
// start: Debian's sccache is built without its Redis backend, so pointing
// it at Redis makes every sccache call fail ("cache type is not enabled").
// The build still succeeds, compiling directly, with one warning. Where
// the packaged sccache does support Redis, the second clone's compiles
// must all be cache hits instead.
func TestBrokenCacheNeverFailsTheBuild(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ is not installed")
	}
	sccache := cachetest.Require(t, "sccache")[0]
	redis := cachetest.StartRedis(t)
	const n = 3
	files := teamSources(n)
	for i := 0; i < 2; i++ {
		port := freePort(t)
		t.Setenv("SCCACHE_REDIS", redis.URL())
		t.Setenv("SCCACHE_SERVER_PORT", strconv.Itoa(port))
		t.Setenv("SCCACHE_DIR", t.TempDir())
		t.Setenv("SCCACHE_IDLE_TIMEOUT", "30")
		r, log, _ := buildIn(t, clone(t, files), teamUnits(n, gxx, sccache), nil)
		stop := exec.Command(sccache, "--stop-server")
		stopOut, _ := stop.CombinedOutput()
		if r.LauncherFailed > 0 {
			if r.LauncherFailed < launcherGiveUp || !r.LauncherOff || strings.Count(log, "warning: compiler launcher") != 1 || r.Built != n+1 {
				t.Errorf("sccache failing: %+v\n%s", r, log)
			}
			t.Logf("sccache failed, was turned off, and the compiles ran directly:\n%s", firstLines(log, 4))
		} else if hits := sccacheHits(string(stopOut)); i == 1 && hits != n {
			t.Errorf("sccache worked but the second clone had %d cache hits, want %d:\n%s", hits, n, stopOut)
		}
	}
}

// sccacheHits reads "Cache hits  N" from sccache's statistics text.
func sccacheHits(stats string) int {
	for _, line := range strings.Split(stats, "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "Cache" && f[1] == "hits" {
			n, _ := strconv.Atoi(f[2])
			return n
		}
	}
	return -1
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
