package verify

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
)

const rangeOpdef = `version: 1
package: {name: RangeOps, domain: example, version: 1.0.0}
ops:
  - name: TakeRows
    types: {T: [float32]}
    inputs:
      - {name: x, type: T, shape: [N, C]}
      - {name: idx, type: [int32, uint8], shape: [K], range: [0, N - 1]}
      - {name: far, type: int8, shape: [K], range: [-1000, depth]}
    params:
      - {name: depth, type: int32, default: 4, min: 0, max: 6}
    outputs:
      - {name: y, type: T, shape: [K, C]}
`

// TestCasesValueRange: an integer input's range is evaluated per case (its
// symbols and params at the case's values, within what the dtype holds),
// and the runner draws every value within it, both ends included.
func TestCasesValueRange(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ops.yaml"), []byte(rangeOpdef), 0o644); err != nil {
		t.Fatal(err)
	}
	var l diag.List
	pkgs := load.Tree(dir, &l)
	if l.HasErrors() || len(pkgs) != 1 {
		t.Fatal(l.Sorted())
	}
	cs, notes := Cases(pkgs[0].Ops[0])
	want := map[string][2][]int64{
		// name: {idx range, far range}
		"base":               {{0, 2}, {-128, 4}},
		"T=float32,#1=uint8": {{0, 2}, {-128, 4}},
		"N=1,C=1,K=1":        {{0, 0}, {-128, 4}},
		"N=2,C=5,K=3":        {{0, 1}, {-128, 4}},
		"depth=0":            {{0, 2}, {-128, 0}},
		"depth=6":            {{0, 2}, {-128, 6}},
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
		w, ok := want[c.Name]
		if !ok {
			continue
		}
		if !slices.Equal(c.Inputs[1].Range, w[0]) || !slices.Equal(c.Inputs[2].Range, w[1]) {
			t.Errorf("case %s: ranges %v %v, want %v %v", c.Name, c.Inputs[1].Range, c.Inputs[2].Range, w[0], w[1])
		}
		if c.Inputs[0].Range != nil {
			t.Errorf("case %s: x has range %v", c.Name, c.Inputs[0].Range)
		}
	}
	for n := range want {
		if !slices.Contains(names, n) {
			t.Errorf("no case %s among %q (notes %q)", n, names, notes)
		}
	}

	needPython(t)
	python := findPython(os.Getenv("OPFORGE_PYTHON"), DefaultCaseTimeout).path
	// Many values per tensor, so both ends show up.
	for i := range cs {
		cs[i].Inputs[1].Shape = []int64{4096}
		cs[i].Inputs[2].Shape = []int64{4096}
	}
	data, err := json.Marshal(cs)
	if err != nil {
		t.Fatal(err)
	}
	script := `
import importlib.util, json, sys
import torch
spec = importlib.util.spec_from_file_location("opforge_runner", sys.argv[1])
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)
for case in json.load(sys.stdin):
    xs = runner.make_inputs(torch, case)
    for spec, x in zip(case["inputs"], xs):
        if spec.get("range"):
            print(case["name"], spec["name"], int(x.min()), int(x.max()), str(x.dtype))
`
	rp := filepath.Join(dir, "runner.py")
	if err := os.WriteFile(rp, runner, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "-c", script, rp)
	cmd.Stdin = strings.NewReader(string(data))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := strings.TrimSpace(string(out))
	for _, c := range cs {
		for _, in := range c.Inputs[1:] {
			line := c.Name + " " + in.Name + " " + strconv.FormatInt(in.Range[0], 10) + " " + strconv.FormatInt(in.Range[1], 10) + " torch." + in.DType
			if !strings.Contains(got, line) {
				t.Errorf("the runner's %s of case %s is not drawn over all of %v:\n%s", in.Name, c.Name, in.Range, got)
			}
		}
	}
}
