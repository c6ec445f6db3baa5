package verify

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/reference"
	"github.com/opforge/opforge/generators/targets/aipu"
	"github.com/opforge/opforge/generators/targets/trt"
)

//go:embed runner.py
var runner []byte

// Targets are the implementations verify knows, in the order it runs them.
var Targets = []string{"executorch", "aipu", "aipu-quant", "trt", "trt-python", "htp"}

// Statuses of a result. A skip is never a pass.
const (
	Pass = "pass"
	Fail = "fail"
	Skip = "skip"
)

// Options say what to verify and with what.
type Options struct {
	OpDefs, Out string
	Packages    []string
	Ops         []string
	Targets     []string // empty: all
	// Python runs the runner (torch needed); "" is $OPFORGE_PYTHON, else python3.
	Python string
	// Tolerances override the runner's per-dtype (rtol, atol) for floats.
	Tolerances map[string][2]float64
	// CompassOptimizer is a Compass_Optimizer checkout ("" : $COMPASS_OPTIMIZER_DIR).
	CompassOptimizer string
	// Build is the build directory the TensorRT plugin libraries are built
	// in ("" : build); Toolchains the descriptors ("" : the built-in ones
	// or toolchains/).
	Build, Toolchains string
}

// Result is one op × target × case (Case "-" when the target did not run).
type Result struct {
	Package string  `json:"package"`
	Op      string  `json:"op"`
	Target  string  `json:"target"`
	Case    string  `json:"case"`
	Status  string  `json:"status"`
	Reason  string  `json:"reason,omitempty"`
	MaxAbs  float64 `json:"max_abs"`
	MaxRel  float64 `json:"max_rel"`
}

// job is what the runner reads on stdin.
type job struct {
	Target     string                `json:"target"`
	Package    string                `json:"package"`
	Reference  map[string]string     `json:"reference"`
	Impl       map[string]string     `json:"impl"`
	Ops        []jobOp               `json:"ops"`
	Tolerances map[string][2]float64 `json:"tolerances,omitempty"`
}

type jobOp struct {
	Op        string `json:"op"`
	LayerType string `json:"layer_type,omitempty"`
	TRT       *trtOp `json:"trt,omitempty"`
	HTP       *htpOp `json:"htp,omitempty"`
	// Tolerances are the op's own (opdef verify: rtol, atol), when the
	// command line gave none.
	Tolerances map[string][2]float64 `json:"tolerances,omitempty"`
	Cases      []Case                `json:"cases"`
}

