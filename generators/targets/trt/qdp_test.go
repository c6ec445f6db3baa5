package trt

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/plugin"
	"github.com/opforge/opforge/generators/shapeexpr"
)

const qdpChecker = repo + "/testdata/trt/qdp/check_qdp.py"

type qdpCase struct {
	ID     string         `json:"id"`
	Inputs []qdpInput     `json:"inputs"`
	Attrs  map[string]any `json:"attrs"`
}

type qdpInput struct {
	Dims  []int64 `json:"dims"`
	DType string  `json:"dtype"`
}

type qdpResult struct {
	ID      string `json:"id"`
	Error   string `json:"error"`
	Outputs []struct {
		Dims    []int64 `json:"dims"`
		DType   string  `json:"dtype"`
		Size    []int64 `json:"size"`
		Aliased bool    `json:"aliased"`
	} `json:"outputs"`
	Impl     bool         `json:"impl"`
	Autotune [][][]string `json:"autotune"`
	AOT      any          `json:"aot"`
}

// TestQDPModulesRun imports every generated Python plugin module against
// testdata/trt/qdp's stand-in for tensorrt.plugin, which applies
// tensorrt.plugin's registration rules, and runs its register functions
// on concrete dims (output shapes and dtypes must equal what the opdef's
// expressions evaluate to), its autotune functions (one combination per
// dtype combination and format) and its aot_impl functions (the Triton
// placeholder compiled to PTX for sm_80; the element counts it passes).
func TestQDPModulesRun(t *testing.T) {
	py := python(t)
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("%s cannot import numpy", py)
	}
	for _, p := range packages(t) {
		modules, _ := filepath.Glob(filepath.Join(p.dir, "python", "*.py"))
		if len(modules) != 1 {
			continue
		}
		t.Run(p.pkg.Name, func(t *testing.T) {
			var cases []qdpCase
			var ops []*ir.Op
			for _, op := range Ops(p.pkg) {
				if op.Targets.TRT.QDP == nil {
					continue
				}
				ops = append(ops, op)
				cases = append(cases, qdpCaseOf(p.pkg, op))
			}
			data, _ := json.Marshal(cases)
			in := filepath.Join(t.TempDir(), "cases.json")
			if err := os.WriteFile(in, data, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(py, qdpChecker, modules[0], in)
			cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "TRITON_CACHE_DIR="+t.TempDir())
			out, err := cmd.Output()
			if err != nil {
				stderr := ""
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = string(ee.Stderr)
				}
				t.Fatalf("%s: %v\n%s", modules[0], err, stderr)
			}
			var results []qdpResult
			if err := json.Unmarshal(out, &results); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for i, r := range results {
				checkQDPResult(t, p.pkg, ops[i], cases[i], r)
			}
		})
	}
}

// qdpEnv gives the inputs dims (each symbol a value) and the attribute
// values, and the environment the opdef's expressions evaluate in.
func qdpEnv(pkg *ir.Package, op *ir.Op) ([][]int64, map[string]value, shapeexpr.MapEnv) {
	pm := newPackageModel(pkg, []*ir.Op{op})
	env := shapeexpr.MapEnv{Symbols: map[string]int64{}, Elements: map[string][]int64{}}
	next := int64(5)
	var dims [][]int64
	for _, t := range layoutOf(op).Inputs {
		dims = append(dims, dimsOf(t.T, env, &next))
	}
	values := map[string]value{}
	for _, m := range pm.Ops[0].Params {
		v := chooseValue(m.p, m)
		values[m.Name] = v
		switch m.p.Kind {
		case ir.ParamScalar:
			if len(v.ints) == 1 {
				env.Symbols[m.Name] = v.ints[0]
			}
		case ir.ParamArray:
			env.Elements[m.Name] = v.ints
		}
	}
	for _, s := range op.DataDependent {
		env.Symbols[s.Name], _ = s.Upper.Eval(env)
	}
	return dims, values, env
}

