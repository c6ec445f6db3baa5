package aipu_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/literal"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/shapeexpr"
	"github.com/opforge/opforge/generators/targets/aipu"
)

// The tests restate the AIPU contract from the IR, independently of the
// generator: which files exist, the kernel's parameter order, the values
// the Parser puts in the IR and the shapes every stage must produce.

// trees pairs each checked-in generated tree with the opdefs it comes from
// (the golden tests of generators/gen keep them current).
var trees = []struct{ opdefs, out string }{
	{"../../../testdata/gen/examples/opdefs", "../../../testdata/gen/examples/out"},
	{"../../../testdata/gen/aipu-features/opdefs", "../../../testdata/gen/aipu-features/out"},
	{"../../../testdata/gen/rank-poly/opdefs", "../../../testdata/gen/rank-poly/out"},
}

// pkgDir is one generated package with its ops.
type pkgDir struct {
	Dir string
	Pkg *ir.Package
	Ops []*ir.Op
}

// packages loads every tree's packages that generate AIPU files.
func packages(t *testing.T) []pkgDir {
	t.Helper()
	var out []pkgDir
	for _, tr := range trees {
		var l diag.List
		pkgs := load.Tree(tr.opdefs, &l)
		registry.Check(&l, pkgs...)
		if l.HasErrors() {
			t.Fatalf("%s: %v", tr.opdefs, l.Sorted())
		}
		for _, pkg := range pkgs {
			if ops := aipu.Ops(pkg); len(ops) > 0 {
				out = append(out, pkgDir{filepath.Join(tr.out, "aipu", pkg.Name), pkg, ops})
			}
		}
	}
	if len(out) < 2 {
		t.Fatalf("only %d AIPU packages", len(out))
	}
	return out
}

func stem(op *ir.Op) string { return names.Snake(op.Name) }

// python returns the interpreter of the test virtualenv, or skips.
func python(t *testing.T) string {
	t.Helper()
	py := os.Getenv("OPFORGE_PYTHON")
	if py == "" {
		t.Skip("OPFORGE_PYTHON is not set (go tool mage test sets it to the test virtualenv)")
	}
	return py
}

