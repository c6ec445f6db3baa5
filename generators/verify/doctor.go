package verify

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/opforge/opforge/generators/procgroup"

	"github.com/opforge/opforge/generators/harness"
)

//go:embed doctor_probe.py
var doctorProbe []byte

// DefaultDoctorTimeout is how long doctor waits for a Python probe: long
// enough for torch, triton and an SDK's Python to import on a cold disk,
// short enough that a Python that hangs does not hang doctor.
const DefaultDoctorTimeout = 60 * time.Second

// DoctorOptions are what `opforge doctor` reads of verify's runners.
type DoctorOptions struct {
	harness.Options
	// Python is --python ("" : $OPFORGE_PYTHON, else python3), as verify
	// chooses it.
	Python string
	// Timeout bounds each Python probe (0: DefaultDoctorTimeout).
	Timeout time.Duration
}

// Doctor prints, per verify runner, what it found on this machine of what
// it needs and what to install or set for the rest, after one Python probe
// per interpreter that answers every runner's probes. It returns how many
// runners cannot run here.
func Doctor(w io.Writer, o DoctorOptions, runners []harness.Runner) int {
	start := time.Now()
	py := Probe(o, runners)
	took := time.Since(start).Round(100 * time.Millisecond)
	fmt.Fprintf(w, "verify (Python probe %s)\n", took)
	pyLine := pythonFinding(py)
	line(w, pyLine)
	ro := o.Options
	ro.Env = o.Environment()
	var cannot []string
	for _, r := range runners {
		fmt.Fprintf(w, "verify %s\n", r.Name())
		d, ok := r.(harness.Doctor)
		if !ok {
			line(w, harness.Finding{Status: harness.None, Name: "doctor", Detail: "the runner does not say what it needs"})
			continue
		}
		blocked := pyLine.Status == harness.Missing
		for _, f := range d.Doctor(ro, py) {
			line(w, f)
			blocked = blocked || f.Status == harness.Missing
		}
		if blocked {
			cannot = append(cannot, r.Name())
		}
	}
	if len(cannot) > 0 {
		fmt.Fprintf(w, "%d verify runner(s) cannot run here (%s); verify skips their ops and says why.\n", len(cannot), strings.Join(cannot, ", "))
	}
	return len(cannot)
}

// line prints a finding as doctor prints a toolchain piece.
func line(w io.Writer, f harness.Finding) {
	text := f.Detail
	if f.Fix != "" {
		text += "; " + f.Fix
	}
	fmt.Fprintf(w, "  %-8s %-28s %s\n", f.Status, f.Name, text)
}

// pythonFinding is verify's Python: every runner's harness needs it, with
// torch.
func pythonFinding(py harness.Python) harness.Finding {
	fix := "set OPFORGE_PYTHON or --python to a Python with torch (pip install torch)"
	if py.Path == "" {
		return harness.Finding{Status: harness.Missing, Name: "python", Detail: py.Problem, Fix: fix}
	}
	torch := py.Module("torch")
	switch {
	case !torch.OK() && py.Problem != "":
		return harness.Finding{Status: harness.Missing, Name: "python", Detail: py.Describe() + ": " + py.Problem, Fix: fix}
	case !torch.OK():
		return harness.Finding{Status: harness.Missing, Name: "python", Detail: py.Describe() + ": torch does not import: " + torch.Error, Fix: fix}
	}
	f := harness.Finding{Status: harness.OK, Name: "python", Detail: py.Describe() + ", " + torch.Label()}
	if py.Problem != "" {
		// torch imported; a later module stopped the probe (its runner says so).
		f.Detail += "; then " + py.Problem
	}
	return f
}

// harnessProbes are verify's own: the harness imports torch; whether it
// sees a GPU serves every runner that runs on one.
var harnessProbes = []harness.Probe{{Module: "torch", Facts: map[string]string{
	"cuda":   "m.cuda.is_available()",
	"device": "m.cuda.get_device_name(0) if m.cuda.is_available() else ''",
}}}

// Probe runs verify's probes and every runner's (RunProbes).
func Probe(o DoctorOptions, runners []harness.Runner) harness.Python {
	probes := append([]harness.Probe{}, harnessProbes...)
	for _, r := range runners {
		if d, ok := r.(harness.Doctor); ok {
			probes = append(probes, d.Probes()...)
		}
	}
	return RunProbes(o, probes)
}

