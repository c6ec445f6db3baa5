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
	"regexp"
	"slices"

	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/reference"
	"github.com/opforge/opforge/generators/verifier"
)

//go:embed runner.py
var runner []byte

// implementationFile is how a target's implementation module must be
// named (runners/<target>_verify.py): a module name of the target's own,
// which shadows neither the harness (runner.py, imported as
// opforge_runner) nor a standard-library module the harness imports.
var implementationFile = regexp.MustCompile(`^[a-z][a-z0-9_]*_verify\.py$`)

// Names are the runners' names, in order.
func Names(rs []verifier.Runner) []string {
	var names []string
	for _, r := range rs {
		names = append(names, r.Name())
	}
	return names
}

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
	// Runners are the implementations verify knows, in the order it runs
	// them (targets.Verifiers()); Targets selects among them by name.
	Runners []verifier.Runner
	Targets []string // empty: all
	// Python runs the runner (torch needed); "" is $OPFORGE_PYTHON, else python3.
	Python string
	// Tolerances override the runner's per-dtype (rtol, atol) for floats.
	Tolerances map[string][2]float64
	// Build is the build directory runners build libraries in ("" :
	// build); Toolchains the descriptors ("" : the built-in ones or
	// toolchains/).
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
	Target    string            `json:"target"`
	Package   string            `json:"package"`
	Reference map[string]string `json:"reference"`
	// Implementation names the module (written beside the runner) and the
	// class of it the runner makes.
	Implementation jobImpl               `json:"implementation"`
	Impl           map[string]string     `json:"impl"`
	Ops            []jobOp               `json:"ops"`
	Tolerances     map[string][2]float64 `json:"tolerances,omitempty"`
}

// jobImpl is the implementation the runner makes: a module file beside
// it and a class of that module.
type jobImpl struct {
	File  string `json:"file"`
	Class string `json:"class"`
}

type jobOp struct {
	Op string `json:"op"`
	// Fields are the runner's own (Runner.OpFields), beside the others.
	Fields map[string]any `json:"-"`
	// Tolerances are the op's own (opdef verify: rtol, atol), when the
	// command line gave none.
	Tolerances map[string][2]float64 `json:"tolerances,omitempty"`
	Cases      []Case                `json:"cases"`
}

// MarshalJSON writes the op's fields and the runner's in one object.
func (jo jobOp) MarshalJSON() ([]byte, error) {
	m := map[string]any{"op": jo.Op, "cases": jo.Cases}
	if len(jo.Tolerances) > 0 {
		m["tolerances"] = jo.Tolerances
	}
	for k, v := range jo.Fields {
		if _, taken := m[k]; !taken {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// nativeCases are cs with every tensor's dtype spelled as n spells it.
func nativeCases(cs []Case, n verifier.DTypeNamer) []Case {
	out := make([]Case, len(cs))
	for i, c := range cs {
		c.Inputs, c.Outputs = slices.Clone(c.Inputs), slices.Clone(c.Outputs)
		for _, ts := range [][]Tensor{c.Inputs, c.Outputs} {
			for k := range ts {
				ts[k].Native = n.DTypeName(ts[k].dtype)
			}
		}
		out[i] = c
	}
	return out
}

// Run verifies the selected ops on the selected targets (each one of
// the runners' names). Bad opdefs or selections are diagnostics in l (no results).
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
		targets = Names(o.Runners)
	}
	python, pyProblem := findPython(o.Python)
	ro := verifier.Options{Out: o.Out, Build: o.Build, Toolchains: o.Toolchains}
	// Runners build what they need here for the run (a failure to make it
	// shows as the runner's failure to write there).
	tmp, _ := os.MkdirTemp("", "opforge-verify-")
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
		for _, r := range o.Runners {
			t := r.Name()
			if !slices.Contains(targets, t) {
				continue
			}
			var run []*ir.Op
			skip := func(op *ir.Op, reason string) {
				results = append(results, Result{Package: pkg.Name, Op: op.Name, Target: t, Case: "-", Status: Skip, Reason: reason})
			}
			for _, op := range ops {
				why, applies := r.Runnable(ro, pkg, op)
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
			prep := r.Prepare(ro, pkg, filepath.Join(tmp, t, pkg.Name))
			if prep.Skip != "" || prep.Err != "" {
				for _, op := range run {
					if prep.Skip != "" {
						skip(op, prep.Skip)
					} else {
						results = append(results, Result{Package: pkg.Name, Op: op.Name, Target: t, Case: "-", Status: Fail, Reason: prep.Err})
					}
				}
				continue
			}
			j.Impl = prep.Impl
			for _, op := range run {
				jo := jobOp{Op: op.Name, Cases: cases[op.Name], Fields: r.OpFields(pkg, op)}
				if n, ok := r.(verifier.DTypeNamer); ok {
					jo.Cases = nativeCases(jo.Cases, n)
				}
				if o.Tolerances == nil {
					jo.Tolerances = opTolerances(op)
				}
				j.Ops = append(j.Ops, jo)
			}
			results = append(results, runJob(python, j, r.Implementation(), prep.Env)...)
		}
	}
	return results
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

// runJob runs the runner on one (package, target) job, with impl's module
// beside it, and reads its results.
func runJob(python string, j job, impl verifier.Implementation, env []string) []Result {
	j.Implementation = jobImpl{File: impl.File, Class: impl.Class}
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
	if f := impl.File; !implementationFile.MatchString(f) {
		return fail(fmt.Sprintf("internal: the %s runner's implementation module is named %q, not <target>_verify.py", j.Target, f))
	}
	if err := os.WriteFile(filepath.Join(dir, impl.File), impl.Source, 0o644); err != nil {
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
