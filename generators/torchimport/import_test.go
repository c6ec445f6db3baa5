package torchimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/golden"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/shapeexpr"
	"github.com/opforge/opforge/generators/yamldef"
)

// testOps are testdata/torchops.py's ops: elementwise at any rank, a
// reduction along an axis param, a concat along one, a data-dependent
// size, and defaults, a fixed-length list, an optional tensor and a str.
var testOps = []string{"opf_test::scaled_silu", "opf_test::sum_dim", "opf_test::concat2", "opf_test::positive_indices", "opf_test::pool_mix"}

const goldenOpdef = "testdata/golden/opftestops.yaml"

// python is $OPFORGE_PYTHON, or the test skips: import torch needs torch.
func python(t *testing.T) string {
	p := os.Getenv("OPFORGE_PYTHON")
	if p == "" {
		t.Skip("OPFORGE_PYTHON is not set: import torch runs torch (set it to a Python with torch 2.x)")
	}
	return p
}

// TestImportGolden imports the test ops as `opforge import torch` does and
// compares the opdef and the diagnostics with the golden files; the opdef
// must validate for every target it names.
func TestImportGolden(t *testing.T) {
	py := python(t)
	rep, err := Inspect(py, "testdata/torchops.py", testOps, nil)
	if err != nil {
		t.Fatal(err)
	}
	var l diag.List
	res := Build(rep, Options{Module: "testdata/torchops.py", Targets: registry.ImportTargets, Source: goldenOpdef}, &l)
	if res == nil {
		t.Fatalf("nothing imported: %v", l.Sorted())
	}
	res.Warnings = append(res.Warnings, Fit(res.Package)...)
	data, err := yamldef.Write(res.Package, "../../../../schemas/opdef.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if pkg := load.Parse(goldenOpdef, data, &l); pkg != nil {
		load.Validate(pkg, &l)
		registry.Check(&l, pkg)
	}
	Place(goldenOpdef, data, res.Warnings, &l)
	if l.HasErrors() {
		t.Errorf("the imported opdef does not validate: %v", l.Sorted())
	}
	var diags strings.Builder
	for _, d := range l.Sorted() {
		fmt.Fprintln(&diags, d.String())
	}
	compareGolden(t, goldenOpdef, data)
	compareGolden(t, "testdata/golden/expected.txt", []byte(diags.String()))
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *golden.Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go tool mage update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go tool mage update refreshes it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestShapesAgreeWithFakeKernel: on 100 random concrete shapes (and axis
// and list param values) per op, the golden opdef's output shapes,
// evaluated by opforge's shape expressions, are those the op's fake
// kernel gives; a data-dependent dim is one torch cannot know either.
func TestShapesAgreeWithFakeKernel(t *testing.T) {
	py := python(t)
	var l diag.List
	pkg := load.File(goldenOpdef, &l)
	if pkg == nil || l.HasErrors() {
		t.Fatalf("%s: %v", goldenOpdef, l.Sorted())
	}
	rng := rand.New(rand.NewPCG(33, 1))
	var checks []ShapeCheck
	var want [][][]int64 // per check, per output: dims (-1: data-dependent)
	for _, op := range pkg.Ops {
		for range 100 {
			c, w, err := randomCase(rng, op)
			if err != nil {
				t.Fatalf("%s: %v", op.Name, err)
			}
			checks = append(checks, c)
			want = append(want, w)
		}
	}
	got, err := FakeShapes(py, "testdata/torchops.py", checks)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(checks) {
		t.Fatalf("%d results for %d checks", len(got), len(checks))
	}
	for i, raw := range got {
		var outs [][]any
		if err := json.Unmarshal(raw, &outs); err != nil {
			t.Errorf("%s %v: the fake kernel raised %s", checks[i].Op, checks[i].Inputs, raw)
			continue
		}
		if !sameShapes(outs, want[i]) {
			t.Errorf("%s inputs %v params %v: fake kernel %v, opdef %v", checks[i].Op, checks[i].Inputs, checks[i].Params, outs, want[i])
		}
	}
}

func sameShapes(got [][]any, want [][]int64) bool {
	if len(got) != len(want) {
		return false
	}
	for o := range got {
		if len(got[o]) != len(want[o]) {
			return false
		}
		for d, v := range got[o] {
			n, isNum := v.(float64)
			if want[o][d] < 0 {
				if isNum {
					return false // torch knew a size opforge calls data-dependent
				}
				continue
			}
			if !isNum || int64(n) != want[o][d] {
				return false
			}
		}
	}
	return true
}

// randomCase draws input shapes and param values for op and evaluates its
// output shapes.
func randomCase(rng *rand.Rand, op *ir.Op) (ShapeCheck, [][]int64, error) {
	c := ShapeCheck{Op: op.Torch.Op, Inputs: map[string][]int64{}, Params: map[string]any{}}
	env := shapeexpr.MapEnv{Symbols: map[string]int64{}, Elements: map[string][]int64{}, TensorDims: map[string][]int64{}}
	rank, axis := 0, int64(0)
	for _, in := range op.Inputs {
		if in.RankRange != nil && rank == 0 {
			rank = in.RankRange.Min + rng.IntN(in.RankRange.Max-in.RankRange.Min+1)
		}
	}
	for _, p := range op.Params {
		switch {
		case p.Kind == ir.ParamScalar && p.DTypes[0] == ir.Int32:
			// Every int param of the test ops is an axis.
			axis = int64(rng.IntN(2*rank)) - int64(rank)
			c.Params[p.Name] = axis
			env.Symbols[p.Name] = axis
		case p.Kind == ir.ParamBool:
			// Both values: a bool may decide the output's rank (keepdim).
			b := rng.IntN(2) == 1
			c.Params[p.Name] = b
			env.Symbols[p.Name] = 0
			if b {
				env.Symbols[p.Name] = 1
			}
		case p.Kind == ir.ParamArray && p.DTypes[0] == ir.Int32:
			vs := make([]int64, p.Length)
			for i := range vs {
				vs[i] = 1 + rng.Int64N(3)
			}
			c.Params[p.Name] = vs
			env.Elements[p.Name] = vs
		}
	}
	var poly []int64
	for _, in := range op.Inputs {
		if in.Optional && rng.IntN(2) == 0 {
			c.Inputs[in.Name] = nil
			continue
		}
		var dims []int64
		switch {
		case in.RankRange != nil && poly == nil:
			for range rank {
				poly = append(poly, 1+rng.Int64N(9))
			}
			dims = poly
		case in.RankRange != nil:
			// Inputs of one rank range share their dims but at the axis.
			dims = append([]int64(nil), poly...)
			dims[(axis+int64(rank))%int64(rank)] = 1 + rng.Int64N(9)
		default:
			for _, d := range in.Shape {
				name := d.Expr.String()
				if _, ok := env.Symbols[name]; !ok {
					env.Symbols[name] = 1 + rng.Int64N(12)
				}
				dims = append(dims, env.Symbols[name])
			}
		}
		c.Inputs[in.Name] = dims
		env.TensorDims[in.Name] = dims
	}
	for _, dd := range op.DataDependent {
		env.Symbols[dd.Name] = -1
	}
	var outs [][]int64
	for _, o := range op.Outputs {
		if o.Like != nil {
			dims, err := ir.LikeDims(o.Like, env.TensorDims[o.Like.Input], env)
			if err != nil {
				return c, nil, err
			}
			outs = append(outs, dims)
			continue
		}
		var dims []int64
		for _, d := range o.Shape {
			v, err := d.Expr.Eval(env)
			if err != nil {
				return c, nil, err
			}
			dims = append(dims, v)
		}
		outs = append(outs, dims)
	}
	return c, outs, nil
}

// TestImportErrors: what an opdef cannot express is an error at the
// module's line that names the op, or the output whose shape torch gives
// in terms opforge cannot write.
func TestImportErrors(t *testing.T) {
	t.Run("tensor list", func(t *testing.T) {
		py := python(t)
		rep, err := Inspect(py, "testdata/bad_ops.py", []string{"opf_bad::stack_all"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var l diag.List
		if res := Build(rep, Options{Module: "testdata/bad_ops.py"}, &l); res != nil {
			t.Fatal("imported an op with a Tensor[] argument")
		}
		want := `testdata/bad_ops.py:5:23: error: opf_bad::stack_all: argument xs is a List[Tensor], which an opdef cannot express`
		if got := l.Sorted(); len(got) != 1 || !strings.HasPrefix(got[0].String(), want) {
			t.Errorf("got %v, want %s...", got, want)
		}
	})
	t.Run("inexpressible dim", func(t *testing.T) {
		rep := &Report{Ops: []OpReport{{
			Op: "ns::odd", Args: []Arg{{Name: "x", Kind: "tensor"}}, DTypes: []string{"float32"},
			Inputs:  []InputReport{{Name: "x", Dims: []string{"X0"}}},
			Outputs: []OutputReport{{Name: "out", DType: "T", Dims: []string{"sqrt(X0)"}, Unknown: []string{"sqrt(s0)"}}},
		}}}
		var l diag.List
		if res := Build(rep, Options{Module: "m"}, &l); res != nil {
			t.Fatal("imported an op whose output dim opforge cannot write")
		}
		want := `m: error: ns::odd: output out has dims sqrt(X0) in torch's symbolic shapes, which no opforge shape expression writes (sqrt(s0)) [torch-shape]`
		if got := l.Sorted(); len(got) != 1 || got[0].String() != want {
			t.Errorf("got %v, want %s", got, want)
		}
	})
}

// exportScript saves a torch.export'ed model calling two of the test ops
// (one twice) beside an aten op: argv[1] the module, argv[2] the .pt2.
const exportScript = `
import importlib.util, sys, torch
spec = importlib.util.spec_from_file_location("torchops", sys.argv[1])
spec.loader.exec_module(importlib.util.module_from_spec(spec))
class Model(torch.nn.Module):
    def forward(self, a, b):
        y = torch.ops.opf_test.scaled_silu(a, 2.0)
        z = torch.ops.opf_test.concat2(y, b, 1)
        return torch.ops.opf_test.scaled_silu(z).relu()
torch.export.save(torch.export.export(Model(), (torch.rand(2, 3), torch.rand(2, 4))), sys.argv[2])
`

// TestExportedProgram: import torch --exported lists the custom ops a
// saved torch.export'ed program calls (not its aten ops), in the order of
// their first call, and imports them; a module that does not register
// them is an error naming them.
func TestExportedProgram(t *testing.T) {
	py := python(t)
	module, err := filepath.Abs("testdata/torchops.py")
	if err != nil {
		t.Fatal(err)
	}
	pt2 := filepath.Join(t.TempDir(), "model.pt2")
	if out, err := exec.Command(py, "-c", exportScript, module, pt2).CombinedOutput(); err != nil {
		t.Fatalf("exporting the model: %v\n%s", err, out)
	}
	ops, err := ExportedOps(py, module, pt2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"opf_test::scaled_silu", "opf_test::concat2"}; !slices.Equal(ops, want) {
		t.Fatalf("ops of the program: %v, want %v", ops, want)
	}
	rep, err := Inspect(py, module, ops, nil)
	if err != nil {
		t.Fatal(err)
	}
	var l diag.List
	res := Build(rep, Options{Module: module, Targets: registry.ImportTargets}, &l)
	if res == nil || len(res.Package.Ops) != 2 || res.Package.Ops[1].Torch.Op != "opf_test::concat2" {
		t.Fatalf("imported %v: %v", res, l.Sorted())
	}
	_, err = ExportedOps(py, "testdata/bad_ops.py", pt2)
	if want := "calls opf_test::scaled_silu, opf_test::concat2, which testdata/bad_ops.py does not register: name the module that defines them with --module"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("with a module that registers neither op: %v, want %q", err, want)
	}
}
