package verify

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/toolchain"
)

// doctorRunner is a runner that says what it needs: its probes, and a
// finding per probed module (ok when it imports).
type doctorRunner struct {
	fakeRunner
	name   string
	probes []harness.Probe
}

func (r doctorRunner) Name() string            { return r.name }
func (r doctorRunner) Probes() []harness.Probe { return r.probes }
func (r doctorRunner) Doctor(_ harness.Options, py harness.Python) []harness.Finding {
	var fs []harness.Finding
	for _, p := range r.probes {
		m := py.Module(p.Module)
		if p.Interpreter != "" {
			m = py.Interpreter(p.Interpreter).Module(p.Module)
		}
		f := harness.Finding{Status: harness.OK, Name: p.Module, Detail: m.Label()}
		if !m.OK() {
			f = harness.Finding{Status: harness.Missing, Name: p.Module, Detail: m.Error, Fix: "pip install " + p.Module}
		}
		fs = append(fs, f)
	}
	return fs
}

// doctorEnv is the process's environment with vars over it.
func doctorEnv(vars map[string]string) toolchain.Env {
	env := toolchain.OSEnv()
	env.Getenv = func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	return env
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func realPython(t *testing.T) string {
	t.Helper()
	py := os.Getenv("OPFORGE_PYTHON")
	if py == "" {
		t.Skip("OPFORGE_PYTHON is not set (a Python with torch): doctor's probe is not run")
	}
	return py
}

// TestDoctorProbeRealPython: the probe, run in a real Python, imports each
// module (from the directories its Path variables name), reads its
// version and facts, and reports a module that fails to import (even by
// exiting) or a fact that fails without losing the others; what modules
// print does not disturb it; another interpreter's probes run in that
// interpreter, and an unset one is said to be.
func TestDoctorProbeRealPython(t *testing.T) {
	python := realPython(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"opforge_doctor_fixture.py": `import os, sys
print("noise on stdout")
os.write(1, b"noise on fd 1\n")
__version__ = "1.2.3"
VALUE = {"a": [1, 2]}
class Obj:
    def __str__(self):
        return "an Obj"
OBJ = Obj()
`,
		"opforge_doctor_exits.py": "raise SystemExit(3)\n",
	})
	o := DoctorOptions{Timeout: 2 * time.Minute}
	o.Env = doctorEnv(map[string]string{"OPFORGE_TEST_DOCTOR_PATH": dir, "OPFORGE_TEST_OTHER_PYTHON": python, "OPFORGE_TEST_UNSET_PYTHON": ""})
	py := RunProbes(o, append(append([]harness.Probe{}, harnessProbes...),
		harness.Probe{Module: "opforge_doctor_fixture", Path: []string{"OPFORGE_TEST_DOCTOR_PATH"}, Facts: map[string]string{"value": "m.VALUE", "obj": "m.OBJ", "bad": "m.nope"}},
		harness.Probe{Module: "opforge_doctor_exits", Path: []string{"OPFORGE_TEST_DOCTOR_PATH"}},
		harness.Probe{Module: "opforge_no_such_module"},
		harness.Probe{Module: "json", Interpreter: "OPFORGE_TEST_OTHER_PYTHON"},
		harness.Probe{Module: "json", Interpreter: "OPFORGE_TEST_UNSET_PYTHON"},
	))
	want, _ := exec.LookPath(python)
	if py.Problem != "" || py.Path != want || py.Via != "$OPFORGE_PYTHON" || !regexp.MustCompile(`^3\.\d+\.\d+`).MatchString(py.Version) {
		t.Fatalf("verify's Python: %+v", py)
	}
	if torch := py.Module("torch"); !torch.OK() || torch.Version == "" {
		t.Errorf("torch in OPFORGE_PYTHON: %+v", torch)
	}
	fx := py.Module("opforge_doctor_fixture")
	if !fx.OK() || fx.Version != "1.2.3" || fx.Fact("obj") != "an Obj" || !strings.Contains(fx.FactErrors["bad"], "AttributeError") {
		t.Errorf("fixture: %+v", fx)
	}
	if v, ok := fx.Facts["value"].(map[string]any); !ok || len(v["a"].([]any)) != 2 {
		t.Errorf("a JSON fact did not come back as JSON: %#v", fx.Facts["value"])
	}
	if m := py.Module("opforge_doctor_exits"); !strings.Contains(m.Error, "SystemExit") {
		t.Errorf("a module exiting on import: %+v", m)
	}
	if m := py.Module("opforge_no_such_module"); !strings.Contains(m.Error, "ModuleNotFoundError") {
		t.Errorf("a missing module: %+v", m)
	}
	if other := py.Interpreter("OPFORGE_TEST_OTHER_PYTHON"); other.Path != want || other.Via != "$OPFORGE_TEST_OTHER_PYTHON" || !other.Module("json").OK() {
		t.Errorf("the other interpreter: %+v", other)
	}
	if unset := py.Interpreter("OPFORGE_TEST_UNSET_PYTHON"); unset.Problem != "OPFORGE_TEST_UNSET_PYTHON is not set" || unset.Module("json").OK() {
		t.Errorf("an unset interpreter: %+v", unset)
	}
}