func qdpCaseOf(pkg *ir.Package, op *ir.Op) qdpCase {
	l := layoutOf(op)
	dims, values, _ := qdpEnv(pkg, op)
	c := qdpCase{ID: pkg.Namespace + "::" + plugin.TRT(pkg, op).Name, Attrs: map[string]any{}}
	combo := l.Combos()[0]
	for i, t := range l.Inputs {
		c.Inputs = append(c.Inputs, qdpInput{Dims: dims[i], DType: strings.TrimPrefix(combo.DTypes[t.Pos].Info().TRT, "k")})
	}
	for _, p := range op.Params {
		v := values[p.Name]
		var a any
		switch {
		case p.Kind == ir.ParamString || p.Kind == ir.ParamEnum:
			a = v.text
		case p.Kind == ir.ParamBool:
			a = v.ints[0] == 1
		case len(v.floats) > 0 && p.Kind == ir.ParamScalar:
			a = v.floats[0]
		case len(v.floats) > 0:
			a = v.floats
		case p.Kind == ir.ParamScalar:
			a = v.ints[0]
		default:
			a = v.ints
		}
		c.Attrs[p.Ident] = a
	}
	return c
}

func checkQDPResult(t *testing.T, pkg *ir.Package, op *ir.Op, c qdpCase, r qdpResult) {
	t.Helper()
	l := layoutOf(op)
	_, _, env := qdpEnv(pkg, op)
	combo := l.Combos()[0]
	if r.Error != "" {
		t.Errorf("%s: %s", op.Name, r.Error)
	}
	if len(r.Outputs) != len(l.Outputs) {
		t.Fatalf("%s: %d outputs, want %d", op.Name, len(r.Outputs), len(l.Outputs))
	}
	aliased := map[string]bool{}
	for _, a := range op.Targets.TRT.Aliases {
		aliased[a.Output] = true
	}
	var numels []int64
	for i, o := range l.Outputs {
		got := r.Outputs[i]
		wantType := strings.TrimPrefix(combo.DTypes[o.Pos].Info().TRT, "k")
		if got.DType != wantType {
			t.Errorf("%s output %s: dtype %s, want %s", op.Name, o.Name, got.DType, wantType)
		}
		if o.Size != nil {
			upper, _ := o.Size.Upper.Eval(env)
			opt := upper
			if o.Size.Opt != nil {
				opt, _ = o.Size.Opt.Eval(env)
			}
			if !reflect.DeepEqual(got.Size, []int64{opt, upper}) {
				t.Errorf("%s size tensor %s: opt, upper %v, want %v", op.Name, o.Name, got.Size, []int64{opt, upper})
			}
			numels = append(numels, 1)
			continue
		}
		var want []int64
		n := int64(1)
		for _, d := range o.T.Shape {
			v, _ := d.Expr.Eval(env)
			want = append(want, v)
			n *= v
		}
		numels = append(numels, n)
		if !reflect.DeepEqual(got.Dims, want) {
			t.Errorf("%s output %s: dims %v, want %v", op.Name, o.Name, got.Dims, want)
		}
		if got.Aliased != aliased[o.Name] {
			t.Errorf("%s output %s: aliased %v", op.Name, o.Name, got.Aliased)
		}
	}
	if want := len(l.Combos()) * len(op.Targets.TRT.Formats); len(r.Autotune) != want {
		t.Errorf("%s: %d autotune combinations, want %d", op.Name, len(r.Autotune), want)
	}
	if op.Targets.TRT.QDP.Impl == "jit" {
		if !r.Impl {
			t.Errorf("%s: no @trtp.impl", op.Name)
		}
		return
	}
	aot, ok := r.AOT.(map[string]any)
	if !ok {
		t.Logf("%s: aot_impl not run: %v", op.Name, r.AOT)
		return
	}
	if aot["ptx_has_entry"] != true {
		t.Errorf("%s: aot_impl returned PTX without the kernel %v", op.Name, aot["kernel"])
	}
	var extra []int64
	for _, e := range aot["extra_args"].([]any) {
		extra = append(extra, int64(e.(float64)))
	}
	if !reflect.DeepEqual(extra, numels) {
		t.Errorf("%s: aot_impl extra_args %v, want the output element counts %v", op.Name, extra, numels)
	}
	largest := int64(0)
	for _, n := range numels {
		largest = max(largest, n)
	}
	if grid := int64(aot["grid_x"].(float64)); grid != (largest+255)/256 {
		t.Errorf("%s: grid_x %d for %d elements", op.Name, grid, largest)
	}
}
