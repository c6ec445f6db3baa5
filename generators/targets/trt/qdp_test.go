package trt

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/shapeexpr"
)

const qdpChecker = repo + "/testdata/trt/qdp/check_qdp.py"

type qdpCase struct {
	ID        string         `json:"id"`
	Inputs    []qdpInput     `json:"inputs"`
	Attrs     map[string]any `json:"attrs"`
	AttrsFunc string         `json:"attrs_func,omitempty"`
	Bad       []qdpBad       `json:"bad,omitempty"`
}

type qdpInput struct {
	Dims  []int64 `json:"dims"`
	DType string  `json:"dtype"`
}

// qdpBad is an attribute value the op must refuse, and what the error says.
type qdpBad struct {
	Attr  string `json:"attr"`
	Value any    `json:"value"`
	Want  string `json:"-"`
}

type qdpOutput struct {
	Dims    []int64 `json:"dims"`
	DType   string  `json:"dtype"`
	Size    []int64 `json:"size"`
	Aliased bool    `json:"aliased"`
}

// qdpRun is one creation of a plugin (from ONNX-encoded fields or Python
// values) and what TensorRT's calls on it returned.
type qdpRun struct {
	Error    string         `json:"error"`
	Skipped  string         `json:"skipped"`
	Outputs  []qdpOutput    `json:"outputs"`
	Attrs    map[string]any `json:"attrs"`
	Autotune [][][]string   `json:"autotune"`
	AOT      any            `json:"aot"`
}

type qdpResult struct {
	ID     string            `json:"id"`
	Impl   bool              `json:"impl"`
	AOTAPI bool              `json:"aot_api"`
	Styles map[string]qdpRun `json:"styles"`
	Bad    []struct {
		Attr    string  `json:"attr"`
		Error   *string `json:"error"`
		Skipped string  `json:"skipped"`
	} `json:"bad"`
}

// TestQDPModulesRun runs every generated Python plugin module on the real
// tensorrt.plugin package: the plain-Python plugin/ directory of each
// tensorrt-cu1x-bindings wheel named by OPFORGE_TRT_BINDINGS (a path list
// of directories holding tensorrt_bindings/, e.g. a venv's site-packages
// or an unpacked older wheel), with testdata/trt/qdp/core standing in for
// the compiled tensorrt core only. check_qdp.py drives each plugin as
// TensorRT does: created from ONNX-encoded fields and from Python values,
// output types and shapes on concrete dims (they must equal what the
// opdef's expressions evaluate to), the attribute values the functions
// see (no NUL, float16 arrays as float16), the autotune combinations, the
// aot_impl (Triton placeholder compiled to PTX for sm_80), and every bad
// attribute value refused with an error naming op and attribute. Each
// package also runs with a core before TensorRT 10.9 (no AOT API): the
// module must import and register all the same.
func TestQDPModulesRun(t *testing.T) {
	dirs := filepath.SplitList(os.Getenv("OPFORGE_TRT_BINDINGS"))
	if len(dirs) == 0 {
		t.Skip("OPFORGE_TRT_BINDINGS unset: set it to directories holding the tensorrt_bindings package of a tensorrt-cu13-bindings (or -cu12-) wheel, e.g. a venv's site-packages")
	}
	py := python(t)
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("%s cannot import numpy", py)
	}
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "tensorrt_bindings", "plugin", "__init__.py")); err != nil {
			t.Fatalf("OPFORGE_TRT_BINDINGS: %v", err)
		}
	}
	for _, p := range packages(t) {
		modules, _ := filepath.Glob(filepath.Join(p.dir, "python", "*.py"))
		if len(modules) != 1 {
			continue
		}
		var cases []qdpCase
		var ops []*ir.Op
		for _, op := range Ops(p.pkg) {
			if OpOptions(op).QDP == nil {
				continue
			}
			ops = append(ops, op)
			cases = append(cases, qdpCaseOf(p.pkg, op))
		}
		for di, dir := range dirs {
			for _, before109 := range []bool{false, true} {
				name := fmt.Sprintf("%s/bindings%d", p.pkg.Name, di)
				if before109 {
					name += "/core-before-10.9"
				}
				t.Run(name, func(t *testing.T) {
					results := runQDPChecker(t, py, dir, before109, modules[0], cases)
					if len(results) != len(cases) {
						t.Fatalf("%d results for %d ops", len(results), len(cases))
					}
					for i, r := range results {
						checkQDPResult(t, p.pkg, ops[i], cases[i], r)
					}
				})
			}
		}
	}
}

