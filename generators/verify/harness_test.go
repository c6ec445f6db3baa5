package verify

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/verify/verifytest"
)

// fakeModule is an implementation module of the kind targets embed: it
// imports the harness as opforge_runner and runs the reference itself,
// as the job's impl mode says ("off": every output plus one;
// "unavailable": it cannot run here; "not-taken": it takes no case;
// "kernel": it says it ran a kernel; "hang" and "crash": the second case
// sleeps forever or kills the process with SIGSEGV).
const fakeModule = `import os
import signal
import time

from opforge_runner import NotTaken, Unavailable, as_list, load


class Ref:
    def __init__(self, torch, job):
        self.mode = job["impl"]["mode"]
        if self.mode == "unavailable":
            raise Unavailable("the fake device is missing")
        if self.mode == "kernel":
            self.check, self.engine = "kernel", "fake engine 1.0"
        self.ref = load(job["reference"]["module"], job["reference"]["path"])
        self.runs = 0

    def run(self, op, case, inputs):
        self.runs += 1
        if self.mode == "not-taken":
            raise NotTaken("the fake takes no %s case" % op["op"])
        if self.mode == "hang" and self.runs == 2:
            time.sleep(3600)
        if self.mode == "crash" and self.runs == 2:
            os.kill(os.getpid(), signal.SIGSEGV)
        params = {p["name"]: tuple(p["value"]) if p.get("array") else p["value"] for p in case["params"]}
        outs = as_list(self.ref.OPS[op["op"]](*inputs, **params))
        return [o + 1 for o in outs] if self.mode == "off" else outs
`

// fakeRunner is a runner of every op with fakeModule's Ref class.
type fakeRunner struct{ mode, file string }

func (fakeRunner) Name() string { return "fake" }
func (fakeRunner) Runnable(harness.Options, *ir.Package, *ir.Op) (string, bool) {
	return "", true
}
func (r fakeRunner) Prepare(harness.Options, *ir.Package, string) harness.Prepared {
	return harness.Prepared{Impl: map[string]string{"mode": r.mode}}
}
func (fakeRunner) OpFields(*ir.Package, *ir.Op) map[string]any { return nil }
func (r fakeRunner) Implementation() harness.Implementation {
	file := r.file
	if file == "" {
		file = "fake_verify.py"
	}
	return harness.Implementation{File: file, Source: []byte(fakeModule), Class: "Ref"}
}

func fakeWorkspace(t *testing.T, r fakeRunner) Options {
	opdefs, out := verifytest.VisionWorkspace(t, examples)
	return Options{OpDefs: opdefs, Out: out, Packages: []string{"VisionOps"}, Ops: []string{"TopKLast"},
		Runners: []harness.Runner{r}, Python: os.Getenv("OPFORGE_PYTHON")}
}

// TestHarnessLoadsImplementation: the harness imports the runner's module
// written beside it and makes its class, whose verdicts it reports: the
// reference itself passes; outputs off by one fail (floats beyond the
// tolerance, integers exactly) unless the op's own atol covers the floats;
// Unavailable and NotTaken are skips with their messages; a module file
// name that is not one is a failure, never run.
func TestHarnessLoadsImplementation(t *testing.T) {
	needPython(t)
	report := func(rs []Result) string {
		var buf bytes.Buffer
		WriteText(&buf, rs)
		return buf.String()
	}
	run := func(o Options, least int) []Result {
		var l diag.List
		rs := Run(o, &l)
		if l.HasErrors() {
			t.Fatal(l.Sorted())
		}
		if len(rs) < least {
			t.Fatalf("want %d results at least:\n%s", least, report(rs))
		}
		return rs
	}
	every := func(rs []Result, status, reason string) {
		t.Helper()
		if slices.ContainsFunc(rs, func(r Result) bool { return r.Status != status || !strings.Contains(r.Reason, reason) }) {
			t.Errorf("want every case %s with %q:\n%s", status, reason, report(rs))
		}
	}
	every(run(fakeWorkspace(t, fakeRunner{mode: "same"}), 5), Pass, "")
	every(run(fakeWorkspace(t, fakeRunner{mode: "unavailable"}), 5), Skip, "the fake device is missing")
	every(run(fakeWorkspace(t, fakeRunner{mode: "not-taken"}), 5), Skip, "the fake takes no TopKLast case")
	every(run(fakeWorkspace(t, fakeRunner{mode: "same", file: "../fake.py"}), 1), Fail, `implementation module is named "../fake.py"`)

	off := fakeWorkspace(t, fakeRunner{mode: "off"})
	out := report(run(off, 5))
	for _, want := range []string{"FAIL VisionOps/TopKLast fake [base] max_abs=1", "output values differs beyond rtol=0.0001 atol=1e-05"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	opdef := filepath.Join(off.OpDefs, "vision", "vision_ops.yaml")
	data, err := os.ReadFile(opdef)
	if err != nil {
		t.Fatal(err)
	}
	widened := strings.Replace(string(data), "  - name: TopKLast\n", "  - name: TopKLast\n    verify: {atol: 100}\n", 1)
	if err := os.WriteFile(opdef, []byte(widened), 0o644); err != nil {
		t.Fatal(err)
	}
	out = report(run(off, 5))
	if strings.Contains(out, "output values differs") || !strings.Contains(out, "output indices differs (exact for int32)") {
		t.Errorf("atol 100 should pass the values and leave the indices exact:\n%s", out)
	}
}

func TestOpTolerancesNone(t *testing.T) {
	if got := opTolerances(&ir.Op{}); got != nil {
		t.Errorf("an op without verify: %v", got)
	}
}

func needPython(t *testing.T) {
	t.Helper()
	if os.Getenv("OPFORGE_PYTHON") == "" {
		t.Skip("OPFORGE_PYTHON is not set (a Python with torch); verify's runner is not run")
	}
	if py := findPython(os.Getenv("OPFORGE_PYTHON"), DefaultCaseTimeout); py.problem != "" {
		t.Skip(py.problem)
	}
}
