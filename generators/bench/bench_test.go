package bench

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunSmall runs the whole bench on tiny packages with a freshly built
// opforge: every step must run and report what it did.
func TestRunSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds opforge")
	}
	work := t.TempDir()
	bin := filepath.Join(work, "opforge")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/opforge").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var table bytes.Buffer
	o := Options{Binary: bin, Toolchains: "../../toolchains", Work: work, Sizes: []int{3}, Out: &table}
	steps, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 12 { // all, htp, trt, aipu x cold, no-op, one op changed
		t.Fatalf("%d steps:\n%s", len(steps), table.String())
	}
	for i := 0; i < len(steps); i += 3 {
		cold, noop, one := steps[i], steps[i+1], steps[i+2]
		if cold.FilesWritten == 0 || cold.CopyFloor == 0 || cold.PeakRSS == 0 {
			t.Errorf("cold step %+v: want files, a copy floor and peak memory", cold)
		}
		if noop.FilesWritten != 0 {
			t.Errorf("no-op step wrote %d files", noop.FilesWritten)
		}
		if one.FilesWritten == 0 || one.FilesWritten >= cold.FilesWritten {
			t.Errorf("one op changed wrote %d files (cold: %d)", one.FilesWritten, cold.FilesWritten)
		}
		for _, s := range []Step{cold, one} {
			names := make([]string, len(s.Stages))
			for j, st := range s.Stages {
				names[j] = st.Name
			}
			if got := strings.Join(names, ","); !strings.Contains(got, "load,check,generate,plan,apply") {
				t.Errorf("%s: stages %q, want load, check, generate, plan and apply among them", s.Name, got)
			}
		}
	}
	var stages bytes.Buffer
	(&Options{Sizes: o.Sizes, Out: &stages}).PrintStages(steps)
	if rows := strings.Count(stages.String(), "\n"); rows != 8 || !strings.Contains(stages.String(), "| one op changed | 3 | trt |") || !strings.Contains(stages.String(), "load ") {
		t.Errorf("stage table (want cold and one op changed of 4 target sets):\n%s", stages.String())
	}
	if _, err := NoopBuild(o, 3, "../../testdata/build/fake-compiler.sh"); err != nil {
		t.Fatal(err)
	}
	testNinjaNoop(t, o)
	if rows := strings.Count(table.String(), "\n"); rows != 13 {
		t.Errorf("table has %d rows:\n%s", rows, table.String())
	}
	testTeamBuild(t, o)
}

// testTeamBuild runs the team case on a 2-op package where the TensorRT
// headers are given (nvcc from CUDA_HOME or the test venv): the clone
// after the one that warmed the remote cache runs no compiler.
func testTeamBuild(t *testing.T, o Options) {
	if os.Getenv("CUDA_HOME") == "" {
		if m, _ := filepath.Glob("../../.venv/lib/python3*/site-packages/nvidia/cu13"); len(m) > 0 {
			cuda, _ := filepath.Abs(m[0])
			t.Setenv("CUDA_HOME", cuda)
			t.Setenv("NVCC", filepath.Join(cuda, "bin", "nvcc"))
		}
	}
	var table bytes.Buffer
	o.Out = &table
	steps, err := TeamBuild(o, 2)
	if errors.Is(err, ErrTeamSkipped) {
		if os.Getenv("TENSORRT_INCLUDE_DIR") != "" {
			t.Fatalf("team build skipped although TENSORRT_INCLUDE_DIR is set: %v", err)
		}
		t.Logf("team build not measured: %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 {
		t.Fatalf("%d team steps:\n%s", len(steps), table.String())
	}
	plain, fill, warm := steps[0], steps[1], steps[2]
	if plain.Units < 4 || plain.Compiled != plain.Units || plain.RemoteHits != 0 {
		t.Errorf("plain build: %+v", plain)
	}
	if fill.Compiled != fill.Units || fill.RemoteHits != 0 {
		t.Errorf("build filling the cache: %+v", fill)
	}
	if warm.Compiled != 0 || warm.RemoteHits != warm.Units {
		t.Errorf("build against the warm cache compiled: %+v", warm)
	}
	t.Logf("\n%s%s", TeamHeader, table.String())
}

// testNinjaNoop: the yardstick of the no-op build is ninja over one edge
// per unit of the same build, so it states as many files; its runs after
// the first have nothing to do (ninja says so).
func testNinjaNoop(t *testing.T, o Options) {
	if _, err := exec.LookPath("ninja"); err != nil {
		t.Logf("ninja yardstick not measured: %v", err)
		return
	}
	dir := filepath.Join(o.Work, "build-n3")
	if _, err := NinjaNoop(o, dir); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "ninja", "build.ninja")
	data, _ := os.ReadFile(file)
	if edges := strings.Count(string(data), "\nbuild "); edges < 3 {
		t.Errorf("build.ninja has %d edges for a 3-op package:\n%s", edges, data)
	}
	out, err := exec.Command("ninja", "-C", filepath.Dir(file)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "no work to do") {
		t.Errorf("ninja after the bench: %v\n%s", err, out)
	}
}

// TestRatio: two decimals below 1, so that a ratio near issue 30's 0.15x
// goal reads as itself, and one from 1 up.
func TestRatio(t *testing.T) {
	for _, c := range []struct {
		a, b time.Duration
		want string
	}{
		{122, 598, "0.20x"},
		{15, 100, "0.15x"},
		{1, 1, "1.0x"},
		{74, 33, "2.2x"},
		{6, 1, "6.0x"},
	} {
		if got := Ratio(c.a, c.b); got != c.want {
			t.Errorf("Ratio(%d, %d) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}
