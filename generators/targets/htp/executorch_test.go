package htp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/literal"
	"github.com/opforge/opforge/generators/sharedfixtures"

	"github.com/opforge/opforge/generators/cli"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/shapeexpr"
	"github.com/opforge/opforge/generators/targets/htp"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
)

// trees pairs each checked-in generated tree with the opdefs it comes from
// (their goldens tests keep them current).
var trees = []struct{ opdefs, out string }{
	{"../../../testdata/gen/examples/opdefs", "../../../testdata/gen/examples/out"},
	{"../../../../shared/fixtures/qnn", "../../../testdata/gen/fixtures/out"},
	{"../../../../shared/fixtures/qnn-more", "../../../testdata/gen/fixtures-more/out"},
	{"../../../testdata/gen/htp-params/opdefs", "../../../testdata/gen/htp-params/out"},
	{"../../../testdata/gen/executorch-lower/opdefs", "../../../testdata/gen/executorch-lower/out"},
	{"../../../testdata/gen/rank-poly/opdefs", "../../../testdata/gen/rank-poly/out"},
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
	// RefParams are the params as the package's reference must receive
	// them from the eager implementation for the test's call: enums by
	// value name, arrays as lists (a tuple is wanted), tensor params as
	// null (a tensor is wanted).
	RefParams map[string]any `json:"ref_params"`
	// BadAxes are axis params (of a shape like an input's, or of
	// x.shape[p]) with a value that is no axis of the case's input: the
	// fake must raise IndexError for each.
	BadAxes map[string]int64 `json:"bad_axes,omitempty"`
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
	if t := d.Info().Torch; t != "" {
		return t
	}
	// A dtype torch has no name for (QNN's BACKEND_SPECIFIC, which a
	// SupplementalOpDefList resolves for the backend): the module's
	// tensors are float32 there.
	return "float32"
}

