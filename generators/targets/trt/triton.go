package trt

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

// importedKernel is the Python plugin's Triton region for an op whose
// torch implementation launches a Triton kernel (torch.triton, from
// opforge import torch): the user's kernel source, then a launcher with
// the placeholder's signature (what aot_impl compiles and TensorRT
// launches: inputs, output counts, outputs, attributes as constexprs,
// BLOCK_SIZE) that calls the user's kernel as the torch op's launch did.
type importedKernel struct {
	// PythonCode is the kernel's source as imported, helpers first: the
	// user's own Python, printed as the region's first body unescaped (it
	// is code in the language it came from; check refuses region markers
	// in it, trt-triton-launch), so it is no free text.
	PythonCode string
	Kernel     string   // the user's kernel's name
	Op         string   // the torch op, NS::NAME
	Call       []string // the call's arguments: runtime ones, then constexprs by keyword
}

// tritonKernelOf is op's imported Triton kernel, nil when it has none.
func tritonKernelOf(op *ir.Op) *ir.TritonKernel {
	if op.Torch == nil {
		return nil
	}
	return op.Torch.Triton
}

// defines matches a top-level Python function definition's name.
var defines = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`) })

// launcherName is the launcher's name: the placeholder's, unless the
// imported source defines a function of that name.
func launcherName(snake string, k *ir.TritonKernel) string {
	taken := map[string]bool{}
	for _, m := range defines().FindAllStringSubmatch(k.Source, -1) {
		taken[m[1]] = true
	}
	name := snake + "_kernel"
	for taken[name] {
		name += "_launch"
	}
	return name
}

// tritonValue is the launcher's expression for one argument of the
// user's kernel: an input or output's pointer, an output's element count,
// an attribute's constexpr, a number; the error says why there is none.
func tritonValue(op *ir.Op, v string, consts map[string]string) (string, error) {
	if inner, ok := strings.CutPrefix(v, "numel("); ok && strings.HasSuffix(inner, ")") {
		name := strings.TrimSuffix(inner, ")")
		for _, t := range op.Outputs {
			if t.Name == name {
				return "n_" + t.Ident, nil
			}
		}
		return "", fmt.Errorf("numel(%s) names no output of op %s (the launcher has the outputs' element counts)", name, op.Name)
	}
	for _, t := range op.Tensors() {
		if t.Name == v {
			return t.Ident + "_ptr", nil
		}
	}
	for _, p := range op.Params {
		if p.Name != v {
			continue
		}
		if c, ok := consts[p.Ident]; ok {
			return c, nil
		}
		return "", fmt.Errorf("param %s of op %s (%s) cannot be passed: the launcher passes int, float, bool and enum params (as its constexprs)", v, op.Name, p.Kind)
	}
	switch v {
	case "true", "True":
		return "True", nil
	case "false", "False":
		return "False", nil
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return v, nil
	}
	return "", fmt.Errorf("%q is not an input or output of op %s, numel(<output>), a param or a number", v, op.Name)
}

// tritonProblem is one argument the launcher cannot give, where it is
// written.
type tritonProblem struct {
	Pos diag.Pos
	Err error
}

// tritonCall is the launcher's call of the user's kernel: its runtime
// arguments in order, then its constexprs by keyword (the grid's block
// gets the launcher's BLOCK_SIZE, so aot_impl's grid covers what the
// kernel's blocks do). consts maps a param's identifier to the
// launcher's constexpr holding it.
func tritonCall(op *ir.Op, k *ir.TritonKernel, consts map[string]string) (call []string, problems []tritonProblem) {
	for i, a := range k.Args {
		e, err := tritonValue(op, a, consts)
		if err != nil {
			problems = append(problems, tritonProblem{posAt(k.ArgsPos, i, k.Pos), err})
		}
		call = append(call, e)
	}
	for _, c := range k.Constexprs {
		e := "BLOCK_SIZE"
		if c.Name != k.Block {
			var err error
			if e, err = tritonValue(op, c.Value, consts); err != nil {
				problems = append(problems, tritonProblem{orPos(c.Pos, k.Pos), err})
			}
		}
		call = append(call, c.Name+"="+e)
	}
	if k.Block != "" && !hasConstexpr(k, k.Block) {
		call = append(call, k.Block+"=BLOCK_SIZE")
	}
	if strings.Contains(k.Source, "opforge:begin") || strings.Contains(k.Source, "opforge:end") {
		problems = append(problems, tritonProblem{k.Pos, fmt.Errorf("the source holds a region marker (opforge:begin or opforge:end), which would end the region it lands in")})
	}
	if !hasDefinition(k) {
		problems = append(problems, tritonProblem{k.Pos, fmt.Errorf("the source defines no function %s at its top level", k.Kernel)})
	}
	return call, problems
}

func hasConstexpr(k *ir.TritonKernel, name string) bool {
	for _, c := range k.Constexprs {
		if c.Name == name {
			return true
		}
	}
	return false
}

func hasDefinition(k *ir.TritonKernel) bool {
	for _, m := range defines().FindAllStringSubmatch(k.Source, -1) {
		if m[1] == k.Kernel {
			return true
		}
	}
	return false
}

func posAt(ps []diag.Pos, i int, fallback diag.Pos) diag.Pos {
	if i < len(ps) {
		return orPos(ps[i], fallback)
	}
	return fallback
}

func orPos(p, fallback diag.Pos) diag.Pos {
	if p.Line == 0 {
		return fallback
	}
	return p
}

// paramConstexprs maps each param the launcher holds as one constexpr to
// that constexpr's name.
func paramConstexprs(consts []kernelConstexpr) map[string]string {
	m := map[string]string{}
	for _, c := range consts {
		if c.Param != "" {
			m[c.Param] = c.Name
		}
	}
	return m
}

// importKernel sets q's Triton region to op's imported kernel and its
// launcher, if it has one and the plugin is ahead of time.
func importKernel(q *qdpOp, op *ir.Op) {
	k := tritonKernelOf(op)
	if k == nil || !q.AOT {
		return
	}
	call, _ := tritonCall(op, k, paramConstexprs(q.Constexprs))
	q.Kernel = launcherName(q.Snake, k)
	q.Imported = &importedKernel{PythonCode: strings.TrimRight(k.Source, "\n"), Kernel: k.Kernel, Op: op.Torch.Op, Call: call}
}

// checkTriton reports the arguments of op's imported Triton kernel the
// launcher cannot give.
func checkTriton(op *ir.Op, d *diag.TargetList) {
	k := tritonKernelOf(op)
	if k == nil {
		return
	}
	consts, _ := kernelParams(op, nil)
	_, problems := tritonCall(op, k, paramConstexprs(consts))
	for _, p := range problems {
		d.Errorf(p.Pos, "trt-triton-launch", "op %s: the launch of Triton kernel %s: %v", op.Name, k.Kernel, p.Err)
	}
	if why := tritonWhyNot(op); why != "" && len(problems) == 0 {
		d.Warnf(k.Pos, "trt-triton-cpp", "op %s: the C++ plugin does not launch Triton kernel %s (its launch region writes zeros until you write one): %s", op.Name, k.Kernel, why)
	}
}
