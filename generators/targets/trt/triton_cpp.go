package trt

import (
	"strings"

	"github.com/opforge/opforge/generators/ir"
)

// The C++ plugin launches an imported Triton kernel too: opforge build
// compiles the Python plugin's triton:<Op> region (the imported kernel and
// its launcher) ahead of time into cubin, one per CUDA architecture and
// dtype combination (<Op>Triton.py writes them into <Op>Triton.h), and
// the default launch region of <Op>Kernel.cu loads the one for the
// device through the CUDA driver API and launches it as aot_impl's launch
// parameters say. One kernel, edited in one region, serves both plugins.

// tritonCppModel is what <Op>Kernel.cu and <Op>Triton.py need to launch
// the op's Triton launcher from C++.
type tritonCppModel struct {
	Launcher string // the Python launcher's name in the region
	Header   string // <Op>Triton.h, which the build writes
	Module   string // the Python plugin's file name, in ../../python/
	// Inputs and Outputs are the launcher's tensors (identifiers); its
	// parameters are the inputs' pointers, the outputs' element counts
	// (int32), the outputs' pointers, then BLOCK_SIZE.
	Inputs, Outputs []string
	// Signatures are each dtype combination's Triton pointer types
	// (inputs, then outputs), in the C++ launchers' order, as Python
	// string literals.
	Signatures [][]string
	Block      int // BLOCK_SIZE, as aot_impl compiles it
}

// tritonPointers are the Triton pointer types of the dtypes the Python
// plugin's _TRITON_POINTERS maps, so both compile the same signatures.
var tritonPointers = map[ir.DType]string{
	ir.Float32: "*fp32", ir.Float16: "*fp16", ir.BFloat16: "*bf16", ir.Int8: "*i8",
	ir.Int32: "*i32", ir.Int64: "*i64", ir.Bool: "*i1", ir.Uint8: "*u8",
}

// launchesTriton reports whether op's C++ plugin launches its imported
// Triton kernel: it has one, the Python plugin compiling it ahead of time
// holds it, and the launcher's signature is what C++ can give at run
// time. Params are tl.constexprs of the launcher, compiled into the
// kernel, so an op with params (whose values only the plugin's instance
// knows) keeps the CUDA default; so do optional inputs (a null pointer
// of a dtype the launcher's signature does not fix) and data-dependent
// outputs (the size tensors the launcher does not take).
func launchesTriton(op *ir.Op) bool {
	k := tritonKernelOf(op)
	if k == nil || len(op.Inputs) == 0 || len(op.Params) > 0 || len(op.DataDependent) > 0 {
		return false
	}
	if q := OpOptions(op).QDP; q == nil || q.Impl != "aot" {
		return false
	}
	for _, in := range op.Inputs {
		if in.Optional {
			return false
		}
	}
	_, problems := tritonCall(op, k, nil)
	return len(problems) == 0
}

// tritonWhyNot says why op, which has an imported Triton kernel, keeps
// the CUDA default in its C++ plugin ("" when it launches the kernel or
// has none).
func tritonWhyNot(op *ir.Op) string {
	if tritonKernelOf(op) == nil || launchesTriton(op) {
		return ""
	}
	switch q := OpOptions(op).QDP; {
	case q == nil || q.Impl != "aot":
		return "its Python plugin does not compile the kernel ahead of time (targets.trt.qdp), and the C++ plugin compiles the Python plugin's triton region"
	case len(op.Params) > 0:
		return "its params are constexprs of the kernel's launcher, compiled into the kernel, and a C++ plugin knows them only at run time"
	case len(op.DataDependent) > 0:
		return "its outputs have data-dependent sizes, which the launcher does not report"
	case len(op.Inputs) == 0:
		return "it has no inputs"
	}
	return "it has optional inputs, whose dtypes the launcher's signature cannot fix"
}

// newTritonCpp is op's tritonCppModel, nil when its C++ plugin keeps the
// CUDA default.
func newTritonCpp(pkg string, op *ir.Op, l *ioLayout, launcher string) *tritonCppModel {
	if !launchesTriton(op) {
		return nil
	}
	m := &tritonCppModel{Launcher: launcher, Header: op.Name + "Triton.h", Module: pkg + ".py", Block: 256}
	for _, t := range l.Inputs {
		m.Inputs = append(m.Inputs, t.Ident)
	}
	for _, t := range l.Outputs {
		m.Outputs = append(m.Outputs, t.Ident)
	}
	for _, c := range l.Combos() {
		sig := make([]string, len(c.DTypes))
		for i, dt := range c.DTypes {
			sig[i] = `"` + tritonPointers[dt] + `"`
		}
		m.Signatures = append(m.Signatures, sig)
	}
	return m
}

// tritonScriptPath is where op's cubin compile script lies in its package.
func tritonScriptPath(op string) string { return opPath(op, "Triton.py") }

// isTritonScript reports whether a file of a package's src/ops is a
// cubin compile script, and the header it writes.
func isTritonScript(path string) (header string, ok bool) {
	base, ok := strings.CutSuffix(path, "Triton.py")
	return base + "Triton.h", ok
}
