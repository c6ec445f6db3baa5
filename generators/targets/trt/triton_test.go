package trt

import (
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/ir"
)

// TestTritonLauncher: the launcher's call of an imported kernel maps
// tensors to their pointers, numel(<output>) to the output's count, a
// param to its constexpr, the grid's block to BLOCK_SIZE and numbers to
// themselves; its name never takes one the source defines.
func TestTritonLauncher(t *testing.T) {
	op := &ir.Op{
		Name:    "Axpy",
		Inputs:  []*ir.Tensor{{Name: "x", Ident: "x"}, {Name: "y", Ident: "y"}},
		Outputs: []*ir.Tensor{{Name: "out", Ident: "out"}},
		Params:  []*ir.Param{{Name: "alpha", Ident: "alpha", Kind: ir.ParamScalar, DTypes: []ir.DType{ir.Float32}}},
	}
	consts, _ := kernelParams(op, nil)
	cases := []struct {
		name       string
		kernel     *ir.TritonKernel
		call       []string
		launcher   string
		problemHas string // "" none
	}{
		{"every kind", &ir.TritonKernel{Kernel: "axpy_kernel", Source: "@triton.jit\ndef axpy_kernel(a, b, c, d, e, f, BLOCK: tl.constexpr, FLAG: tl.constexpr):\n    pass\n",
			Args: []string{"x", "y", "out", "alpha", "numel(out)", "0.5"}, Block: "BLOCK",
			Constexprs: []ir.TritonConstexpr{{Name: "BLOCK", Value: "16"}, {Name: "FLAG", Value: "true"}}},
			[]string{"x_ptr", "y_ptr", "out_ptr", "ALPHA", "n_out", "0.5", "BLOCK=BLOCK_SIZE", "FLAG=True"}, "axpy_kernel_launch", ""},
		{"block not among the constexprs", &ir.TritonKernel{Kernel: "k", Source: "def k(a, B: tl.constexpr):\n    pass\n", Args: []string{"x"}, Block: "B"},
			[]string{"x_ptr", "B=BLOCK_SIZE"}, "axpy_kernel", ""},
		{"an input's count", &ir.TritonKernel{Kernel: "k", Source: "def k(a):\n    pass\n", Args: []string{"numel(x)"}},
			nil, "axpy_kernel", "numel(x) names no output"},
		{"no such kernel", &ir.TritonKernel{Kernel: "k", Source: "def other(a):\n    pass\n", Args: []string{"x"}},
			nil, "axpy_kernel", "defines no function k"},
		{"a region marker", &ir.TritonKernel{Kernel: "k", Source: "def k(a):\n    # opforge:end triton:Axpy\n    pass\n", Args: []string{"x"}},
			nil, "axpy_kernel", "region marker"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			call, problems := tritonCall(op, c.kernel, paramConstexprs(consts))
			if c.problemHas == "" {
				if len(problems) > 0 || !slices.Equal(call, c.call) {
					t.Errorf("call %q problems %v; want %q", call, problems, c.call)
				}
			} else if !slices.ContainsFunc(problems, func(p tritonProblem) bool { return strings.Contains(p.Err.Error(), c.problemHas) }) {
				t.Errorf("problems %v; want one saying %q", problems, c.problemHas)
			}
			if got := launcherName("axpy", c.kernel); got != c.launcher {
				t.Errorf("launcher %q; want %q", got, c.launcher)
			}
		})
	}
}