func runQDPChecker(t *testing.T, py, bindings string, before109 bool, module string, cases []qdpCase) []qdpResult {
	t.Helper()
	data, _ := json.Marshal(cases)
	in := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, qdpChecker, module, in)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "TRITON_CACHE_DIR="+t.TempDir(), "OPFORGE_TRT_BINDINGS="+bindings)
	if before109 {
		cmd.Env = append(cmd.Env, "OPFORGE_TRT_CORE_BEFORE_10_9=1")
	}
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s: %v\n%s", module, err, stderr)
	}
	var results []qdpResult
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return results
}

// qdpEnv gives the inputs dims (each symbol a value) and the attribute
// values, and the environment the opdef's expressions evaluate in.
func qdpEnv(pkg *ir.Package, op *ir.Op) ([][]int64, map[string]value, shapeexpr.MapEnv) {
	pm := newPackageModel(pkg, []*ir.Op{op})
	env := shapeexpr.MapEnv{Symbols: map[string]int64{}, Elements: map[string][]int64{}, TensorDims: map[string][]int64{},
		Floats: map[string]float64{}, FloatElements: map[string][]float64{}}
	next := int64(5)
	var dims [][]int64
	for _, t := range layoutOf(op).Inputs {
		dims = append(dims, dimsOf(t.T, env, &next, 0))
		env.TensorDims[t.Name] = dims[len(dims)-1]
	}
	values := map[string]value{}
	for _, m := range pm.Ops[0].Params {
		v := chooseValue(m.p, m)
		values[m.Name] = v
		floatParamEnv(env, m.p, v) // the roundings of output dims read float params
		switch m.p.Kind {
		case ir.ParamScalar, ir.ParamBool: // a bool may decide an output's rank (keep: <param>)
			if len(v.ints) == 1 {
				env.Symbols[m.Name] = v.ints[0]
			}
		case ir.ParamArray:
			if len(v.floats) == 0 { // a float array's elements and length are its floats
				env.Elements[m.Name] = v.ints
			}
		}
	}
	if len(op.Requires) > 0 {
		// The dims TensorRT hands register are constant here, so the
		// module checks the relations: give it dims that hold them.
		satisfyRelations(op, layoutOf(op), dims, env)
	}
	for _, s := range op.DataDependent {
		env.Symbols[s.Name], _ = s.Upper.Eval(env)
	}
	return dims, values, env
}

// qdpCombos are the dtype combinations autotune lists for the attribute
// values: those whose outputs typed by a param (dtype_param) have the
// dtypes the values name.
func qdpCombos(op *ir.Op, l *ioLayout, values map[string]value) []combo {
	var out []combo
	for _, c := range l.Combos() {
		fits := true
		for _, t := range slices.Concat(l.Inputs, l.Outputs) {
			if t.Rule == ruleParam {
				i := choiceOf(t.Param, values[t.Param.Name])
				fits = fits && i >= 0 && c.DTypes[t.Pos] == t.Allowed[i]
			}
		}
		if fits {
			out = append(out, c)
		}
	}
	return out
}

// choiceOf is the index of a dtype-choosing param's value among its enum
// values or its dtype codes (chooseValue keeps a code's place as index),
// -1 for none.
func choiceOf(p *ir.Param, v value) int {
	if p.DTypeCode != nil {
		return v.index
	}
	return slices.Index(p.Values, v.text)
}