// RunProbes runs probes, one Python run per interpreter (in parallel,
// each within o.Timeout), and returns verify's Python with the others
// under Others.
func RunProbes(o DoctorOptions, probes []harness.Probe) harness.Python {
	env := o.Environment()
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultDoctorTimeout
	}
	byInterpreter := map[string][]harness.Probe{}
	var order []string
	for _, p := range harness.MergeProbes(probes) {
		if _, ok := byInterpreter[p.Interpreter]; !ok {
			order = append(order, p.Interpreter)
		}
		byInterpreter[p.Interpreter] = append(byInterpreter[p.Interpreter], p)
	}
	results := make([]harness.Python, len(order))
	var wg sync.WaitGroup
	for i, interp := range order {
		var py harness.Python
		if interp == "" {
			py = findInterpreter(verifyPython(o.Python, env.Getenv), env.LookPath)
		} else if v := env.Getenv(interp); v == "" {
			py = harness.Python{Via: "$" + interp, Problem: interp + " is not set"}
		} else {
			py = findInterpreter(harness.Python{Path: v, Via: "$" + interp}, env.LookPath)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runProbe(py, byInterpreter[interp], env.Getenv, timeout)
		}()
	}
	wg.Wait()
	var main harness.Python
	others := map[string]harness.Python{}
	for i, interp := range order {
		if interp == "" {
			main = results[i]
		} else {
			others[interp] = results[i]
		}
	}
	main.Others = others
	return main
}

// verifyPython is the interpreter verify would run, as named: p
// (--python), else $OPFORGE_PYTHON, else python3.
func verifyPython(p string, getenv func(string) string) harness.Python {
	switch {
	case p != "":
		return harness.Python{Path: p, Via: "--python"}
	case getenv("OPFORGE_PYTHON") != "":
		return harness.Python{Path: getenv("OPFORGE_PYTHON"), Via: "$OPFORGE_PYTHON"}
	}
	return harness.Python{Path: "python3", Via: "PATH"}
}

// findInterpreter resolves py's Path as a command; Problem when it is not
// one.
func findInterpreter(py harness.Python, lookPath func(string) (string, error)) harness.Python {
	path, err := lookPath(py.Path)
	if err != nil {
		return harness.Python{Via: py.Via, Problem: fmt.Sprintf("no Python interpreter %q (via %s): %v", py.Path, py.Via, err)}
	}
	py.Path = path
	return py
}

// probeLine is one JSON line of doctor_probe.py (Version is the
// interpreter's on the first line, the module's on a module's).
type probeLine struct {
	Python     string            `json:"python"`
	Version    string            `json:"version"`
	Start      string            `json:"start"`
	Module     string            `json:"module"`
	Error      string            `json:"error"`
	Facts      map[string]any    `json:"facts"`
	FactErrors map[string]string `json:"fact_errors"`
}

// runProbe runs doctor_probe.py in py's interpreter on probes. On a
// timeout, the modules probed so far stay and Problem names the timeout
// and the module the probe was importing.
func runProbe(py harness.Python, probes []harness.Probe, getenv func(string) string, timeout time.Duration) harness.Python {
	py.Modules = map[string]harness.Module{}
	if py.Path == "" {
		return py
	}
	type reqProbe struct {
		Module string            `json:"module"`
		Path   []string          `json:"path,omitempty"`
		Facts  map[string]string `json:"facts,omitempty"`
	}
	var req struct {
		Probes []reqProbe `json:"probes"`
	}
	for _, p := range probes {
		rp := reqProbe{Module: p.Module, Facts: p.Facts}
		for _, e := range p.Path {
			rp.Path = append(rp.Path, filepath.SplitList(getenv(e))...)
		}
		req.Probes = append(req.Probes, rp)
	}
	in, _ := json.Marshal(req)
	dir, err := os.MkdirTemp("", "opforge-doctor-")
	if err != nil {
		py.Problem = err.Error()
		return py
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "opforge_doctor_probe.py")
	if err := os.WriteFile(script, doctorProbe, 0o644); err != nil {
		py.Problem = err.Error()
		return py
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// On the timeout the probe's whole process group goes, so nothing it
	// started lives on holding the output open (WaitDelay is the backstop).
	cmd := procgroup.Command(ctx, py.Path, script)
	cmd.WaitDelay = time.Second
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	importing := ""
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		var l probeLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		switch {
		case l.Python != "":
			py.Version = l.Version
		case l.Start != "":
			importing = l.Start
		case l.Module != "":
			importing = ""
			py.Modules[l.Module] = harness.Module{Name: l.Module, Version: l.Version, Error: l.Error, Facts: l.Facts, FactErrors: l.FactErrors}
		}
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		py.Problem = fmt.Sprintf("the probe did not finish within %s (doctor --timeout)", timeout)
		if importing != "" {
			py.Problem += "; it was importing " + importing
		}
	case runErr != nil:
		py.Problem = fmt.Sprintf("the probe failed (%v): %s", runErr, harness.LastLines(stderr.String(), 3))
	}
	return py
}
