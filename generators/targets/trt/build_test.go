package trt_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/bench"
	"github.com/opforge/opforge/generators/buildengine"
	"github.com/opforge/opforge/generators/buildengine/cachetest"
	"github.com/opforge/opforge/generators/buildengine/remotecache"
	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/gen"
	"github.com/opforge/opforge/generators/targets/trt"
	"github.com/opforge/opforge/generators/toolchain"
	"github.com/opforge/opforge/generators/writer"
)

// TestTRTBuild builds the shipped TensorRT plugin libraries with the real
// nvcc and g++ when TENSORRT_INCLUDE_DIR names TensorRT headers (nvcc and
// the CUDA runtime come from CUDA_HOME or the test venv's CUDA wheels).
func TestTRTBuild(t *testing.T) {
	inc := os.Getenv("TENSORRT_INCLUDE_DIR")
	if inc == "" {
		t.Skip("TENSORRT_INCLUDE_DIR is not set: building the plugin libraries needs the TensorRT headers")
	}
	repo, _ := filepath.Abs("../../..")
	// The examples' copy, never the workspace's out/ (issue 15 item 4).
	o := buildplan.Options{Out: filepath.Join(repo, "testdata/gen/examples/out"), Build: t.TempDir(), Toolchains: filepath.Join(repo, "toolchains"), Env: trtTestEnv(repo, nil)}
	p, err := trt.BuildPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Preflight(); err != nil {
		t.Skipf("no CUDA toolchain: %v", err)
	}
	var log bytes.Buffer
	if _, err := p.Run(context.Background(), &log, 0); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	lib := filepath.Join(o.Build, "trt/VisionOps/libVisionOps.so")
	out, err := exec.Command("nm", "-D", "--defined-only", lib).Output()
	if err != nil {
		t.Fatal(err)
	}
	var exports []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 && strings.ContainsAny(f[1], "TWDB") {
			exports = append(exports, f[2])
		}
	}
	if strings.Join(exports, " ") != "getCreators getPluginCreators setLoggerFinder" {
		t.Errorf("libVisionOps.so exports %v", exports)
	}
	// A no-op rebuild runs nothing.
	log.Reset()
	r, err := p.Run(context.Background(), &log, 0)
	if err != nil || r.Processes != 0 {
		t.Errorf("no-op build: %+v %v\n%s", r, err, log.String())
	}
}

func TestTRTPreflight(t *testing.T) {
	o := buildplan.Options{Out: "../../../testdata/gen/examples/out", Build: t.TempDir(), Toolchains: "../../../toolchains", Env: toolchain.Env{
		Getenv: func(string) string { return "" }, LookPath: func(string) (string, error) { return "", os.ErrNotExist }, Root: t.TempDir()}}
	p, err := trt.BuildPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	err = p.Preflight()
	if err == nil || !strings.Contains(err.Error(), "set TENSORRT_INCLUDE_DIR") || !strings.Contains(err.Error(), "set NVCC") {
		t.Errorf("preflight: %v", err)
	}
}

