package aipu

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/regions"
)

// verifyModule holds the runner script's classes of the aipu runners.
//
//go:embed runners/aipu_verify.py
var verifyModule []byte

// Verifiers are the aipu target's verify runners: the OPT plugin's float
// forward in the Compass Optimizer (aipu), its quantized forward
// (aipu-quant), and the OpenCL kernel on the CPU through PoCL
// (aipu-opencl).
func (Target) Verifiers() []harness.Runner {
	return []harness.Runner{optRunner{name: "aipu", class: "AIPU"}, optRunner{name: "aipu-quant", class: "AIPUQuantized"}, openclRunner{}}
}

// optRunner runs the package's OPT plugins in a Compass_Optimizer
// checkout, with class (of runners/aipu_verify.py): AIPU (the float
// forward) or AIPUQuantized.
type optRunner struct{ name, class string }

func (r optRunner) Name() string { return r.name }

func (r optRunner) Implementation() harness.Implementation {
	return harness.Implementation{File: "aipu_verify.py", Source: verifyModule, Class: r.class}
}

func (optRunner) Runnable(o harness.Options, _ *ir.Package, op *ir.Op) (string, bool) {
	if OpOptions(op) == nil {
		return "", false
	}
	if compassDir() == "" {
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
	return "", true
}

// OpFields give the op's Compass IR layer_type.
func (optRunner) OpFields(_ *ir.Package, op *ir.Op) map[string]any {
	lt := op.Name
	if a := OpOptions(op); a != nil && a.LayerType != "" {
		lt = a.LayerType
	}
	return map[string]any{"layer_type": lt}
}

// DTypeName spells case dtypes as the Compass IR does.
func (optRunner) DTypeName(d ir.DType) string { return CompassDType(d) }

func (optRunner) Prepare(o harness.Options, pkg *ir.Package, _ string) harness.Prepared {
	return harness.Prepared{Env: []string{"AIPUPLUGIN_PATH=" + filepath.Join(o.Out, "aipu", pkg.Name, "opt"), "COMPASS_OPTIMIZER_DIR=" + compassDir()}}
}

// compassDir is the Compass_Optimizer checkout the OPT runner imports.
func compassDir() string { return os.Getenv("COMPASS_OPTIMIZER_DIR") }

// openclRunner runs the op's Compass OpenCL kernel, the code the user
// wrote in out/aipu/<Package>/kernels/<op>.cl, on an OpenCL CPU device
// (PoCL) through pyopencl, with the arguments the GBuilder plugin passes.
type openclRunner struct{ openCLDoctor }

func (openclRunner) Name() string { return "aipu-opencl" }

func (openclRunner) Implementation() harness.Implementation {
	return harness.Implementation{File: "aipu_verify.py", Source: verifyModule, Class: "AIPUOpenCL"}
}

// Runnable applies to every op generated for aipu. It cannot run an op
// whose kernel source is missing or still the generated placeholder, nor
// one with tensor params (verify's cases make no constants for them).
func (openclRunner) Runnable(o harness.Options, pkg *ir.Package, op *ir.Op) (string, bool) {
	if OpOptions(op) == nil {
		return "", false
	}
	if slices.ContainsFunc(op.Params, func(p *ir.Param) bool { return p.Kind == ir.ParamTensor }) {
		return "verify does not run AIPU ops with tensor params yet", true
	}
	src := filepath.Join(o.Out, "aipu", filepath.FromSlash(kernelSource(pkg, op)))
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Sprintf("no kernel source %s (run opforge gen)", filepath.ToSlash(src)), true
	}
	if pristineKernel(pkg, op, string(data)) {
		return fmt.Sprintf("no OpenCL kernel written: region kernel of %s holds the generated placeholder", filepath.ToSlash(src)), true
	}
	return "", true
}

// kernelSource is op's kernel below out/aipu/: <Package>/kernels/<op>.cl.
func kernelSource(pkg *ir.Package, op *ir.Op) string {
	return pkg.Name + "/" + KernelDir + "/" + stem(op) + ".cl"
}

// pristineKernel reports whether the kernel region of data, op's kernel
// source, still holds the body the generator writes there.
func pristineKernel(pkg *ir.Package, op *ir.Op, data string) bool {
	m := newOpModel(newPackageFacts(pkg, KnownTargets), op)
	fresh, err := tmpl.Execute("kernel.cl.tmpl", m.kernel)
	if err != nil {
		return false
	}
	defaults, err := regions.Defaults(string(fresh))
	if err != nil {
		return false
	}
	rs, err := regions.Parse(data)
	if err != nil {
		return false
	}
	for _, r := range rs {
		if r.Key == "kernel" {
			return regions.Pristine(r, defaults)
		}
	}
	return false
}

// Prepare gives the runner the generated tree's aipu directory, below
// which kernel sources lie.
func (openclRunner) Prepare(o harness.Options, pkg *ir.Package, _ string) harness.Prepared {
	dir, err := filepath.Abs(filepath.Join(o.Out, "aipu"))
	if err != nil {
		return harness.Prepared{Err: err.Error()}
	}
	return harness.Prepared{Impl: map[string]string{"aipu_dir": dir}}
}

// OpFields give the kernel under "opencl": its source (below the aipu
// directory), its variants and its arguments, from the model that
// generates the kernel's parameter list and the GBuilder plugin's
// generate_params, so they cannot disagree.
func (openclRunner) OpFields(pkg *ir.Package, op *ir.Op) map[string]any {
	k := newKernelModel(names.Snake(pkg.Name), op, dimSymbols(op))
	args := make([]argSource, len(k.Args))
	half := false
	for i, a := range k.Args {
		args[i] = a.src
		half = half || a.src.Type == "half"
	}
	variants := make([]oclVariant, len(k.Variants))
	for i, v := range k.Variants {
		variants[i] = k.oclVariant(op, v, half)
	}
	return map[string]any{"opencl": map[string]any{"source": kernelSource(pkg, op), "variants": variants, "args": args}}
}

// oclVariant is a kernel variant as verify's OpenCL runner picks it: the
// torch dtypes each input and output may have in it (a case runs the
// variant whose lists hold its tensors' dtypes), and whether it needs
// cl_khr_fp16.
type oclVariant struct {
	Entry   string     `json:"entry"`
	Defines []string   `json:"defines"`
	Inputs  [][]string `json:"inputs"`
	Outputs [][]string `json:"outputs"`
	FP16    bool       `json:"fp16"`
}

// oclVariant describes v; half says a scalar argument is half.
func (k *kernelModel) oclVariant(op *ir.Op, v variant, half bool) oclVariant {
	ov := oclVariant{Entry: v.Entry, Defines: v.Defines, FP16: half}
	torch := func(t *ir.Tensor) []string {
		d, ok := k.fixed[t]
		if i, inAxis := k.axisOf[t]; inAxis {
			d, ok = v.dtypes[i], true
		}
		if !ok {
			return []string{}
		}
		ov.FP16 = ov.FP16 || d == ir.Float16
		// Every dtype of the tensor's that Compass spells as d's.
		out := []string{}
		for _, a := range op.AllowedDTypes(t) {
			if info := a.Info(); info != nil && info.Torch != "" && compassName(a) == compassName(d) && !slices.Contains(out, info.Torch) {
				out = append(out, info.Torch)
			}
		}
		return out
	}
	for _, t := range op.Inputs {
		ov.Inputs = append(ov.Inputs, torch(t))
	}
	for _, t := range op.Outputs {
		ov.Outputs = append(ov.Outputs, torch(t))
	}
	return ov
}