func qdpCaseOf(pkg *ir.Package, op *ir.Op) qdpCase {
	l := layoutOf(op)
	dims, values, _ := qdpEnv(pkg, op)
	c := qdpCase{ID: pkg.Namespace + "::" + PluginID(pkg, op).Name, Attrs: map[string]any{}}
	combo := qdpCombos(op, l, values)[0]
	for i, t := range l.Inputs {
		c.Inputs = append(c.Inputs, qdpInput{Dims: dims[i], DType: strings.TrimPrefix(TensorDType(combo.DTypes[t.Pos]), "k")})
	}
	pm := newPackageModel(pkg, []*ir.Op{op})
	for i, p := range op.Params {
		c.Attrs[p.Ident] = qdpValue(p, values[p.Name])
		c.Bad = append(c.Bad, qdpBadValues(c.ID, p, pm.Ops[0].Params[i], values[p.Name])...)
	}
	if len(op.Params) > 0 {
		c.AttrsFunc = qdpAttrsFunc(names.Snake(op.Name))
	}
	return c
}

// qdpValue is v as the JSON value check_qdp.py turns into the attribute.
func qdpValue(p *ir.Param, v value) any {
	switch {
	case p.Kind == ir.ParamString || p.Kind == ir.ParamEnum:
		return v.text
	case p.Kind == ir.ParamBool:
		return v.ints[0] == 1
	case len(v.floats) > 0 && p.Kind == ir.ParamScalar:
		return v.floats[0]
	case len(v.floats) > 0:
		return v.floats
	case p.Kind == ir.ParamScalar:
		return v.ints[0]
	}
	return v.ints
}

// qdpBadValues are values of p that the C++ plugin's createPlugin refuses
// (out of range, not an enum value, wrong length, a NUL inside a string),
// each with the error the Python plugin must raise. good is a valid value.
func qdpBadValues(id string, p *ir.Param, m *paramModel, good value) []qdpBad {
	prefix := id + ": attribute \"" + p.Name + "\" "
	var bad []qdpBad
	switch p.Kind {
	case ir.ParamString:
		bad = append(bad, qdpBad{Attr: p.Ident, Value: "a\x00b", Want: prefix + "holds a NUL character inside the string"})
	case ir.ParamEnum:
		bad = append(bad, qdpBad{Attr: p.Ident, Value: "no_such_value", Want: prefix + "is 'no_such_value', not one of the values '" + p.Values[0] + "'"})
	case ir.ParamScalar:
		if m.elem.IsFloat() {
			if p.Min != nil {
				bad = append(bad, qdpBad{Attr: p.Ident, Value: *p.Min - 1, Want: prefix + "value "})
			}
			break
		}
		// The ONNX parser sends int32: only a bound inside int32 can be crossed.
		lo, hi := intLimits(p, m.elem)
		bounds := fmt.Sprintf(" is outside [%d, %d]", lo, hi)
		switch {
		case hi < math.MaxInt32:
			bad = append(bad, qdpBad{Attr: p.Ident, Value: hi + 1, Want: prefix + fmt.Sprintf("value %d", hi+1) + bounds})
		case lo > math.MinInt32:
			bad = append(bad, qdpBad{Attr: p.Ident, Value: lo - 1, Want: prefix + fmt.Sprintf("value %d", lo-1) + bounds})
		}
	case ir.ParamArray:
		if p.Length > 0 {
			var longer value
			switch {
			case len(good.floats) > 0:
				longer.floats = append(append([]float64{}, good.floats...), good.floats[0])
			case len(good.ints) > 0:
				longer.ints = append(append([]int64{}, good.ints...), good.ints[0])
			default:
				return bad
			}
			bad = append(bad, qdpBad{Attr: p.Ident, Value: qdpValue(p, longer), Want: prefix + fmt.Sprintf("has %d value(s); expected %d", p.Length+1, p.Length)})
		}
		if p.Min != nil && m.elem != ir.Bool && (len(good.ints) > 0 || len(good.floats) > 0) {
			low := value{ints: append([]int64{}, good.ints...), floats: append([]float64{}, good.floats...)}
			if len(low.floats) > 0 {
				low.floats[0] = *p.Min - 1
			} else {
				low.ints[0] = int64(math.Ceil(*p.Min)) - 1
			}
			bad = append(bad, qdpBad{Attr: p.Ident, Value: qdpValue(p, low), Want: prefix + "value "})
		}
	}
	return bad
}

