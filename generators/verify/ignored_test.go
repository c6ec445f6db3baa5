package verify

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/verify/verifytest"
)

// ignoringModule is a kernel that ignores its params: it runs the
// reference with the params of the first case it sees (the base case,
// every param at its default) whatever the case gives.
const ignoringModule = `from opforge_runner import as_list, load


class Ignoring:
    def __init__(self, torch, job):
        self.ref = load(job["reference"]["module"], job["reference"]["path"])
        self.first = None

    def run(self, op, case, inputs):
        if self.first is None:
            self.first = {p["name"]: tuple(p["value"]) if p.get("array") else p["value"] for p in case["params"]}
        return as_list(self.ref.OPS[op["op"]](*inputs, **self.first))
`

type ignoringRunner struct{}

func (ignoringRunner) Name() string { return "ignoring" }
func (ignoringRunner) Runnable(harness.Options, *ir.Package, *ir.Op) (string, bool) {
	return "", true
}
func (ignoringRunner) Prepare(harness.Options, *ir.Package, string) harness.Prepared {
	return harness.Prepared{}
}
func (ignoringRunner) OpFields(*ir.Package, *ir.Op) map[string]any { return nil }
func (ignoringRunner) Implementation() harness.Implementation {
	return harness.Implementation{File: "ignoring_verify.py", Source: []byte(ignoringModule), Class: "Ignoring"}
}

// TestIgnoredParamFails: TopKLast's k has a min (1) and no default, so it
// was only ever 1 and a kernel ignoring it passed every case; now a case
// tries k above its min, and that kernel fails there.
func TestIgnoredParamFails(t *testing.T) {
	needPython(t)
	opdefs, out := verifytest.VisionWorkspace(t, examples)
	o := Options{OpDefs: opdefs, Out: out, Packages: []string{"VisionOps"}, Ops: []string{"TopKLast"},
		Runners: []harness.Runner{ignoringRunner{}}, Python: os.Getenv("OPFORGE_PYTHON")}
	var l diag.List
	rs := Run(o, &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	var buf bytes.Buffer
	WriteText(&buf, rs)
	for _, want := range []string{"FAIL VisionOps/TopKLast ignoring [k=4]", "FAIL VisionOps/TopKLast ignoring [order=smallest]", "PASS VisionOps/TopKLast ignoring [large B=3,L=1031]"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("want %q:\n%s", want, buf.String())
		}
	}
}