// runPython runs a checker script with a plan and fails with its output.
func runPython(t *testing.T, py string, env []string, script string, plan any) string {
	t.Helper()
	data, err := json.MarshalIndent(plan, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	planPath := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(planPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	scriptPath, _ := filepath.Abs(filepath.Join("../../../testdata/python", script))
	cmd := exec.Command(py, scriptPath, planPath)
	// A scratch working directory: the Compass loaders also import every
	// aipubt_* module in "." and "./plugin".
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s failed: %v\n%s", script, err, out)
	}
	return string(out)
}

// planTensor is an input or output with concrete test values.
type planTensor struct {
	Name   string  `json:"name"`
	Shape  []int64 `json:"shape"`
	DType  string  `json:"dtype"` // Compass / numpy name
	Static bool    `json:"static,omitempty"`
	Values []int64 `json:"values,omitempty"` // a shape tensor's values
	// DTypeParam is the param an output's dtype is chosen by.
	DTypeParam string `json:"dtype_param,omitempty"`
}

// planValue is a param value as a Python literal, or a tensor of zeros.
type planValue struct {
	Literal string  `json:"literal,omitempty"`
	Shape   []int64 `json:"shape,omitempty"`
	DType   string  `json:"dtype,omitempty"`
}

// planConstant is a constant of the IR layer.
type planConstant struct {
	Key   string  `json:"key"`
	Shape []int64 `json:"shape"`
	DType string  `json:"dtype"`
	Input int     `json:"input"` // index of the static input, or -1 for a tensor param
}

// planArg is one kernel parameter: what generate_params must append.
type planArg struct {
	Name  string `json:"name"`
	CType string `json:"ctype"`
	// Kind: input (Index among the layer's inputs), output (Index),
	// constant (Key), scalar (Param, Element, NumPy, Enum), dim (Tensor
	// index among the layer's inputs or constant Key, Dim).
	Kind    string   `json:"kind"`
	Index   int      `json:"index"`
	Key     string   `json:"key,omitempty"`
	Param   string   `json:"param,omitempty"`
	Element int      `json:"element"`
	NumPy   string   `json:"numpy,omitempty"`
	Enum    []string `json:"enum,omitempty"`
	Bool    bool     `json:"bool,omitempty"`
	Dim     int      `json:"dim"`
	// Kind rank (the tensor's rank) and rankdim (its dim Dim, 1 past its
	// rank) describe a tensor of no declared shape: an input (Index, or
	// constant Key) or, with Output, output Index.
	Output bool `json:"output,omitempty"`
}

// planVariant is one dtype combination of the kernel.
type planVariant struct {
	Entry   string   `json:"entry"`
	Inputs  []string `json:"inputs"`  // Compass dtypes of the layer's inputs
	Outputs []string `json:"outputs"` // and outputs
}

// planOp is what every stage must do for one op.
type planOp struct {
	Op          string               `json:"op"`
	Stem        string               `json:"stem"`
	FrameworkOp string               `json:"framework_op"`
	LayerType   string               `json:"layer_type"`
	Alias       bool                 `json:"alias"`
	Override    bool                 `json:"override"`
	OPTVersion  string               `json:"opt_version"`
	Version     string               `json:"version"` // the package version: the Parser plugin's
	Inputs      []planTensor         `json:"inputs"`
	Outputs     []planTensor         `json:"outputs"`
	Attrs       map[string]planValue `json:"attrs"`  // framework attributes passed (params without a default)
	Params      [][2]string          `json:"params"` // IR key, expected value (Python literal), in order
	Constants   []planConstant       `json:"constants"`
	Removed     []int                `json:"removed"` // input indexes the Parser removes
	Args        []planArg            `json:"args"`
	Variants    []planVariant        `json:"variants"`
	Targets     []string             `json:"targets"`
	Enums       map[string][]string  `json:"enums"`
	// DTypeParams are the params an output takes its dtype from: the
	// Compass IR reader turns their dtype-name values into Dtypes.
	DTypeParams []string `json:"dtype_params"`
}

type planPackage struct {
	Dir     string   `json:"dir"`
	Package string   `json:"package"`
	Ops     []planOp `json:"ops"`
}

// compass is a dtype's Compass IR name.
func compass(d ir.DType) string { return aipu.CompassDType(d) }

// distinct drops dtypes whose Compass name repeats (qint8 is int8).
func distinct(ds []ir.DType) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range ds {
		if c := compass(d); !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// pyLiteral writes a test value as Python source.
func pyLiteral(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case bool:
		return map[bool]string{true: "True", false: "False"}[x]
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyLiteral(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	panic(fmt.Sprintf("no literal for %T", v))
}

// testValue is the value a param gets in the test: its default, or a
// small value within its bounds.
func testValue(p *ir.Param) any {
	if p.Default != nil {
		return literal.Of(p, p.Default).Go()
	}
	float := len(p.DTypes) > 0 && p.DTypes[0].IsFloat()
	var v float64 = 2
	if p.Min != nil && v < *p.Min {
		v = *p.Min
	}
	if p.Max != nil && v > *p.Max {
		v = *p.Max
	}
	scalar := func() any {
		if float {
			return v
		}
		return int64(v)
	}
	switch p.Kind {
	case ir.ParamBool:
		return true
	case ir.ParamEnum:
		return p.Values[len(p.Values)-1]
	case ir.ParamString:
		return "x"
	case ir.ParamArray:
		n := p.Length
		if n == 0 {
			n = 2
		}
		out := make([]any, n)
		for i := range out {
			out[i] = scalar()
		}
		return out
	}
	return scalar()
}

// irValue is what the Parser puts in self.params for a test value: bools
// as the IR's true/false strings, everything else as is.
func irValue(p *ir.Param, v any) any {
	if p.Kind == ir.ParamBool {
		return map[bool]string{true: "true", false: "false"}[v.(bool)]
	}
	return v
}

// numpyOf is the numpy dtype name of a kernel scalar.
func numpyOf(p *ir.Param) string {
	if p.Kind == ir.ParamBool {
		return "int32"
	}
	return compass(p.DTypes[0])
}

// openCL is the element type a dtype has in the kernel.
var openCL = map[string]string{
	"bool": "uchar", "int8": "char", "uint8": "uchar", "int16": "short", "uint16": "ushort", "int32": "int",
	"uint32": "uint", "float16": "half", "float32": "float", "bfloat16": "ushort",
}

// planFor restates an op's contract with test values.
func planFor(pkg *ir.Package, op *ir.Op, known []string) planOp {
	a := aipu.OpOptions(op)
	p := planOp{
		Op: op.Name, Stem: stem(op), FrameworkOp: a.FrameworkOp, LayerType: a.LayerType,
		Alias: a.LayerType != a.FrameworkOp, Override: a.OverrideBuiltin, OPTVersion: "1.0", Version: pkg.Version,
		Attrs: map[string]planValue{}, Enums: map[string][]string{},
		Params: [][2]string{}, Constants: []planConstant{}, Removed: []int{},
	}
	if a.OverrideBuiltin {
		p.OPTVersion = "2.0"
	}
	p.Targets = a.Targets
	if len(p.Targets) == 0 {
		p.Targets = known
	}
	env := shapeexpr.MapEnv{Symbols: map[string]int64{}, Elements: map[string][]int64{}, TensorDims: map[string][]int64{}}
	for _, prm := range op.Params {
		v := testValue(prm)
		switch x := v.(type) {
		case int64:
			env.Symbols[prm.Name] = x
		case bool:
			// A bool may decide an output's rank (keep: <param>).
			env.Symbols[prm.Name] = map[bool]int64{false: 0, true: 1}[x]
		case []any:
			var elems []int64
			for _, e := range x {
				if i, ok := e.(int64); ok {
					elems = append(elems, i)
				}
			}
			env.Elements[prm.Name] = elems
		}
		if prm.Kind == ir.ParamTensor {
			p.Attrs[prm.Name] = planValue{Shape: []int64{2, 3}, DType: compass(prm.DTypes[0])}
			p.Constants = append(p.Constants, planConstant{Key: prm.Ident, Shape: []int64{2, 3}, DType: compass(prm.DTypes[0]), Input: -1})
			continue
		}
		if prm.Default == nil {
			p.Attrs[prm.Name] = planValue{Literal: pyLiteral(v)}
		}
		p.Params = append(p.Params, [2]string{prm.Ident, pyLiteral(irValue(prm, v))})
		if prm.Kind == ir.ParamEnum {
			p.Enums[prm.Ident] = prm.Values
		}
		for _, o := range op.Outputs {
			if o.DTypeParam == prm.Name {
				p.DTypeParams = append(p.DTypeParams, prm.Ident)
				break
			}
		}
	}
	// Inputs: distinct sizes per symbol; the first dtype of every tensor
	// (type variables shared); shape tensors hold small sizes.
	next := int64(3)
	varDType := map[string]string{}
	dtypeOf := func(t *ir.Tensor) string {
		allowed := distinct(op.AllowedDTypes(t))
		if t.Type.Var == "" {
			return allowed[0]
		}
		if d, ok := varDType[t.Type.Var]; ok {
			return d
		}
		varDType[t.Type.Var] = allowed[0]
		return allowed[0]
	}
	for i, in := range op.Inputs {
		pt := planTensor{Name: in.Name, DType: dtypeOf(in), Static: in.Static}
		for _, d := range in.Shape {
			if d.Expr.IsConst() {
				pt.Shape = append(pt.Shape, d.Expr.Value)
				continue
			}
			if _, ok := env.Symbols[d.Expr.Name]; !ok {
				env.Symbols[d.Expr.Name] = next
				next++
			}
			pt.Shape = append(pt.Shape, env.Symbols[d.Expr.Name])
		}
		if in.Shape == nil {
			pt.Shape = []int64{2, 3}
		}
		env.TensorDims[in.Name] = pt.Shape
		if in.ShapeTensor {
			n := pt.Shape[0]
			for j := int64(0); j < n; j++ {
				pt.Values = append(pt.Values, 2+j)
			}
			env.Elements[in.Name] = pt.Values
		}
		if in.Static {
			p.Constants = append(p.Constants, planConstant{Key: in.Ident, Shape: pt.Shape, DType: pt.DType, Input: i})
			p.Removed = append(p.Removed, i)
		}
		p.Inputs = append(p.Inputs, pt)
	}
	for _, o := range op.Outputs {
		pt := planTensor{Name: o.Name, DType: dtypeOf(o)}
		if prm := op.Param(o.DTypeParam); prm != nil {
			pt.DTypeParam = prm.Ident
			if v, ok := testValue(prm).(string); ok {
				pt.DType = compass(ir.DType(v))
			}
		} else if o.Type.Var == "" && len(op.Inputs) > 0 {
			for _, d := range distinct(op.AllowedDTypes(o)) {
				if d == p.Inputs[0].DType {
					pt.DType = d
				}
			}
		}
		for _, d := range o.Shape {
			v, err := d.Expr.Eval(env)
			if err != nil {
				panic(op.Name + ": " + err.Error())
			}
			pt.Shape = append(pt.Shape, v)
		}
		if r := op.Derived().Shapes[len(p.Outputs)]; r.Rule == ir.ShapeBroadcastOf {
			var shapes [][]int64
			for _, j := range r.Inputs {
				shapes = append(shapes, p.Inputs[j].Shape)
			}
			var err error
			if pt.Shape, err = ir.BroadcastDims(shapes...); err != nil {
				panic(op.Name + ": " + err.Error())
			}
		} else if r.Rule == ir.ShapeSameAs {
			var err error
			if pt.Shape, err = ir.LikeDims(o.Like, p.Inputs[r.Input].Shape, env); err != nil {
				panic(op.Name + ": " + err.Error())
			}
		}
		p.Outputs = append(p.Outputs, pt)
	}
	p.Args, p.Variants = kernelPlan(pkg, op)
	return p
}

// kernelPlan restates the kernel contract: inputs, outputs, params (fixed
// arrays per element, strings and variable arrays left out), then the
// dimension symbols of the inputs; one variant per combination of the
// type variables and dtype lists that allow several Compass dtypes.
func kernelPlan(pkg *ir.Package, op *ir.Op) ([]planArg, []planVariant) {
	type axis struct {
		key    string
		values []string
	}
	var axes []axis
	axisOf := func(t *ir.Tensor) string {
		if t.Type.Var != "" {
			return "var:" + t.Type.Var
		}
		return "tensor:" + t.Name
	}
	index := map[string]int{}
	for _, tv := range op.TypeVars {
		if vals := distinct(tv.Allowed); len(vals) > 1 {
			index["var:"+tv.Name] = len(axes)
			axes = append(axes, axis{"var:" + tv.Name, vals})
		}
	}
	for _, t := range op.Tensors() {
		if vals := distinct(t.Type.DTypes); t.Type.Var == "" && len(vals) > 1 {
			index["tensor:"+t.Name] = len(axes)
			axes = append(axes, axis{"tensor:" + t.Name, vals})
		}
	}
	elem := func(t *ir.Tensor) string {
		if _, ok := index[axisOf(t)]; ok {
			if t.Type.Var != "" {
				return t.Type.Var + "_t"
			}
			return t.Ident + "_t"
		}
		return openCL[distinct(op.AllowedDTypes(t))[0]]
	}
	var args []planArg
	visible := 0
	layerIndex := map[string]int{}
	for _, in := range op.Inputs {
		a := planArg{Name: in.Ident, CType: "__global const " + elem(in) + "*"}
		if in.Static {
			a.Kind, a.Key = "constant", in.Ident
		} else {
			a.Kind, a.Index = "input", visible
			layerIndex[in.Name] = visible
			visible++
		}
		args = append(args, a)
	}
	for i, o := range op.Outputs {
		args = append(args, planArg{Name: o.Ident, CType: "__global " + elem(o) + "*", Kind: "output", Index: i})
	}
	for _, prm := range op.Params {
		scalar := planArg{Name: prm.Ident, Kind: "scalar", Param: prm.Ident, Element: -1, NumPy: numpyOf(prm)}
		scalar.CType = openCL[scalar.NumPy]
		switch {
		case prm.Kind == ir.ParamTensor:
			args = append(args, planArg{Name: prm.Ident, CType: "__global const " + openCL[compass(prm.DTypes[0])] + "*", Kind: "constant", Key: prm.Ident})
		case prm.Kind == ir.ParamString || (prm.Kind == ir.ParamArray && prm.Length == 0):
		case prm.Kind == ir.ParamArray:
			for i := 0; i < prm.Length; i++ {
				e := scalar
				e.Name, e.Element = fmt.Sprintf("%s_%d", prm.Ident, i), i
				args = append(args, e)
			}
		default:
			scalar.Enum = prm.Values
			scalar.Bool = prm.Kind == ir.ParamBool
			args = append(args, scalar)
		}
	}
	seen := map[string]bool{}
	for _, in := range op.Inputs {
		for i, d := range in.Shape {
			if d.Expr.IsSymbol() && !seen[d.Expr.Name] {
				seen[d.Expr.Name] = true
				a := planArg{Name: d.Expr.Name, CType: "int", Kind: "dim", Index: layerIndex[in.Name], Dim: i}
				if in.Static {
					a.Key, a.Index = in.Ident, -1
				}
				args = append(args, a)
			}
		}
	}
	// Then each tensor of no declared shape: its rank and its dims up to
	// its largest rank.
	largest := func(t *ir.Tensor) int {
		if t.RankRange != nil {
			return t.RankRange.Max
		}
		var from []string
		if t.Like != nil {
			from = []string{t.Like.Input}
		} else if t.Broadcast != nil {
			from = t.Broadcast.Inputs
		}
		n := 0
		if from == nil {
			n = 8
		}
		for _, name := range from {
			for _, in := range op.Inputs {
				if in.Name != name {
					continue
				}
				r := 8
				if in.Rank >= 0 {
					r = in.Rank
				} else if in.RankRange != nil {
					r = in.RankRange.Max
				}
				n = max(n, r)
			}
		}
		return n
	}
	for _, t := range op.Tensors() {
		if t.Shape != nil || t.Scalar || t.Rank != ir.RankAny {
			continue
		}
		a := planArg{Name: t.Ident + "_rank", CType: "int", Kind: "rank", Index: layerIndex[t.Name]}
		if j := slices.Index(op.Outputs, t); j >= 0 {
			a.Index, a.Output = j, true
		} else if t.Static {
			a.Key, a.Index = t.Ident, -1
		}
		args = append(args, a)
		for d := range largest(t) {
			e := a
			e.Name, e.Kind, e.Dim = fmt.Sprintf("%s_dim%d", t.Ident, d), "rankdim", d
			args = append(args, e)
		}
	}
	base := names.Snake(pkg.Name) + "_" + stem(op)
	combos := [][]string{nil}
	for _, ax := range axes {
		var next [][]string
		for _, c := range combos {
			for _, v := range ax.values {
				next = append(next, append(append([]string{}, c...), v))
			}
		}
		combos = next
	}
	var variants []planVariant
	for _, c := range combos {
		v := planVariant{Entry: base, Inputs: []string{}, Outputs: []string{}}
		for _, d := range c {
			v.Entry += "_" + d
		}
		dt := func(t *ir.Tensor) string {
			if i, ok := index[axisOf(t)]; ok {
				return c[i]
			}
			return distinct(op.AllowedDTypes(t))[0]
		}
		for _, in := range op.Inputs {
			if !in.Static {
				v.Inputs = append(v.Inputs, dt(in))
			}
		}
		for _, o := range op.Outputs {
			v.Outputs = append(v.Outputs, dt(o))
		}
		variants = append(variants, v)
	}
	return args, variants
}

// plans restates every generated package.
func plans(t *testing.T) []planPackage {
	var out []planPackage
	for _, pd := range packages(t) {
		pp := planPackage{Dir: mustAbs(t, pd.Dir), Package: pd.Pkg.Name}
		for _, op := range pd.Ops {
			pp.Ops = append(pp.Ops, planFor(pd.Pkg, op, aipu.KnownTargets))
		}
		out = append(out, pp)
	}
	return out
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