func checkQDPResult(t *testing.T, pkg *ir.Package, op *ir.Op, c qdpCase, r qdpResult) {
	t.Helper()
	aot := OpOptions(op).QDP.Impl != "jit"
	if !aot && !r.Impl {
		t.Errorf("%s: no @trtp.impl", op.Name)
	}
	for _, style := range []string{"onnx", "python"} {
		run, ok := r.Styles[style]
		if !ok {
			t.Errorf("%s: no %s run", op.Name, style)
			continue
		}
		if run.Error != "" {
			t.Errorf("%s (%s attributes): %s", op.Name, style, run.Error)
			continue
		}
		if run.Skipped != "" {
			t.Logf("%s (%s attributes): registered; not run: %s", op.Name, style, run.Skipped)
			continue
		}
		checkQDPRun(t, pkg, op, c, run, style)
		if style == "onnx" && aot && r.AOTAPI {
			checkQDPAOT(t, pkg, op, run)
		} else if run.AOT != nil {
			t.Errorf("%s (%s attributes): aot_impl ran without the AOT API: %v", op.Name, style, run.AOT)
		}
	}
	if len(r.Bad) != len(c.Bad) {
		t.Fatalf("%s: %d bad-value results for %d", op.Name, len(r.Bad), len(c.Bad))
	}
	for i, b := range r.Bad {
		switch {
		case b.Skipped != "":
			t.Logf("%s: attribute %s = %v not tried: %s", op.Name, b.Attr, c.Bad[i].Value, b.Skipped)
		case b.Error == nil:
			t.Errorf("%s: attribute %s = %v accepted; want %q", op.Name, b.Attr, c.Bad[i].Value, c.Bad[i].Want)
		case !strings.Contains(*b.Error, c.Bad[i].Want):
			t.Errorf("%s: attribute %s = %v: error %q, want it to contain %q", op.Name, b.Attr, c.Bad[i].Value, *b.Error, c.Bad[i].Want)
		}
	}
}

// checkQDPRun checks one creation's output types and shapes, autotune
// combinations and the attribute values the module's functions see.
func checkQDPRun(t *testing.T, pkg *ir.Package, op *ir.Op, c qdpCase, r qdpRun, style string) {
	t.Helper()
	l := layoutOf(op)
	inDims, values, env := qdpEnv(pkg, op)
	combos := qdpCombos(op, l, values)
	combo := combos[0]
	if len(r.Outputs) != len(l.Outputs) {
		t.Fatalf("%s (%s): %d outputs, want %d", op.Name, style, len(r.Outputs), len(l.Outputs))
	}
	aliased := map[string]bool{}
	for _, a := range OpOptions(op).Aliases {
		aliased[a.Output] = true
	}
	for i, o := range l.Outputs {
		got := r.Outputs[i]
		wantType := strings.TrimPrefix(TensorDType(combo.DTypes[o.Pos]), "k")
		if got.DType != wantType {
			t.Errorf("%s (%s) output %s: dtype %s, want %s", op.Name, style, o.Name, got.DType, wantType)
		}
		if o.Size != nil {
			upper, _ := o.Size.Upper.Eval(env)
			opt := upper
			if o.Size.Opt != nil {
				opt, _ = o.Size.Opt.Eval(env)
			}
			if !reflect.DeepEqual(got.Size, []int64{opt, upper}) {
				t.Errorf("%s (%s) size tensor %s: opt, upper %v, want %v", op.Name, style, o.Name, got.Size, []int64{opt, upper})
			}
			continue
		}
		var want []int64
		for _, d := range o.T.Shape {
			v, _ := d.Expr.Eval(env)
			want = append(want, v)
		}
		if in := l.like(o); in != nil {
			want, _ = ir.LikeDims(o.T.Like, inDims[in.Index], env)
		}
		if ins := l.broadcast(o); ins != nil {
			want, _ = ir.BroadcastDims(pick(inDims, ins)...)
		}
		if !reflect.DeepEqual(got.Dims, want) {
			t.Errorf("%s (%s) output %s: dims %v, want %v", op.Name, style, o.Name, got.Dims, want)
		}
		if got.Aliased != aliased[o.Name] {
			t.Errorf("%s (%s) output %s: aliased %v", op.Name, style, o.Name, got.Aliased)
		}
	}
	if want := qdpAutotuneCount(op, l, combos, values); len(r.Autotune) != want {
		t.Errorf("%s (%s): %d autotune combinations, want %d", op.Name, style, len(r.Autotune), want)
	}
	// Whatever the listing's keys say, every combination returned types
	// each dtype_param output as its param's value names.
	for _, c := range r.Autotune {
		for _, o := range l.Outputs {
			if o.Rule != ruleParam || len(c) == 0 || o.Pos >= len(c[0]) {
				continue
			}
			v := values[o.Param.Name]
			named := ir.DType(v.text)
			if i := choiceOf(o.Param, v); o.Param.DTypeCode != nil && i >= 0 {
				named = o.Param.ChosenDTypes()[i]
			}
			if want := strings.TrimPrefix(TensorDType(named), "k"); c[0][o.Pos] != want {
				t.Errorf("%s (%s): autotune returns %v with output %s %s; %s=%s (%v) types it %s", op.Name, style, c[0], o.Name, c[0][o.Pos], o.Param.Name, v.text, v.ints, want)
			}
		}
	}
	pm := newPackageModel(pkg, []*ir.Op{op})
	for i, p := range op.Params {
		got, ok := r.Attrs[p.Ident]
		if !ok {
			t.Errorf("%s (%s): the attribute check returned no %s", op.Name, style, p.Ident)
			continue
		}
		want := qdpValue(p, values[p.Name])
		if arr, isArr := got.(map[string]any); isArr {
			m := pm.Ops[0].Params[i]
			if dt := "np." + arr["dtype"].(string); dt != qdpArrayDType(m.elem) && !(dt == "np.bool" && m.elem == ir.Bool) {
				t.Errorf("%s (%s): attribute %s reaches the functions as %s, want %s", op.Name, style, p.Ident, dt, qdpArrayDType(m.elem))
			}
			got = arr["values"]
		}
		if !qdpSame(got, want) {
			t.Errorf("%s (%s): attribute %s reaches the functions as %#v, want %#v", op.Name, style, p.Ident, got, want)
		}
	}
}

