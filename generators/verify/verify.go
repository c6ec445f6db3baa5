package verify

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/reference"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/selection"
)

//go:embed runner.py
var runner []byte

// implementationFile is how a target's implementation module must be
// named (runners/<target>_verify.py): a module name of the target's own,
// which shadows neither the harness (runner.py, imported as
// opforge_runner) nor a standard-library module the harness imports.
var implementationFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]*_verify\.py$`) })

// Names are the runners' names, in order.
func Names(rs []harness.Runner) []string {
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
	// them (registry.Verifiers()); Targets selects among them by name.
	Runners []harness.Runner
	Targets []string // empty: all
	// RunnerTarget names, by runner, the target whose generated code the
	// runner runs (registry.VerifierTargets()): its cases come from the op
	// as narrowed for that target (ir.Op.For). A runner not named runs
	// the op as written.
	RunnerTarget map[string]string
	// Python runs the runner (torch needed); "" is $OPFORGE_PYTHON, else python3.
	Python string
	// Tolerances override the runner's per-dtype (rtol, atol) for floats.
	Tolerances map[string][2]float64
	// Build is the build directory runners build libraries in ("" :
	// build); Toolchains the descriptors ("" : the built-in ones or
	// toolchains/).
	Build, Toolchains string
	// CaseTimeout bounds every stage of a runner (0: DefaultCaseTimeout).
	CaseTimeout time.Duration
	// Shard runs a deterministic part of the op × target × case list.
	Shard Shard
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
	// Check is what running the case proved (Kernel or Wiring; "" where
	// the implementation did not run it) and Engine what ran it.
	Check  string `json:"check,omitempty"`
	Engine string `json:"engine,omitempty"`
	// NotTaken marks a skip the implementation chose: a case outside what
	// it takes (a dtype combination it refuses, a rank over the target's
	// limit), not a runner that cannot run here.
	NotTaken bool `json:"not_taken,omitempty"`
	// Seq is the case's place in an unsharded run (Merge sorts by it).
	Seq int `json:"seq"`
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
	// CaseTimeout is --case-timeout in seconds, for implementations that
	// run a case in a process of their own (they bound it below verify's).
	CaseTimeout float64 `json:"case_timeout,omitempty"`
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
func nativeCases(cs []Case, n harness.DTypeNamer) []Case {
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
// the runners' names). Bad opdefs or selections are diagnostics in l (no
// results): the opdefs pass every target's checks, as check and gen hold
// them to, before anything is built or run.
func Run(o Options, l *diag.List) []Result {
	pkgs := load.Tree(o.OpDefs, l)
	registry.Check(l, pkgs...)
	if l.HasErrors() {
		return nil
	}
	if len(o.Packages) > 0 || len(o.Ops) > 0 {
		sel := selection.Flags{Packages: o.Packages, Ops: o.Ops}
		pkgs = sel.Resolve(pkgs, filepath.ToSlash(o.OpDefs), l)
	}
	if l.HasErrors() {
		return nil
	}
	chosen := o.Targets
	if len(chosen) == 0 {
		chosen = Names(o.Runners)
	}
	timeout := o.CaseTimeout
	if timeout <= 0 {
		timeout = DefaultCaseTimeout
	}
	py := findPython(o.Python, timeout)
	ro := harness.Options{Out: o.Out, Build: o.Build, Toolchains: o.Toolchains}
	// Runners build what they need here for the run (a failure to make it
	// shows as the runner's failure to write there).
	tmp, _ := os.MkdirTemp("", "opforge-verify-")
	defer os.RemoveAll(tmp)
	var results []Result
	// seq numbers every op × target × case (an op × target that does not
	// run counts once) in the order an unsharded run takes them: a shard
	// runs those whose number it owns, and merged shards sort by it.
	seq := 0
	for _, pkg := range pkgs {
		written := pkg
		ref := filepath.Join(o.Out, filepath.FromSlash(reference.Path(pkg)))
		byTarget := map[string]targetCases{} // the cases of each target's narrowing, built once
		for _, r := range o.Runners {
			t := r.Name()
			if !slices.Contains(chosen, t) {
				continue
			}
			// The ops as the runner's target generates them.
			tc, built := byTarget[o.RunnerTarget[t]]
			if !built {
				tc = newTargetCases(written.For(o.RunnerTarget[t]), o.Ops)
				byTarget[o.RunnerTarget[t]] = tc
			}
			pkg, ops, cases, notes := tc.pkg, tc.ops, tc.cases, tc.notes
			var run []*ir.Op
			owned := map[string][]Case{}
			first := map[string]int{}
			fail := func(op *ir.Op, status, reason string) {
				results = append(results, Result{Package: pkg.Name, Op: op.Name, Target: t, Case: "-", Status: status, Reason: reason, Seq: first[op.Name]})
			}
			for _, op := range ops {
				why, applies := r.Runnable(ro, pkg, op)
				if !applies {
					continue
				}
				// Every case of the op gets its number whether it runs here
				// or not, so every shard numbers alike.
				first[op.Name] = seq
				var mine []Case
				for _, c := range cases[op.Name] {
					if o.Shard.Owns(seq) {
						c.seq = seq
						mine = append(mine, c)
					}
					seq++
				}
				if len(cases[op.Name]) == 0 {
					seq++
				}
				// A verdict on the whole op belongs to the shard owning its first number.
				whole := o.Shard.Owns(first[op.Name])
				switch {
				case why != "":
					if whole {
						fail(op, Skip, why)
					}
				case py.fatal:
					if whole {
						fail(op, Fail, py.problem)
					}
				case py.problem != "":
					if whole {
						fail(op, Skip, py.problem)
					}
				case len(cases[op.Name]) == 0:
					if whole {
						fail(op, Skip, "no case: "+notes[op.Name])
					}
				case len(mine) == 0:
				default:
					if _, err := os.Stat(ref); err != nil {
						if whole {
							fail(op, Skip, fmt.Sprintf("no reference module %s (run opforge gen)", filepath.ToSlash(ref)))
						}
						continue
					}
					owned[op.Name] = mine
					run = append(run, op)
				}
			}
			if len(run) == 0 {
				continue
			}
			j := job{Target: t, Package: pkg.Name, Tolerances: o.Tolerances, CaseTimeout: timeout.Seconds(),
				Reference: map[string]string{"module": reference.Module(pkg), "path": ref}}
			prep := r.Prepare(ro, pkg, filepath.Join(tmp, t, pkg.Name))
			if prep.Skip != "" || prep.Err != "" {
				for _, op := range run {
					if !o.Shard.Owns(first[op.Name]) {
						continue // the op's verdict is the shard's owning its first case
					}
					if prep.Skip != "" {
						fail(op, Skip, prep.Skip)
					} else {
						fail(op, Fail, prep.Err)
					}
				}
				continue
			}
			j.Impl = prep.Impl
			for _, op := range run {
				jo := jobOp{Op: op.Name, Cases: owned[op.Name], Fields: r.OpFields(pkg, op)}
				if n, ok := r.(harness.DTypeNamer); ok {
					jo.Cases = nativeCases(jo.Cases, n)
				}
				if o.Tolerances == nil {
					jo.Tolerances = opTolerances(op)
				}
				j.Ops = append(j.Ops, jo)
			}
			rs, interrupted := runJob(py.path, j, r.Implementation(), prep.Env, timeout)
			results = append(results, numbered(j, rs)...)
			if interrupted {
				return results // the user stopped the run: nothing more starts
			}
		}
	}
	return results
}

// targetCases are a package's ops as one target generates them, with
// their cases and the notes on what those leave out, by op name.
type targetCases struct {
	pkg   *ir.Package
	ops   []*ir.Op
	cases map[string][]Case
	notes map[string]string
}

// newTargetCases builds the cases of pkg's ops named in only (all when
// empty).
func newTargetCases(pkg *ir.Package, only []string) targetCases {
	tc := targetCases{pkg: pkg, cases: map[string][]Case{}, notes: map[string]string{}}
	tc.ops = pkg.OpsWhere(func(op *ir.Op) bool { return len(only) == 0 || slices.Contains(only, op.Name) })
	for _, op := range tc.ops {
		c, n := Cases(op)
		tc.cases[op.Name] = c
		tc.notes[op.Name] = strings.Join(n, "; ")
	}
	return tc
}

// numbered gives each of a job's results the number of its case (a
// result of no case, the number of its op's first case here).
func numbered(j job, rs []Result) []Result {
	num := map[[2]string]int{}
	for _, op := range j.Ops {
		for i, c := range op.Cases {
			if i == 0 {
				num[[2]string{op.Op, "-"}] = c.seq
			}
			num[[2]string{op.Op, c.Name}] = c.seq
		}
	}
	for i := range rs {
		if n, ok := num[[2]string{rs[i].Op, rs[i].Case}]; ok {
			rs[i].Seq = n
		} else if n, ok := num[[2]string{rs[i].Op, "-"}]; ok {
			rs[i].Seq = n
		}
	}
	return rs
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