// Run verifies the selected ops on the selected targets (each one of
// Targets). Bad opdefs or selections are diagnostics in l (no results).
func Run(o Options, l *diag.List) []Result {
	pkgs := load.Tree(o.OpDefs, l)
	if l.HasErrors() {
		return nil
	}
	if len(o.Packages) > 0 {
		kept, unknown := ir.SelectPackages(pkgs, o.Packages)
		for _, w := range unknown {
			l.Errorf(diag.Pos{File: filepath.ToSlash(o.OpDefs)}, "unknown-package", "no package %q is defined under %s; packages: %s", w, o.OpDefs, strings.Join(ir.PackageNames(pkgs), ", "))
		}
		pkgs = kept
	}
	for _, name := range o.Ops {
		if !slices.ContainsFunc(pkgs, func(p *ir.Package) bool { return p.Op(name) != nil }) {
			l.Errorf(diag.Pos{File: filepath.ToSlash(o.OpDefs)}, "unknown-op", "no op %q is defined under %s", name, o.OpDefs)
		}
	}
	if l.HasErrors() {
		return nil
	}
	targets := o.Targets
	if len(targets) == 0 {
		targets = Targets
	}
	python, pyProblem := findPython(o.Python)
	// Built runners live here for the run (a failure to make it shows as
	// the TensorRT runner's failure to be written).
	tmp, _ := os.MkdirTemp("", "opforge-verify-trt-")
	defer os.RemoveAll(tmp)
	var results []Result
	for _, pkg := range pkgs {
		ops := pkg.OpsWhere(func(op *ir.Op) bool { return len(o.Ops) == 0 || slices.Contains(o.Ops, op.Name) })
		cases := make(map[string][]Case, len(ops))
		notes := map[string]string{}
		for _, op := range ops {
			c, n := Cases(op)
			cases[op.Name] = c
			notes[op.Name] = strings.Join(n, "; ")
		}
		ref := filepath.Join(o.Out, filepath.FromSlash(reference.Path(pkg)))
		for _, t := range Targets {
			if !slices.Contains(targets, t) {
				continue
			}
			var run []*ir.Op
			skip := func(op *ir.Op, reason string) {
				results = append(results, Result{Package: pkg.Name, Op: op.Name, Target: t, Case: "-", Status: Skip, Reason: reason})
			}
			for _, op := range ops {
				why, applies := runnable(pkg, op, t, o)
				switch {
				case !applies:
				case why != "":
					skip(op, why)
				case pyProblem != "":
					skip(op, pyProblem)
				case len(cases[op.Name]) == 0:
					skip(op, "no case: "+notes[op.Name])
				default:
					if _, err := os.Stat(ref); err != nil {
						skip(op, fmt.Sprintf("no reference module %s (run opforge gen)", filepath.ToSlash(ref)))
						continue
					}
					run = append(run, op)
				}
			}
			if len(run) == 0 {
				continue
			}
			j := job{Target: t, Package: pkg.Name, Tolerances: o.Tolerances,
				Reference: map[string]string{"module": reference.Module(pkg), "path": ref}}
			env := []string{}
			switch t {
			case "executorch":
				mod, err := executorchModule(o.Out, pkg)
				if err != nil {
					for _, op := range run {
						skip(op, err.Error())
					}
					continue
				}
				j.Impl = map[string]string{"path": mod}
			case "aipu", "aipu-quant":
				env = append(env, "AIPUPLUGIN_PATH="+filepath.Join(o.Out, "aipu", pkg.Name, "opt"), "COMPASS_OPTIMIZER_DIR="+compassDir(o))
			case "trt":
				prep := prepareTRT(o, pkg, filepath.Join(tmp, pkg.Name))
				if prep.skip != "" || prep.err != "" {
					for _, op := range run {
						if prep.skip != "" {
							skip(op, prep.skip)
						} else {
							results = append(results, Result{Package: pkg.Name, Op: op.Name, Target: t, Case: "-", Status: Fail, Reason: prep.err})
						}
					}
					continue
				}
				j.Impl = map[string]string{"library": prep.library, "runner": prep.runner}
			case "htp":
				prep := prepareHTP(o, pkg, filepath.Join(tmp, "htp", pkg.Name))
				if prep.skip != "" || prep.err != "" {
					for _, op := range run {
						if prep.skip != "" {
							skip(op, prep.skip)
						} else {
							results = append(results, Result{Package: pkg.Name, Op: op.Name, Target: t, Case: "-", Status: Fail, Reason: prep.err})
						}
					}
					continue
				}
				j.Impl = map[string]string{"python": prep.python, "script": prep.script, "library": prep.library,
					"interface": pkg.Name + "InterfaceProvider", "domain": htpDomain(pkg), "mismatch": prep.mismatch}
			case "trt-python":
				mod, err := pythonPluginModule(o.Out, pkg)
				e, problem := trtPythonEnv()
				if err != nil || problem != "" {
					if problem == "" {
						problem = err.Error()
					}
					for _, op := range run {
						skip(op, problem)
					}
					continue
				}
				env = append(env, e...)
				j.Impl = map[string]string{"path": mod}
			}
			for _, op := range run {
				jo := jobOp{Op: op.Name, Cases: cases[op.Name]}
				if a := aipu.OpOptions(op); a != nil {
					jo.LayerType = a.LayerType
				}
				if t == "trt" || t == "trt-python" {
					jo.TRT = trtOpOf(pkg, op)
				}
				if t == "htp" {
					jo.HTP = htpOpOf(op)
				}
				if o.Tolerances == nil {
					jo.Tolerances = opTolerances(op)
				}
				j.Ops = append(j.Ops, jo)
			}
			results = append(results, runJob(python, j, env)...)
		}
	}
	return results
}