// TestDoctorTimesOutAHangingPython: a "Python" that never answers is
// reported within the timeout, naming it, and every runner counts as
// unable to run; a real Python that hangs importing a module names that
// module and keeps the modules probed before it.
func TestDoctorTimesOutAHangingPython(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"python": "#!/bin/sh\nsleep 30\n"})
	runners := []harness.Runner{doctorRunner{name: "one", probes: []harness.Probe{{Module: "json"}}}, doctorRunner{name: "two"}}
	o := DoctorOptions{Python: filepath.Join(dir, "python"), Timeout: 300 * time.Millisecond}
	var out bytes.Buffer
	start := time.Now()
	n := Doctor(&out, o, runners)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("doctor took %s with a 300ms timeout", took)
	}
	for _, w := range []string{
		"missing  python                       " + filepath.Join(dir, "python") + " (via --python): the probe did not finish within 300ms (doctor --timeout)",
		"verify one\n  missing  json                         not probed: the probe did not finish within 300ms",
		"2 verify runner(s) cannot run here (one, two)",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("doctor does not say %q:\n%s", w, out.String())
		}
	}
	if n != 2 {
		t.Errorf("%d runners cannot run, want 2", n)
	}

	python := realPython(t)
	writeFiles(t, dir, map[string]string{"opforge_doctor_slow.py": "import time\ntime.sleep(3600)\n"})
	// Long enough for a cold import torch on a loaded 2-core machine (it took over 10s in CI's run).
	o = DoctorOptions{Python: python, Timeout: 60 * time.Second}
	o.Env = doctorEnv(map[string]string{"OPFORGE_TEST_DOCTOR_PATH": dir})
	start = time.Now()
	py := RunProbes(o, append(append([]harness.Probe{}, harnessProbes...), harness.Probe{Module: "opforge_doctor_slow", Path: []string{"OPFORGE_TEST_DOCTOR_PATH"}}))
	if took := time.Since(start); took > 90*time.Second {
		t.Errorf("the probe took %s with a 60s timeout", took)
	}
	if !strings.Contains(py.Problem, "did not finish within 1m0s (doctor --timeout); it was importing opforge_doctor_slow") || !py.Module("torch").OK() {
		t.Errorf("a Python hanging in an import: %+v", py)
	}
	// verify's Python is fine (torch imported); the probe's end is said.
	if f := pythonFinding(py); f.Status != harness.OK || !strings.Contains(f.Detail, "; then the probe did not finish within 1m0s") {
		t.Errorf("verify's Python when a later import hangs: %+v", f)
	}
}

// TestDoctorReport: doctor's verify section names verify's Python (and
// what to set when there is none), prints each runner's findings under
// its name, says so of a runner that tells nothing, and counts the runners
// that cannot run.
func TestDoctorReport(t *testing.T) {
	runners := []harness.Runner{doctorRunner{name: "one", probes: []harness.Probe{{Module: "json"}}}, fakeRunner{}}
	var out bytes.Buffer
	o := DoctorOptions{Python: filepath.Join(t.TempDir(), "no-python")}
	if n := Doctor(&out, o, runners); n != 1 {
		t.Errorf("%d runners cannot run, want 1 (fake says nothing)", n)
	}
	for _, w := range []string{
		"verify (Python probe ",
		"  missing  python                       no Python interpreter",
		"(via --python): ",
		"; set OPFORGE_PYTHON or --python to a Python with torch (pip install torch)\n",
		"verify one\n  missing  json                         not probed: no Python interpreter",
		"verify fake\n  none     doctor                       the runner does not say what it needs\n",
		"1 verify runner(s) cannot run here (one); verify skips their ops and says why.\n",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("doctor does not say %q:\n%s", w, out.String())
		}
	}

	python := realPython(t)
	out.Reset()
	if n := Doctor(&out, DoctorOptions{Python: python}, runners[:1]); n != 0 {
		t.Errorf("%d runners cannot run, want 0:\n%s", n, out.String())
	}
	if !regexp.MustCompile(`(?m)^  ok       python +\S+ 3\.\d+\.\d+ \(via --python\), torch \S+\nverify one\n  ok       json +json \S+\n$`).MatchString(out.String()) {
		t.Errorf("doctor with a Python that has torch:\n%s", out.String())
	}
}

// TestMergeProbes: probes of one module in one interpreter merge (paths
// and facts together); another interpreter's stay apart.
func TestMergeProbes(t *testing.T) {
	got := harness.MergeProbes([]harness.Probe{
		{Module: "torch", Facts: map[string]string{"cuda": "a"}},
		{Module: "x", Path: []string{"A"}},
		{Module: "torch", Facts: map[string]string{"cuda": "b", "device": "c"}},
		{Module: "x", Path: []string{"A", "B"}},
		{Module: "x", Interpreter: "Q"},
	})
	if len(got) != 3 || got[0].Facts["cuda"] != "a" || got[0].Facts["device"] != "c" || strings.Join(got[1].Path, ",") != "A,B" || got[2].Interpreter != "Q" {
		t.Errorf("merged: %+v", got)
	}
}
