package htp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/shapeexpr"
	"github.com/opforge/opforge/generators/targets"
	"github.com/opforge/opforge/generators/targets/htp"
)

// trees pairs each checked-in generated tree with the opdefs it comes from
// (their goldens tests keep them current).
var trees = []struct{ opdefs, out string }{
	{"../../../testdata/gen/examples/opdefs", "../../../testdata/gen/examples/out"},
	{"../../../../shared/fixtures/qnn", "../../../testdata/gen/fixtures/out"},
	{"../../../../shared/fixtures/qnn-more", "../../../testdata/gen/fixtures-more/out"},
	{"../../../testdata/gen/htp-params/opdefs", "../../../testdata/gen/htp-params/out"},
}

// python returns the interpreter of the test virtualenv, or skips.
func python(t *testing.T, modules ...string) string {
	t.Helper()
	py := os.Getenv("OPFORGE_PYTHON")
	if py == "" {
		t.Skip("OPFORGE_PYTHON is not set (go tool mage test sets it to the test virtualenv)")
	}
	for _, m := range modules {
		if err := exec.Command(py, "-c", "import "+m).Run(); err != nil {
			t.Skipf("%s cannot import %s: %v", py, m, err)
		}
	}
	return py
}

type tensorArg struct {
	Kind  string  `json:"kind"`
	Name  string  `json:"name,omitempty"`
	Shape []int64 `json:"shape,omitempty"`
	DType string  `json:"dtype,omitempty"`
	Value any     `json:"value,omitempty"`
}

type output struct {
	Name  string   `json:"name"`
	Shape []*int64 `json:"shape"`
	DType string   `json:"dtype"`
}

type opCase struct {
	Op         string      `json:"op"`
	QNNOp      string      `json:"qnn_op"`
	Args       []tensorArg `json:"args"`
	Kwargs     []tensorArg `json:"kwargs"`
	Outputs    []output    `json:"outputs"`
	SkipExport bool        `json:"skip_export,omitempty"`
}

type module struct {
	Path      string   `json:"path"`
	Package   string   `json:"package"`
	Namespace string   `json:"namespace"`
	Cases     []opCase `json:"cases"`
}

// torchName is the torch dtype a tensor of d is given in the test.
func torchName(d ir.DType) string {
	switch d {
	case ir.QUint8, ir.QUint16, ir.QUint32, ir.QUint4:
		return "uint8"
	case ir.QInt8, ir.QInt4:
		return "int8"
	case ir.QInt16:
		return "int16"
	case ir.QInt32:
		return "int32"
	}
	return d.Info().Torch
}

// planOp computes, independently of the generator, what the fake
// implementation must return for sample inputs: symbols get distinct sizes,
// required params get small values, defaulted params keep their defaults.
func planOp(op *ir.Op) opCase {
	c := opCase{Op: htp.TorchName(op), QNNOp: op.Name, Args: []tensorArg{}, Kwargs: []tensorArg{}}
	env := shapeexpr.MapEnv{Symbols: map[string]int64{}, Elements: map[string][]int64{}}
	next := int64(3)
	varDType := map[string]string{}
	inputDType := map[string]string{}
	for _, in := range op.Inputs {
		allowed := op.AllowedDTypes(in)
		dt := torchName(allowed[0])
		if in.Type.Var != "" {
			if prev, ok := varDType[in.Type.Var]; ok {
				dt = prev
			}
			varDType[in.Type.Var] = dt
		}
		inputDType[in.Name] = dt
		if in.Optional {
			c.Args = append(c.Args, tensorArg{Kind: "none"})
			continue
		}
		var shape []int64
		switch {
		case in.Shape != nil:
			for _, d := range in.Shape {
				if d.Expr.IsConst() {
					shape = append(shape, d.Expr.Value)
					continue
				}
				if _, ok := env.Symbols[d.Expr.Name]; !ok {
					env.Symbols[d.Expr.Name] = next
					next++
				}
				shape = append(shape, env.Symbols[d.Expr.Name])
			}
		case in.Rank == ir.RankAny:
			shape = []int64{2, 3}
		default:
			for i := 0; i < in.Rank; i++ {
				shape = append(shape, int64(2+i))
			}
		}
		c.Args = append(c.Args, tensorArg{Kind: "tensor", Shape: shape, DType: dt})
	}
	for _, p := range op.Params {
		var value int64 = 2
		if p.Min != nil && float64(value) < *p.Min {
			value = int64(*p.Min)
		}
		if p.Default != nil && p.Kind != ir.ParamTensor {
			if p.Kind == ir.ParamArray {
				var elems []int64
				for _, e := range p.Default.List {
					v, _ := strconv.ParseInt(e.Text, 10, 64)
					elems = append(elems, v)
				}
				env.Elements[p.Name] = elems
			} else if v, err := strconv.ParseInt(p.Default.Text, 10, 64); err == nil {
				env.Symbols[p.Name] = v
			}
			continue
		}
		arg := tensorArg{Kind: "value", Name: p.Ident}
		switch p.Kind {
		case ir.ParamTensor:
			arg = tensorArg{Kind: "tensor", Name: p.Ident, Shape: []int64{2, 2}, DType: "float32"}
		case ir.ParamArray:
			n := p.Length
			if n == 0 {
				n = 2
			}
			vals := make([]int64, n)
			for i := range vals {
				vals[i] = value
			}
			arg.Value = vals
			env.Elements[p.Name] = vals
		case ir.ParamBool:
			arg.Value = false
		case ir.ParamString:
			arg.Value = "x"
		default:
			if len(p.DTypes) > 0 && p.DTypes[0].IsFloat() {
				arg.Value = 1.0
			} else {
				arg.Value = value
				env.Symbols[p.Name] = value
			}
		}
		c.Kwargs = append(c.Kwargs, arg)
	}
	dd := map[string]bool{}
	for _, s := range op.DataDependent {
		dd[s.Name] = true
	}
	for _, o := range op.Outputs {
		out := output{Name: o.Name}
		if o.Shape == nil {
			for _, v := range c.Args[0].Shape {
				v := v
				out.Shape = append(out.Shape, &v)
			}
		}
		for _, d := range o.Shape {
			if d.Expr.IsSymbol() && dd[d.Expr.Name] {
				out.Shape = append(out.Shape, nil)
				continue
			}
			v, err := d.Expr.Eval(env)
			if err != nil {
				panic(op.Name + ": " + err.Error())
			}
			out.Shape = append(out.Shape, &v)
		}
		allowed := op.AllowedDTypes(o)
		out.DType = torchName(allowed[0])
		if p := op.Param(o.DTypeParam); p != nil {
			// The param's value names the dtype; the plan leaves it at its
			// default (or passes 2, the index of its third value).
			if p.Default != nil {
				out.DType = torchName(ir.DType(p.Default.Text))
			} else {
				out.DType = torchName(ir.DType(p.Values[2]))
			}
		} else if o.Type.Var != "" {
			if dt, ok := varDType[o.Type.Var]; ok {
				out.DType = dt
			}
		} else if len(op.Inputs) > 0 {
			for _, a := range allowed {
				if torchName(a) == inputDType[op.Inputs[0].Name] {
					out.DType = torchName(a)
				}
			}
		}
		c.Outputs = append(c.Outputs, out)
	}
	return c
}