// runnable says whether target t applies to op (applies) and, when it
// cannot run here, why.
func runnable(pkg *ir.Package, op *ir.Op, t string, o Options) (why string, applies bool) {
	switch t {
	case "executorch":
		if op.Targets.HTP == nil || !pkg.HTP.ExecuTorch {
			return "", false
		}
	case "aipu", "aipu-quant":
		if aipu.OpOptions(op) == nil {
			return "", false
		}
		if compassDir(o) == "" {
			return "COMPASS_OPTIMIZER_DIR is not set (a checkout of github.com/Arm-China/Compass_Optimizer): the OPT plugin is not run", true
		}
		for _, in := range op.Inputs {
			if in.Static || in.Optional || in.Variadic {
				return "verify does not run AIPU ops with static, optional or variadic inputs yet", true
			}
		}
		for _, p := range op.Params {
			if p.Kind == ir.ParamTensor {
				return "verify does not run AIPU ops with tensor params yet", true
			}
		}
	case "trt":
		if trt.OpOptions(op) == nil {
			return "", false
		}
		return trtLayoutProblem(op), true
	case "trt-python":
		if t := trt.OpOptions(op); t == nil || t.QDP == nil {
			return "", false
		}
		return trtLayoutProblem(op), true
	case "htp":
		if op.Targets.HTP == nil {
			return "", false
		}
		if len(op.DataDependent) > 0 {
			return "verify does not run HTP ops with data-dependent output sizes yet", true
		}
	}
	return "", true
}

func compassDir(o Options) string {
	if o.CompassOptimizer != "" {
		return o.CompassOptimizer
	}
	return os.Getenv("COMPASS_OPTIMIZER_DIR")
}

// executorchModule finds the package's generated ExecuTorch module.
func executorchModule(out string, pkg *ir.Package) (string, error) {
	dir := filepath.Join(out, "htp", pkg.Name, "executorch")
	mods, _ := filepath.Glob(filepath.Join(dir, "*.py"))
	if len(mods) != 1 {
		return "", fmt.Errorf("no ExecuTorch module in %s (run opforge gen)", filepath.ToSlash(dir))
	}
	return mods[0], nil
}

// findPython returns the interpreter and, when it cannot run the
// runner (no interpreter, no torch), why.
func findPython(p string) (string, string) {
	if p == "" {
		p = os.Getenv("OPFORGE_PYTHON")
	}
	if p == "" {
		p = "python3"
	}
	path, err := exec.LookPath(p)
	if err != nil {
		return p, fmt.Sprintf("no Python interpreter %q (set OPFORGE_PYTHON or --python to one with torch): %v", p, err)
	}
	out, err := exec.Command(path, "-c", "import torch").CombinedOutput()
	if err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return path, fmt.Sprintf("%s cannot import torch (set OPFORGE_PYTHON or --python to one with torch): %s", path, lines[len(lines)-1])
	}
	return path, ""
}

