// Package torchimport turns ops registered with torch.library into an
// opdef (opforge import torch): an embedded Python script asks torch for
// each op's schema, the dtypes its fake kernel takes and its output shapes
// under torch's symbolic shapes, and this package writes them as an
// ir.Package, with warnings for what the user must confirm.
package torchimport

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/opforge/opforge/generators/harness"
)

//go:embed inspect_ops.py
var inspectScript []byte

// tritonScript is the module inspect_ops.py imports to read an op's
// Triton kernel and launch (written beside it).
//
//go:embed inspect_triton.py
var tritonScript []byte

// Python is the interpreter import torch runs: the rule opforge verify
// follows (harness.Interpreter).
func Python(flag string) string { return harness.Interpreter(flag) }

// Timeout bounds one run of the inspector: importing torch and probing
// every dtype and rank of a few ops takes seconds, a hung kernel forever.
const Timeout = 5 * time.Minute

// Report is what the inspector says of the requested ops.
type Report struct {
	Ops    []OpReport `json:"ops"`
	Torch  string     `json:"torch"`
	Error  string     `json:"error"`
	File   string     `json:"file"`
	Shapes []json.RawMessage
}

// OpReport is one op: its schema and what its fake kernel showed.
type OpReport struct {
	Op          string         `json:"op"`
	Schema      string         `json:"schema"`
	Args        []Arg          `json:"args"`
	Error       string         `json:"error"`
	DTypes      []string       `json:"dtypes"`
	DTypeSource string         `json:"dtype_source"`
	Inputs      []InputReport  `json:"inputs"`
	Outputs     []OutputReport `json:"outputs"`
	Notes       []string       `json:"notes"`
	Ranks       []int          `json:"ranks"`
	// Triton is the Triton kernel the op launches, nil when none.
	Triton *TritonReport `json:"triton"`
}

// Arg is one schema argument.
type Arg struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	Kind       string `json:"kind"` // tensor, int, float, bool, str, list, unsupported
	Elem       string `json:"elem"` // a list's element kind
	N          *int   `json:"n"`    // a list's fixed length
	Optional   bool   `json:"optional"`
	HasDefault bool   `json:"has_default"`
	Default    any    `json:"default"`
	KwargOnly  bool   `json:"kwarg_only"`
}

// InputReport is a tensor input: a rank range, or its dims.
type InputReport struct {
	Name     string   `json:"name"`
	Optional bool     `json:"optional"`
	Rank     []int    `json:"rank"`
	Dims     []string `json:"dims"`
	Absent   bool     `json:"absent"`
}

// OutputReport is an output's dtype and shape.
type OutputReport struct {
	Name    string  `json:"name"`
	DType   string  `json:"dtype"` // "T": the inputs' dtype
	Like    string  `json:"like"`
	Axis    string  `json:"axis"`
	Mode    string  `json:"mode"`
	Replace *string `json:"replace"`
	// Keep names the bool param that keeps the axis dim as 1 when true
	// and removes it when false (keepdim); "" for none.
	Keep          string          `json:"keep"`
	Dims          []string        `json:"dims"`
	DataDependent []DataDependent `json:"data_dependent"`
	Unknown       []string        `json:"unknown"`
	Confirm       string          `json:"confirm"`
	FixedRankNote string          `json:"fixed_rank_note"`
}

// DataDependent is an output size torch knows only after the kernel ran
// (an unbacked symbol).
type DataDependent struct {
	Name  string `json:"name"`
	Sympy string `json:"sympy"`
}

// Inspect runs the inspector on module's ops under python.
func Inspect(python, module string, ops, dtypes []string) (*Report, error) {
	var rep Report
	err := run(python, map[string]any{"module": module, "ops": ops, "dtypes": dtypes}, &rep)
	if err != nil {
		return nil, err
	}
	if rep.Error != "" {
		return nil, fmt.Errorf("%s", rep.Error)
	}
	return &rep, nil
}

// ExportedOps are the custom ops (outside torch's aten and prims) that
// the torch.export'ed program in file (a .pt2 of torch.export.save)
// calls, NS::NAME in the order of their first call. The program names its
// ops only: module, imported first, must register them.
func ExportedOps(python, module, file string) ([]string, error) {
	var rep struct {
		Ops   []string `json:"ops"`
		Error string   `json:"error"`
	}
	if err := run(python, map[string]any{"module": module, "exported": file}, &rep); err != nil {
		return nil, err
	}
	if rep.Error != "" {
		return nil, fmt.Errorf("%s", rep.Error)
	}
	return rep.Ops, nil
}

// ShapeCheck is one request for the fake kernel's output shapes on
// concrete input shapes (nil: an absent optional input).
type ShapeCheck struct {
	Op     string             `json:"op"`
	Inputs map[string][]int64 `json:"inputs"`
	Params map[string]any     `json:"params,omitempty"`
	DType  string             `json:"dtype,omitempty"`
}

// FakeShapes runs the fake kernel of each check's op on its concrete
// shapes and returns each call's output shapes, or the error text.
func FakeShapes(python, module string, checks []ShapeCheck) ([]json.RawMessage, error) {
	var rep struct {
		Shapes []json.RawMessage `json:"shapes"`
		Error  string            `json:"error"`
	}
	if err := run(python, map[string]any{"module": module, "check": checks}, &rep); err != nil {
		return nil, err
	}
	if rep.Error != "" {
		return nil, fmt.Errorf("%s", rep.Error)
	}
	return rep.Shapes, nil
}

func run(python string, req any, into any) error {
	dir, err := os.MkdirTemp("", "opforge-torch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "inspect_ops.py")
	if err := os.WriteFile(script, inspectScript, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "inspect_triton.py"), tritonScript, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "triton_interpret.py"), harness.TritonInterpret, 0o644); err != nil {
		return err
	}
	in, err := json.Marshal(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, script)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	if _, set := os.LookupEnv("TRITON_INTERPRET"); !set {
		// The inspector runs ops on CPU tensors, where a Triton kernel
		// (triton_op, wrap_triton) runs only in Triton's interpreter, which
		// is chosen when the module's @triton.jit runs.
		cmd.Env = append(cmd.Env, "TRITON_INTERPRET=1")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s did not finish in %s", python, Timeout)
		}
		return fmt.Errorf("%s %v: %s (set OPFORGE_PYTHON or --python to a Python with torch)", python, err, lastLines(stderr.String(), 3))
	}
	if err := json.Unmarshal(stdout.Bytes(), into); err != nil {
		return fmt.Errorf("%s printed no report (%v): %s", python, err, lastLines(stderr.String(), 3))
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