// planOp computes, independently of the generator, what the fake
// implementation must return for sample inputs: symbols get distinct sizes,
// required params get small values, defaulted params keep their defaults.
func planOp(op *ir.Op) opCase {
	c := opCase{Op: htp.TorchName(op), QNNOp: op.Name, Args: []tensorArg{}, Kwargs: []tensorArg{}, RefParams: map[string]any{}}
	env := shapeexpr.MapEnv{Symbols: map[string]int64{}, Elements: map[string][]int64{}, TensorDims: map[string][]int64{}}
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
		env.TensorDims[in.Name] = shape
		c.Args = append(c.Args, tensorArg{Kind: "tensor", Shape: shape, DType: dt})
	}
	for _, p := range op.Params {
		var value int64 = 2
		if p.Min != nil && float64(value) < *p.Min {
			value = int64(*p.Min)
		}
		if p.Default != nil && p.Kind != ir.ParamTensor {
			c.RefParams[p.Ident] = literal.Of(p, p.Default).Go()
			if p.Kind == ir.ParamArray {
				var elems []int64
				for _, e := range p.Default.List {
					v, _ := strconv.ParseInt(e.Text, 10, 64)
					elems = append(elems, v)
				}
				env.Elements[p.Name] = elems
			} else if v, err := strconv.ParseInt(p.Default.Text, 10, 64); err == nil {
				env.Symbols[p.Name] = v
			} else if b, err := strconv.ParseBool(p.Default.Text); err == nil && p.Kind == ir.ParamBool {
				// A bool may decide an output's rank (keep: <param>).
				env.Symbols[p.Name] = map[bool]int64{false: 0, true: 1}[b]
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
			env.Symbols[p.Name] = 0
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
		switch {
		case p.Kind == ir.ParamTensor:
			c.RefParams[p.Ident] = nil
		case p.Kind == ir.ParamEnum:
			// The schema carries the value's index.
			if i, ok := arg.Value.(int64); ok && i < int64(len(p.Values)) {
				c.RefParams[p.Ident] = p.Values[i]
			}
		default:
			c.RefParams[p.Ident] = arg.Value
		}
	}
	dd := map[string]bool{}
	for _, s := range op.DataDependent {
		dd[s.Name] = true
	}
	for i, o := range op.Outputs {
		out := output{Name: o.Name}
		if r := op.Derived().Shapes[i]; r.Rule == ir.ShapeBroadcastOf {
			var shapes [][]int64
			for _, j := range r.Inputs {
				shapes = append(shapes, c.Args[j].Shape)
			}
			dims, err := ir.BroadcastDims(shapes...)
			if err != nil {
				panic(op.Name + ": " + err.Error())
			}
			for _, v := range dims {
				out.Shape = append(out.Shape, &v)
			}
		} else if r.Rule == ir.ShapeSameAs {
			dims, err := ir.LikeDims(o.Like, c.Args[r.Input].Shape, env)
			if err != nil {
				panic(op.Name + ": " + err.Error())
			}
			for _, v := range dims {
				out.Shape = append(out.Shape, &v)
			}
		} else if o.Shape == nil {
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
	badAxes(op, &c)
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
		if !sharedfixtures.Present(tr.opdefs) {
			t.Logf("%s is absent (shared/fixtures: CI and developers only): its tree is not checked", tr.opdefs)
			continue
		}
		var l diag.List
		pkgs := load.Tree(tr.opdefs, &l)
		registry.Check(&l, pkgs...)
		if l.HasErrors() {
			t.Fatalf("%s: %v", tr.opdefs, l.Sorted())
		}
		for _, pkg := range pkgs {
			ops := htp.Ops(pkg)
			if len(ops) == 0 || !htpopt.OfPackage(pkg).ExecuTorch {
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

// executorchPython is OPFORGE_EXECUTORCH_PYTHON (the test skips without
// it), the environment its lowering scripts run in, and
// OPFORGE_QNN_HTP_LIB_DIR.
func executorchPython(t *testing.T) (py string, base []string, backend string) {
	t.Helper()
	py = os.Getenv("OPFORGE_EXECUTORCH_PYTHON")
	if py == "" {
		t.Skip("OPFORGE_EXECUTORCH_PYTHON is not set: name a Python with the executorch wheel and its torch (go tool mage test sets it to the test virtualenv, which has executorch 1.0)")
	}
	// The interpreter's directory (a virtualenv's bin) holds executorch's
	// flatc. QNN_SDK_ROOT must be set: importing executorch's Qualcomm
	// backend without it downloads a QNN SDK (1.0 wants it non-empty). A
	// stand-in's lib/x86_64-linux-clang is OPFORGE_QNN_HTP_LIB_DIR, where
	// later releases' quantizer loads libQnnHtp.so from.
	backend = os.Getenv("OPFORGE_QNN_HTP_LIB_DIR")
	sdk := os.Getenv("QNN_SDK_ROOT")
	if sdk == "" {
		sdk = t.TempDir()
		if backend != "" {
			abs, err := filepath.Abs(backend)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(sdk, "lib"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(abs, filepath.Join(sdk, "lib", "x86_64-linux-clang")); err != nil {
				t.Fatal(err)
			}
		}
	}
	base = append(os.Environ(), "PATH="+filepath.Dir(py)+string(os.PathListSeparator)+os.Getenv("PATH"), "QNN_SDK_ROOT="+sdk)
	probe := exec.Command(py, "-c", "import executorch.backends.qualcomm.python.PyQnnManagerAdaptor")
	probe.Env = base
	if out, err := probe.CombinedOutput(); err != nil {
		t.Fatalf("OPFORGE_EXECUTORCH_PYTHON=%s cannot import ExecuTorch's Qualcomm AOT bridge: %v\n%s", py, err, out)
	}
	return py, base, backend
}

// TestExecuTorchLowering takes the generated module of
// testdata/gen/executorch-lower (an op with defaulted int, float, array and
// enum params) through the real executorch wheel, for a call leaving every
// default out and one passing each: "builder" runs ExecuTorch's Qualcomm
// pass pipeline and its CustomOp builder, which refuses a node whose
// argument count differs from the schema; "calibrate" quantizes with the
// Qualcomm quantizer (PT2E) a copy whose reference is written, so that
// calibration runs the eager implementation and it the reference (later
// executorch releases load libQnnHtp.so there: OPFORGE_QNN_HTP_LIB_DIR);
// "delegate" lowers with the
// Qualcomm partitioner and op_package_options() and wants the node inside
// the delegate, which needs Qualcomm's HTP backend and the package's x86
// build. go tool mage test installs executorch 1.0 (the release of the test
// virtualenv's torch) and sets OPFORGE_EXECUTORCH_PYTHON to it.
func TestExecuTorchLowering(t *testing.T) {
	py, base, backend := executorchPython(t)
	const root = "../../../testdata/gen/executorch-lower"
	var l diag.List
	pkgs := load.Tree(root+"/opdefs", &l)
	if l.HasErrors() || len(pkgs) != 1 || len(pkgs[0].Ops) != 1 {
		t.Fatalf("%s: want one package of one op: %v", root, l.Sorted())
	}
	pkg, op := pkgs[0], pkgs[0].Ops[0]
	c := planOp(op)
	inputs := []tensorArg{}
	for _, a := range c.Args {
		inputs = append(inputs, tensorArg{Shape: a.Shape, DType: a.DType})
	}
	required := map[string]any{}
	for _, k := range c.Kwargs {
		required[k.Name] = k.Value
	}
	abs := func(p string) string {
		p, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	packageDir := os.Getenv("OPFORGE_ET_PACKAGE_DIR")
	if packageDir == "" {
		packageDir = filepath.Join(t.TempDir(), pkg.Name)
	}
	ns := names.Snake(pkg.Name)
	// A copy of the tree with the op's reference written, for calibration.
	calibrated := filepath.Join(t.TempDir(), "out")
	if err := os.CopyFS(calibrated, os.DirFS(filepath.Join(root, "out"))); err != nil {
		t.Fatal(err)
	}
	fillRegion(t, filepath.Join(calibrated, "reference", pkg.Name, ns+"_reference.py"), "reference:"+op.Name,
		"    return x * scale + (1.0 if mode == \"add\" else 2.0) * window[0] * axis\n")
	plan := map[string]any{
		"module":           abs(filepath.Join(root, "out", "htp", pkg.Name, "executorch", ns+".py")),
		"calibrate_module": filepath.Join(calibrated, "htp", pkg.Name, "executorch", ns+".py"),
		"qnn_op":           op.Name,
		"namespace":        ns,
		"op":               c.Op,
		"inputs":           inputs,
		"required":         required,
		"package_dir":      abs(packageDir),
		"soc":              "SM8650",
	}
	data, _ := json.Marshal(plan)
	planPath := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(planPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	lower := func(t *testing.T, stage string, env ...string) {
		cmd := exec.Command(py, "../../../testdata/python/lower_executorch.py", planPath, stage)
		cmd.Env = append(append([]string{}, base...), env...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if err != nil && backend == "" && strings.Contains(out.String(), "Fail to load Qnn library") {
			t.Skipf("this executorch's %s stage loads Qualcomm's libQnnHtp.so (executorch 1.0's does not): set OPFORGE_QNN_HTP_LIB_DIR\n%s", stage, out.String())
		}
		if err != nil {
			t.Fatalf("ExecuTorch %s stage failed: %v\n%s", stage, err, out.String())
		}
		t.Log(out.String())
	}
	t.Run("builder", func(t *testing.T) { lower(t, "builder") })
	t.Run("calibrate", func(t *testing.T) { lower(t, "calibrate") })
	t.Run("delegate", func(t *testing.T) {
		if backend == "" {
			t.Skip("OPFORGE_QNN_HTP_LIB_DIR is not set: name the directory of Qualcomm's x86_64 libQnnHtp.so (the QNN SDK's lib/x86_64-linux-clang, or the onnxruntime_qnn package of the onnxruntime-qnn wheel)")
		}
		lib := filepath.Join(packageDir, "build", "x86_64-linux-clang", "libQnn"+pkg.Name+".so")
		if _, err := os.Stat(lib); err != nil {
			t.Skipf("no x86 build of the package (%v): set OPFORGE_ET_PACKAGE_DIR to a copy of %s/out/htp/%s built with `make htp_x86` against the QNN headers of the backend's version", err, root, pkg.Name)
		}
		lower(t, "delegate", "LD_LIBRARY_PATH="+backend+string(os.PathListSeparator)+os.Getenv("LD_LIBRARY_PATH"))
	})
}

// TestExecuTorchLoweringImported: ops imported from torch.library ops
// (testdata/gen/torch-import, from generators/torchimport/testdata/
// torchops.py) register as those ops. A model that imports the ops' module
// and calls torch.ops.opf_test.<name> itself, leaving the defaults out
// (torch.export records the call without them) or passing them, goes
// through torch.export, ExecuTorch's Qualcomm pass pipeline and its CustomOp
// builder made from the generated op_package_options(), which must accept
// the node (the module fills the trailing defaults in for the builder).
func TestExecuTorchLoweringImported(t *testing.T) {
	py, base, _ := executorchPython(t)
	const root = "../../../testdata/gen/torch-import"
	var l diag.List
	pkgs := load.Tree(root+"/opdefs", &l)
	if l.HasErrors() || len(pkgs) != 1 {
		t.Fatalf("%s: want one package: %v", root, l.Sorted())
	}
	pkg := pkgs[0]
	module, err := filepath.Abs("../../torchimport/testdata/torchops.py")
	if err != nil {
		t.Fatal(err)
	}
	etModule, err := filepath.Abs(filepath.Join(root, "out", "htp", pkg.Name, "executorch", names.Snake(pkg.Name)+".py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range pkg.Ops {
		t.Run(op.Name, func(t *testing.T) {
			if op.Torch == nil {
				t.Fatalf("op %s has no torch origin", op.Name)
			}
			ns, name, _ := strings.Cut(op.Torch.Op, "::")
			c := planOp(op)
			inputs := []tensorArg{}
			for _, a := range c.Args {
				inputs = append(inputs, tensorArg{Shape: a.Shape, DType: a.DType})
			}
			required := map[string]any{}
			for _, k := range c.Kwargs {
				required[k.Name] = k.Value
			}
			plan := map[string]any{
				"module": etModule, "namespace": ns, "op": name, "qnn_op": op.Name,
				"torch_module": module, "inputs": inputs, "required": required,
				"package_dir": t.TempDir(), "soc": "SM8650",
			}
			data, _ := json.Marshal(plan)
			planPath := filepath.Join(t.TempDir(), "plan.json")
			if err := os.WriteFile(planPath, data, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(py, "../../../testdata/python/lower_executorch.py", planPath, "builder")
			cmd.Env = base
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("ExecuTorch builder stage failed: %v\n%s", err, out)
			}
			if n := strings.Count(string(out), ": accepted, "); n != 2 {
				t.Fatalf("want the builder to take both calls, %d reported:\n%s", n, out)
			}
			t.Log(string(out))
		})
	}
}

// TestOldEagerRegionKept: an ExecuTorch module written before the eager
// implementations called the package's reference module held the reference
// in its own region reference:<Op>. User code there has no region to go to
// in the new module, so gen stops with user-region-orphan at that region's
// line and writes nothing: the code is not lost.
func TestOldEagerRegionKept(t *testing.T) {
	ws := t.TempDir()
	if err := os.CopyFS(filepath.Join(ws, "opdefs"), os.DirFS("../../../testdata/gen/examples/opdefs")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(ws)
	gen := func() (int, string) {
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"gen"}, &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}
	if code, out := gen(); code != 0 {
		t.Fatalf("opforge gen: exit %d\n%s", code, out)
	}
	et := filepath.Join("out", "htp", "VisionOps", "executorch", "vision_ops.py")
	data, err := os.ReadFile(et)
	if err != nil {
		t.Fatal(err)
	}
	const anchor = "def _top_k_last_fake("
	at := bytes.Index(data, []byte(anchor))
	if at < 0 {
		t.Fatalf("%s has no %q", et, anchor)
	}
	old := "def top_k_last_reference(x, k, order=0):\n" +
		"    # opforge:begin reference:TopKLast\n" +
		"    return torch.topk(x, k, dim=-1)  # the user's eager code\n" +
		"    # opforge:end reference:TopKLast\n\n"
	line := bytes.Count(data[:at], []byte("\n")) + 2 // the begin marker's
	edited := append(append(append([]byte{}, data[:at]...), old...), data[at:]...)
	if err := os.WriteFile(et, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := gen()
	if code == 0 {
		t.Fatalf("gen succeeded over user code in the old region reference:TopKLast:\n%s", out)
	}
	t.Log(out)
	want := fmt.Sprintf("%s:%d", filepath.ToSlash(et), line)
	for _, w := range []string{want, "user-region-orphan", `"reference:TopKLast"`, "region reference:TopKLast of out/reference/VisionOps/vision_ops_reference.py"} {
		if !strings.Contains(out, w) {
			t.Errorf("gen's diagnostics lack %q:\n%s", w, out)
		}
	}
	if now, _ := os.ReadFile(et); !bytes.Equal(now, edited) {
		t.Error("gen changed the module holding user code in a region it no longer generates")
	}
}

// fillRegion replaces the body of the Python region key in file.
func fillRegion(t *testing.T, file, key, body string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "# opforge:begin "+key+"\n", "# opforge:end "+key+"\n"
	b := bytes.Index(data, []byte(begin))
	e := bytes.Index(data, []byte(end))
	if b < 0 || e < b {
		t.Fatalf("%s has no region %s", file, key)
	}
	e = bytes.LastIndexByte(data[:e], '\n') + 1 // the end marker's line
	out := append(append(append([]byte{}, data[:b+len(begin)]...), body...), data[e:]...)
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// badAxes records, for every param an output's shape takes an axis from,
// a value past the rank of the case's input it indexes (within the
// param's declared range; none when the range allows no such value).
func badAxes(op *ir.Op, c *opCase) {
	add := func(param, input string) {
		p, i := op.Param(param), slices.IndexFunc(op.Inputs, func(t *ir.Tensor) bool { return t.Name == input })
		if p == nil || i < 0 || c.Args[i].Kind != "tensor" {
			return
		}
		// One past the negative end, else past the positive one: a value
		// no other number of the message (the rank) can stand for.
		rank := int64(len(c.Args[i].Shape))
		bad := -(rank + 1)
		if p.Min != nil && *p.Min > float64(bad) {
			bad = rank + 1
			if p.Max != nil && *p.Max < float64(bad) {
				return
			}
		}
		if c.BadAxes == nil {
			c.BadAxes = map[string]int64{}
		}
		c.BadAxes[p.Ident] = bad
	}
	var walk func(e *shapeexpr.Expr)
	walk = func(e *shapeexpr.Expr) {
		if e.Kind == shapeexpr.Dim && e.Axis != "" {
			add(e.Axis, e.Name)
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	for _, o := range op.Outputs {
		if o.Like != nil && o.Like.Axis != "" {
			add(o.Like.Axis, o.Like.Input)
		}
		for _, d := range o.Shape {
			walk(d.Expr)
		}
	}
}