// runJob runs the runner on one (package, target) job and reads its results.
func runJob(python string, j job, env []string) []Result {
	in, err := json.Marshal(j)
	fail := func(reason string) []Result {
		var rs []Result
		for _, op := range j.Ops {
			rs = append(rs, Result{Package: j.Package, Op: op.Op, Target: j.Target, Case: "-", Status: Fail, Reason: reason})
		}
		return rs
	}
	if err != nil {
		return fail("internal: " + err.Error())
	}
	dir, err := os.MkdirTemp("", "opforge-verify-")
	if err != nil {
		return fail(err.Error())
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "runner.py")
	if err := os.WriteFile(script, runner, 0o644); err != nil {
		return fail(err.Error())
	}
	cmd := exec.Command(python, script)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = append(append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var rs []Result
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r Result
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Op == "" {
			continue
		}
		r.Package, r.Target = j.Package, j.Target
		rs = append(rs, r)
	}
	want := 0
	for _, op := range j.Ops {
		want += len(op.Cases)
	}
	if len(rs) < want {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndex(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		rs = append(rs, Result{Package: j.Package, Op: "-", Target: j.Target, Case: "-", Status: Fail,
			Reason: fmt.Sprintf("the runner stopped after %d of %d cases (%v): %s", len(rs), want, runErr, msg)})
	}
	return rs
}

// Failed reports whether any result failed.
func Failed(rs []Result) bool {
	return slices.ContainsFunc(rs, func(r Result) bool { return r.Status == Fail })
}

// WriteText prints one line per result, then a summary per op × target.
func WriteText(w io.Writer, rs []Result) {
	for _, r := range rs {
		line := fmt.Sprintf("%-4s %s/%s %s [%s]", strings.ToUpper(r.Status), r.Package, r.Op, r.Target, r.Case)
		if r.Status != Skip && r.Case != "-" {
			line += fmt.Sprintf(" max_abs=%.3g max_rel=%.3g", r.MaxAbs, r.MaxRel)
		}
		if r.Reason != "" {
			line += ": " + r.Reason
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-40s %-11s %5s %5s %5s\n", "op", "target", "pass", "fail", "skip")
	for _, s := range Summarize(rs) {
		fmt.Fprintf(w, "%-40s %-11s %5d %5d %5d\n", s.Package+"/"+s.Op, s.Target, s.Pass, s.Fail, s.Skip)
	}
	p, f, k := 0, 0, 0
	for _, r := range rs {
		switch r.Status {
		case Pass:
			p++
		case Fail:
			f++
		default:
			k++
		}
	}
	fmt.Fprintf(w, "opforge verify: %d passed, %d failed, %d skipped (a skip is not a pass)\n", p, f, k)
}

// Summary counts an op × target's results.
type Summary struct {
	Package string `json:"package"`
	Op      string `json:"op"`
	Target  string `json:"target"`
	Pass    int    `json:"pass"`
	Fail    int    `json:"fail"`
	Skip    int    `json:"skip"`
}

// Summarize counts results per op × target, in the order they first appear.
func Summarize(rs []Result) []Summary {
	var out []Summary
	idx := map[[3]string]int{}
	for _, r := range rs {
		k := [3]string{r.Package, r.Op, r.Target}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Summary{Package: r.Package, Op: r.Op, Target: r.Target})
		}
		switch r.Status {
		case Pass:
			out[i].Pass++
		case Fail:
			out[i].Fail++
		default:
			out[i].Skip++
		}
	}
	return out
}

// WriteJSON prints the results and the summary as one JSON object.
func WriteJSON(w io.Writer, rs []Result) error {
	if rs == nil {
		rs = []Result{}
	}
	s := Summarize(rs)
	if s == nil {
		s = []Summary{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"results": rs, "summary": s})
}

// opTolerances are op's own float tolerances (opdef verify: rtol, atol
// replacing the per-dtype defaults), or nil.
func opTolerances(op *ir.Op) map[string][2]float64 {
	v := op.Verify
	if v == nil || v.Rtol == nil && v.Atol == nil {
		return nil
	}
	m := map[string][2]float64{}
	for dtype, d := range DefaultTolerances {
		if v.Rtol != nil {
			d[0] = *v.Rtol
		}
		if v.Atol != nil {
			d[1] = *v.Atol
		}
		m[dtype] = d
	}
	return m
}

// DefaultTolerances are the runner's (rtol, atol) per float dtype; integer
// and boolean outputs compare exactly.
var DefaultTolerances = map[string][2]float64{
	"float64":  {1e-7, 1e-9},
	"float32":  {1e-4, 1e-5},
	"float16":  {1e-2, 1e-3},
	"bfloat16": {2e-2, 1e-2},
}