// qdpSame compares a JSON value with the Go value it was made of; floats
// within float16's precision.
func qdpSame(got, want any) bool {
	switch w := want.(type) {
	case string, bool:
		return got == w
	case int64:
		g, ok := got.(float64)
		return ok && int64(g) == w
	case float64:
		g, ok := got.(float64)
		return ok && math.Abs(g-w) <= 1e-3*math.Max(1, math.Abs(w))
	case []int64:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !qdpSame(g[i], w[i]) && !qdpSame(g[i], w[i] != 0) {
				return false
			}
		}
		return true
	case []float64:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !qdpSame(g[i], w[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// checkQDPAOT checks aot_impl's kernel, grid and extra arguments.
func checkQDPAOT(t *testing.T, pkg *ir.Package, op *ir.Op, r qdpRun) {
	t.Helper()
	aot, ok := r.AOT.(map[string]any)
	if !ok {
		t.Logf("%s: aot_impl not run: %v", op.Name, r.AOT)
		return
	}
	l := layoutOf(op)
	inDims, _, env := qdpEnv(pkg, op)
	var numels []int64
	for _, o := range l.Outputs {
		if o.Size != nil {
			numels = append(numels, 1)
			continue
		}
		n := int64(1)
		for _, d := range o.T.Shape {
			v, _ := d.Expr.Eval(env)
			n *= v
		}
		if in := l.like(o); in != nil {
			dims, _ := ir.LikeDims(o.T.Like, inDims[in.Index], env)
			for _, v := range dims {
				n *= v
			}
		}
		if ins := l.broadcast(o); ins != nil {
			dims, _ := ir.BroadcastDims(pick(inDims, ins)...)
			for _, v := range dims {
				n *= v
			}
		}
		numels = append(numels, n)
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

// qdpTopLevel matches a module-level binding of a Python module: def,
// class, import (as), from-import and assignment, at column 0 or inside a
// module-level if/else block (column 4 after an unindented if/else line).
var qdpTopLevel = regexp.MustCompile(`^(?:def|class) (\w+)|^import [\w.]+ as (\w+)|^import (\w+)|^from \S+ import (.+)|^(\w+) =`)

// TestQDPModuleNamesReserved parses the module-level names of every
// generated Python plugin module and requires validation to refuse each
// as a tensor or param name of some op of the module (qdpShadows), so the
// reserved list cannot drift from qdp.py.tmpl.
func TestQDPModuleNamesReserved(t *testing.T) {
	seen := 0
	for _, p := range packages(t) {
		modules, _ := filepath.Glob(filepath.Join(p.dir, "python", "*.py"))
		if len(modules) != 1 {
			continue
		}
		data, err := os.ReadFile(modules[0])
		if err != nil {
			t.Fatal(err)
		}
		var ops []*ir.Op
		for _, op := range Ops(p.pkg) {
			if OpOptions(op).QDP != nil {
				ops = append(ops, op)
			}
		}
		inBlock := false
		for _, line := range strings.Split(string(data), "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if !strings.HasPrefix(line, " ") {
				inBlock = strings.HasPrefix(line, "if ") || strings.HasPrefix(line, "else:")
			} else if inBlock && strings.HasPrefix(line, "    ") && !strings.HasPrefix(line, "     ") {
				line = line[4:]
			} else {
				continue
			}
			m := qdpTopLevel.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			var found []string
			for _, g := range m[1:] {
				for _, n := range strings.Split(g, ",") {
					if n = strings.TrimSpace(n); n != "" {
						found = append(found, n)
					}
				}
			}
			for _, n := range found {
				seen++
				shadowed := false
				for _, op := range ops {
					shadowed = shadowed || qdpShadows(qdpOpNames(op), n)
				}
				if !shadowed {
					t.Errorf("%s: module-level name %s is not refused as a tensor or param name (qdpModuleNames, qdpOpNames)", modules[0], n)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no generated Python plugin module found")
	}
}

// TestKernelParams: every attribute the placeholder Triton kernel can take
// arrives as a tl.constexpr under a name no other kernel argument, BLOCK_SIZE
// or other attribute has; what cannot be a constant is named in the docs.
func TestKernelParams(t *testing.T) {
	f := 1.0
	op := &ir.Op{Params: []*ir.Param{
		{Ident: "block_size", Kind: ir.ParamScalar, DTypes: []ir.DType{ir.Int32}},
		{Ident: "a", Kind: ir.ParamArray, Length: 2, DTypes: []ir.DType{ir.Float32}},
		{Ident: "a_0", Kind: ir.ParamScalar, DTypes: []ir.DType{ir.Float32}, Min: &f},
		{Ident: "mode", Kind: ir.ParamEnum, Values: []string{"x\"y"}, DTypes: []ir.DType{ir.Int32}},
		{Ident: "on", Kind: ir.ParamBool, DTypes: []ir.DType{ir.Bool}},
		{Ident: "v", Kind: ir.ParamArray, DTypes: []ir.DType{ir.Int32}},
		{Ident: "s", Kind: ir.ParamString},
	}}
	consts, docs := kernelParams(op, []string{"x_ptr", "ON"})
	var got []string
	for _, c := range consts {
		got = append(got, c.Name+"="+c.Expr)
	}
	want := []string{
		"BLOCK_SIZE_=int(block_size)",
		"A_0=float(a[0])", "A_1=float(a[1])",
		"A_0_=float(a_0)",
		`MODE=("x\"y",).index(mode)`,
		"ON_=bool(on)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("constexprs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantDocs := []string{
		"BLOCK_SIZE_: block_size", "A_0, A_1: a[0..1]", "A_0_: a_0", `MODE: mode as its index (0 x"y)`, "ON_: on",
		"v (variable length) is not passed: add it to extra_args or compile it in",
		"s (string) is not passed: add it to extra_args or compile it in",
	}
	if strings.Join(docs, "\n") != strings.Join(wantDocs, "\n") {
		t.Errorf("docs:\n%s\nwant:\n%s", strings.Join(docs, "\n"), strings.Join(wantDocs, "\n"))
	}
}

// pick are the dims of the inputs ins.
func pick(dims [][]int64, ins []*ioTensor) [][]int64 {
	out := make([][]int64, len(ins))
	for k, in := range ins {
		out[k] = dims[in.Index]
	}
	return out
}