// TestTRTBuildSharesRemoteCache builds one TensorRT package with several
// ops in two fresh clones, each with an empty local ccache in front of nvcc
// and g++ and one redis-server as the shared remote storage: the second
// clone compiles nothing — every compile unit a remote hit by ccache's own
// count — and links a byte-identical library. The clones are built as
// `opforge build trt` runs there, with paths relative to the clone.
func TestTRTBuildSharesRemoteCache(t *testing.T) {
	if os.Getenv("TENSORRT_INCLUDE_DIR") == "" {
		t.Skip("TENSORRT_INCLUDE_DIR is not set: building the plugin libraries needs the TensorRT headers")
	}
	redis := cachetest.StartRedis(t)
	repo, _ := filepath.Abs("../../..")
	// A package of several ops, generated here so the test depends on
	// neither the user's opdefs nor their out/.
	pkg := filepath.Join(t.TempDir(), "out")
	generateBench(t, filepath.Join(repo, "toolchains"), pkg, 4, "trt")
	type cloneResult struct {
		dir   string
		r     buildengine.Result
		stats remotecache.Stats
		units int
		took  time.Duration
	}
	buildClone := func() cloneResult {
		cc := cachetest.NewCcache(t, redis.URL())
		cc.Setenv(t)
		dir := t.TempDir()
		copyDir(t, pkg, filepath.Join(dir, "out"))
		t.Chdir(dir)
		o := buildplan.Options{Out: "out", Build: "build", Toolchains: filepath.Join(repo, "toolchains"),
			Env: trtTestEnv(repo, map[string]string{"OPFORGE_COMPILER_LAUNCHER": "ccache"})}
		p, err := trt.BuildPlan(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Preflight(); err != nil {
			t.Skipf("no CUDA toolchain: %v", err)
		}
		compiles := 0
		for _, u := range p.Units {
			if u.Source != "" {
				compiles++
				if u.Launcher != cc.Path {
					t.Fatalf("%s does not run through ccache: %q", u.ID, u.Launcher)
				}
			}
		}
		var log bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // bounded: a hanging cache fails, never stalls CI
		defer cancel()
		start := time.Now()
		r, err := p.Run(ctx, &log, 0)
		if err != nil {
			t.Fatalf("%v\n%s", err, log.String())
		}
		return cloneResult{dir: dir, r: r, stats: cc.Stats(t), units: compiles, took: time.Since(start)}
	}
	a := buildClone()
	if a.units < 6 || a.stats.Compiled() != a.units || a.r.LauncherFailed != 0 {
		t.Fatalf("first clone: %d compile units, %+v; ccache: %s", a.units, a.r, a.stats)
	}
	b := buildClone()
	if b.stats.Compiled() != 0 || b.stats.RemoteHits() != b.units {
		t.Errorf("second clone: %d compile units; ccache: %s", b.units, b.stats)
	}
	libs, _ := filepath.Glob(filepath.Join(a.dir, "build/trt/*/lib*.so"))
	if len(libs) == 0 {
		t.Fatal("no library built")
	}
	for _, lib := range libs {
		rel, _ := filepath.Rel(a.dir, lib)
		x, _ := os.ReadFile(lib)
		y, err := os.ReadFile(filepath.Join(b.dir, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between the clones (%v)", rel, err)
		}
	}
	t.Logf("%d compile units: first clone %s, second clone %s from the remote cache; ccache: %s", a.units, a.took.Round(time.Millisecond), b.took.Round(time.Millisecond), b.stats)
}

// generateBench writes the generated tree of bench.Synthesize's n-op
// package for the given targets into out.
func generateBench(t *testing.T, toolchains, out string, n int, targets string) {
	t.Helper()
	opdefs := filepath.Join(t.TempDir(), "opdefs")
	if err := bench.Synthesize(filepath.Join(opdefs, "bench.yaml"), n, targets, 0); err != nil {
		t.Fatal(err)
	}
	var l diag.List
	plan := gen.Plan(gen.Options{OpDefs: opdefs, Toolchains: toolchains, Out: out}, &l)
	if l.HasErrors() || plan == nil {
		t.Fatalf("generating the bench package: %v", l)
	}
	if _, err := writer.Apply(plan); err != nil {
		t.Fatal(err)
	}
}

// trtTestEnv is the real environment with one CUDA architecture unless
// CUDA_ARCHS is set (it keeps the tests short), the variables in set
// overriding it, and relative search paths (the venv's CUDA) from repo.
func trtTestEnv(repo string, set map[string]string) toolchain.Env {
	return toolchain.Env{Getenv: func(k string) string {
		if v, ok := set[k]; ok {
			return v
		}
		if k == "CUDA_ARCHS" && os.Getenv(k) == "" {
			return "80"
		}
		return os.Getenv(k)
	}, LookPath: exec.LookPath, Root: repo}
}

// copyDir copies the tree src to dst (as the htp build tests do).

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, _ := os.ReadFile(p)
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}
