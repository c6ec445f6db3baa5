package harness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/toolchain"
)

// Doctor is a Runner that tells `opforge doctor` what it found on this
// machine of what it needs to run, and what to install or set for what is
// not there. Doctor stays target-agnostic: it asks every runner of the
// registry, and one Python run per interpreter answers every runner's
// probes (a Python per runner would import torch many times over).
type Doctor interface {
	// Probes are the Python modules the runner needs facts of.
	Probes() []Probe
	// Doctor is what the runner found, from the probes' results in py
	// (verify's Python; other interpreters through py.Interpreter) and
	// from o (o.Env for SDKs, tools and variables).
	Doctor(o Options, py Python) []Finding
}

// Probe is a Python module doctor imports, and facts it reads of it.
type Probe struct {
	// Module is the module to import ("torch.cuda").
	Module string
	// Path are environment variables whose directories (path lists) go
	// first on sys.path when set, as the runner puts them there
	// (COMPASS_OPTIMIZER_DIR).
	Path []string
	// Facts are Python expressions over the imported module, bound as m,
	// whose values doctor reports by name: {"cuda": "m.cuda.is_available()"}.
	// A value that is not JSON is reported as its str().
	Facts map[string]string
	// Interpreter, when set, is the environment variable naming the Python
	// the module lives in (a target's own OPFORGE_<...>_PYTHON), instead of
	// verify's.
	Interpreter string
}

// Python is what doctor's probe found of one Python interpreter.
type Python struct {
	// Path is the interpreter ("" when none was found); Via how it was
	// chosen ("--python", "$OPFORGE_PYTHON", "PATH").
	Path, Via string
	// Version is the interpreter's version (3.11.7).
	Version string
	// Problem says why the probe could not run or did not finish (no
	// interpreter, the timeout, a crash); modules probed before it are in
	// Modules all the same.
	Problem string
	// Modules are the probed modules, by name.
	Modules map[string]Module
	// Others are the other interpreters' results, by the variable that
	// names them (Probe.Interpreter).
	Others map[string]Python
}

// Module is a probed module, by name; one the probe did not reach says so
// as its Error.
func (p Python) Module(name string) Module {
	if m, ok := p.Modules[name]; ok {
		return m
	}
	why := "not probed"
	if p.Problem != "" {
		why += ": " + p.Problem
	}
	return Module{Name: name, Error: why}
}

// Interpreter is the result for the Python the variable env names.
func (p Python) Interpreter(env string) Python {
	if o, ok := p.Others[env]; ok {
		return o
	}
	return Python{Via: "$" + env, Problem: env + " was not probed"}
}

// Describe is the interpreter as a line says it: its path, version and
// how it was chosen.
func (p Python) Describe() string {
	s := p.Path
	if p.Version != "" {
		s += " " + p.Version
	}
	if p.Via != "" {
		s += " (via " + p.Via + ")"
	}
	return s
}

// Module is one probed Python module.
type Module struct {
	Name string
	// Version is its __version__ (or its distribution's), "" when unknown.
	Version string
	// Error is why it does not import ("" : it does).
	Error string
	// Facts are the Probe's facts that could be read, FactErrors why
	// the others could not.
	Facts      map[string]any
	FactErrors map[string]string
}

// OK reports whether the module imports.
func (m Module) OK() bool { return m.Error == "" }

// Fact is a fact's value as text (a list's items joined with "; "), ""
// when it was not read.
func (m Module) Fact(name string) string {
	switch v := m.Facts[name].(type) {
	case nil:
		return ""
	case string:
		return v
	case []any:
		var items []string
		for _, e := range v {
			items = append(items, fmt.Sprint(e))
		}
		return strings.Join(items, "; ")
	default:
		return fmt.Sprint(v)
	}
}

// True reports whether a fact is the boolean true.
func (m Module) True(name string) bool {
	b, _ := m.Facts[name].(bool)
	return b
}

// Label is the module with its version ("triton 3.5.1").
func (m Module) Label() string {
	if m.Version == "" {
		return m.Name
	}
	return m.Name + " " + m.Version
}

// Finding statuses: a piece the runner needs is there (ok) or not
// (missing: the runner's ops are skipped here); none, a piece not needed
// on this machine.
const (
	OK      = "ok"
	Missing = "missing"
	None    = "none"
)

// Finding is one line of a runner's doctor report.
type Finding struct {
	Status string
	// Name is what was looked for ("GPU", "triton", "SDK versions").
	Name string
	// Detail is where it was found and what it is, or what is wrong.
	Detail string
	// Fix is what to install or set ("" when nothing is).
	Fix string
}

// FromFound is a toolchain piece as a finding (the build target's own
// probing, so doctor's verify section and the build agree).
func FromFound(f toolchain.Found) Finding {
	if !f.OK() {
		return Finding{Status: Missing, Name: f.Name, Detail: f.Problem}
	}
	d := f.Path
	if f.Version != "" {
		d += " " + f.Version
	}
	return Finding{Status: OK, Name: f.Name, Detail: d + " (via " + f.Via + ")"}
}

// ProbeKey is how probes of one module in one interpreter merge.
func ProbeKey(p Probe) string { return p.Interpreter + "\x00" + p.Module }

// MergeProbes merges the probes of one module in one interpreter (their
// paths and facts together), in order of first appearance.
func MergeProbes(ps []Probe) []Probe {
	var out []Probe
	at := map[string]int{}
	for _, p := range ps {
		i, ok := at[ProbeKey(p)]
		if !ok {
			at[ProbeKey(p)] = len(out)
			out = append(out, Probe{Module: p.Module, Interpreter: p.Interpreter, Facts: map[string]string{}})
			i = len(out) - 1
		}
		for _, e := range p.Path {
			if !slices.Contains(out[i].Path, e) {
				out[i].Path = append(out[i].Path, e)
			}
		}
		for k, v := range p.Facts {
			if _, taken := out[i].Facts[k]; !taken {
				out[i].Facts[k] = v
			}
		}
	}
	return out
}