// TestExecuTorchModules imports every generated ExecuTorch module with
// torch and checks registration, fake shapes and dtypes, torch.export and
// the op package options.
func TestExecuTorchModules(t *testing.T) {
	py := python(t, "torch")
	var plan struct {
		Modules []module `json:"modules"`
	}
	seen := map[string]bool{}
	for _, tr := range trees {
		var l diag.List
		pkgs := load.Tree(tr.opdefs, &l)
		targets.Check(&l, pkgs...)
		if l.HasErrors() {
			t.Fatalf("%s: %v", tr.opdefs, l.Sorted())
		}
		for _, pkg := range pkgs {
			ops := htp.Ops(pkg)
			if len(ops) == 0 || !pkg.HTP.ExecuTorch {
				continue
			}
			ns := names.Snake(pkg.Name)
			if seen[ns] {
				continue // the same package in two trees (a shipped fixture): torch allows one definition per process
			}
			seen[ns] = true
			m := module{Path: filepath.Join(tr.out, "htp", pkg.Name, "executorch", ns+".py"), Package: pkg.Name, Namespace: ns}
			for _, op := range ops {
				m.Cases = append(m.Cases, planOp(op))
			}
			plan.Modules = append(plan.Modules, m)
		}
	}
	if len(plan.Modules) < 5 {
		t.Fatalf("only %d modules planned", len(plan.Modules))
	}
	data, _ := json.MarshalIndent(plan, "", " ")
	planPath := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(planPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "../../../testdata/python/check_executorch.py", planPath)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("generated ExecuTorch modules failed their checks: %v\n%s", err, out.String())
	}
	t.Log(out.String())
}

// TestPythonCompiles byte-compiles every generated Python file.
func TestPythonCompiles(t *testing.T) {
	py := os.Getenv("OPFORGE_PYTHON")
	if py == "" {
		py = "python3"
	}
	if _, err := exec.LookPath(py); err != nil {
		t.Skipf("no Python interpreter (%s): %v", py, err)
	}
	var files []string
	for _, tr := range trees {
		more, _ := filepath.Glob(filepath.Join(tr.out, "htp", "*", "executorch", "*.py"))
		files = append(files, more...)
	}
	more, _ := filepath.Glob("../../../testdata/gen/*/out/htp/*/executorch/*.py")
	seen := map[string]bool{}
	for _, f := range append(files, more...) {
		seen[filepath.Clean(f)] = true
	}
	files = files[:0]
	for f := range seen {
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatal("no generated Python files")
	}
	for _, f := range files {
		// compile() checks syntax without writing __pycache__ into out/.
		script := "import sys; compile(open(sys.argv[1], encoding='utf-8').read(), sys.argv[1], 'exec')"
		if out, err := exec.Command(py, "-c", script, f).CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", f, err, out)
		}
	}
}
