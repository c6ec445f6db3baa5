package trt_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/gen"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/verify"
	"github.com/opforge/opforge/generators/verify/verifytest"
	"github.com/opforge/opforge/generators/writer"
)

// The TensorRT tests run testdata/verify/trt's AffineOps: one elementwise op
// per Python plugin implementation (AOT and JIT), generated afresh into a
// temporary tree whose regions the tests fill.
const affineOpDefs = "../../../testdata/verify/trt/opdefs"

const affineReference = "    y = x.float() * alpha + offset\n    return (-y if negate else y).to(x.dtype)"

// affineCUDA fills a C++ plugin's kernels and launch regions; plus is added
// to every output (0 for the right kernel).
func affineCUDA(name, plus string) (kernels, launch string) {
	kernels = `template <typename T>
__global__ void ` + name + `Kernel(T const* x, T* y, int64_t n, float alpha, int32_t offset, bool negate)
{
    int64_t const stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    {
        float const v = static_cast<float>(x[i]) * alpha + static_cast<float>(offset);
        y[i] = static_cast<T>((negate ? -v : v) + ` + plus + `);
    }
}`
	launch = `    (void) workspace;
    constexpr int32_t kBlock = 256;
    ` + name + `Kernel<<<gridSize(io.y.numel(), kBlock), kBlock, 0, stream>>>(io.x.data, io.y.data, io.y.numel(), params.alpha, params.offset, params.negate);
    return cudaGetLastError();`
	return kernels, launch
}

// affineTriton fills the AOT plugin's Triton kernel (the placeholder's
// arguments, the attributes as constexprs).
func affineTriton(plus string) string {
	return `@triton.jit
def affine_aot_kernel(x_ptr, n_y, y_ptr, ALPHA: tl.constexpr, OFFSET: tl.constexpr, NEGATE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_y
    v = tl.load(x_ptr + offsets, mask=mask).to(tl.float32) * ALPHA + OFFSET
    if NEGATE:
        v = -v
    tl.store(y_ptr + offsets, (v + ` + plus + `).to(y_ptr.dtype.element_ty), mask=mask)`
}

// positivesKernel writes the indices of x's positive elements in order, and
// their count to the size tensor (one thread: the order is the reference's).
const positivesKernel = `__global__ void positivesKernel(float const* x, int64_t n, int32_t* idx, int32_t* count)
{
    int32_t k = 0;
    for (int64_t i = 0; i < n; ++i)
    {
        if (x[i] > 0.0f)
        {
            idx[k++] = static_cast<int32_t>(i);
        }
    }
    *count = k;
}`

// affineWorkspace generates AffineOps into a temporary tree and fills the
// reference, both C++ kernels and the Triton kernel (plus added to every
// output of the kernels).
func affineWorkspace(t *testing.T, plus string) verify.Options {
	t.Helper()
	root := t.TempDir()
	opdefs, out := filepath.Join(root, "opdefs"), filepath.Join(root, "out")
	verifytest.CopyTree(t, affineOpDefs, opdefs)
	var l diag.List
	plan := gen.Plan(gen.Options{OpDefs: opdefs, Toolchains: filepath.Join(root, "toolchains"), Out: out}, &l)
	if l.HasErrors() || plan == nil {
		t.Fatal(l.Sorted())
	}
	if _, err := writer.Apply(plan); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(out, "reference/AffineOps/affine_ops_reference.py")
	for _, op := range []string{"AffineAot", "AffineJit"} {
		verifytest.FillRegion(t, ref, "reference:"+op, affineReference)
		k, launch := affineCUDA(strings.ToLower(op[:1])+op[1:], plus)
		cu := filepath.Join(out, "trt/AffineOps/src/ops", op+"Kernel.cu")
		verifytest.FillRegion(t, cu, "kernels", k)
		verifytest.FillRegion(t, cu, "launch", launch)
	}
	verifytest.FillRegion(t, filepath.Join(out, "trt/AffineOps/python/affine_ops_qdp.py"), "triton:AffineAot", affineTriton(plus))
	// Positives: a data-dependent output and its size tensor.
	verifytest.FillRegion(t, ref, "reference:Positives", "    return torch.nonzero(x > 0).flatten().to(torch.int32)")
	cu := filepath.Join(out, "trt/AffineOps/src/ops/PositivesKernel.cu")
	verifytest.FillRegion(t, cu, "kernels", positivesKernel)
	verifytest.FillRegion(t, cu, "launch", `    (void) params;
    (void) workspace;
    positivesKernel<<<1, 1, 0, stream>>>(io.x.data, io.x.numel(), io.idx.data, io.size_K.data);
    return cudaGetLastError();`)
	return verify.Options{OpDefs: opdefs, Out: out, Build: filepath.Join(root, "build"), Targets: []string{"trt", "trt-python"}, Runners: registry.Verifiers(),
		Python: os.Getenv("OPFORGE_PYTHON")}
}

func report(rs []verify.Result) string {
	var buf bytes.Buffer
	verify.WriteText(&buf, rs)
	return buf.String()
}

// TestVerifyTRTWithoutGPU: with no TensorRT headers, no tensorrt.plugin
// and no GPU, the C++ plugins are a skip that names the missing piece; the
// AOT Python plugin's Triton kernel runs in Triton's interpreter on the CPU
// with aot_impl's launch and passes as a kernel check, and the JIT plugin
// (which runs on a GPU only) is a skip. A bug planted only in the Triton
// kernel fails it, naming the op.
func TestVerifyTRTWithoutGPU(t *testing.T) {
	verifytest.NeedPython(t)
	needTriton(t)
	t.Setenv("TENSORRT_INCLUDE_DIR", filepath.Join(t.TempDir(), "no-tensorrt"))
	t.Setenv("OPFORGE_TRT_CORE", "")
	t.Setenv("CUDA_VISIBLE_DEVICES", "") // the CPU route even on a GPU machine
	o := affineWorkspace(t, "0")
	var l diag.List
	rs := verify.Run(o, &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	out := report(rs)
	if verify.Failed(rs) {
		t.Fatalf("want passes and skips:\n%s", out)
	}
	for _, r := range rs {
		aot := r.Op == "AffineAot" && r.Target == "trt-python"
		switch {
		case aot && (r.Status != verify.Pass || r.Check != verify.Kernel || !strings.Contains(r.Engine, "interpreter (CPU)")):
			t.Errorf("%s %s [%s]: %s %s %q %q; want a kernel check passed in Triton's interpreter", r.Op, r.Target, r.Case, r.Status, r.Reason, r.Check, r.Engine)
		case !aot && (r.Status != verify.Skip || r.Reason == ""):
			t.Errorf("%s %s [%s]: %s %q; want a skip with its reason", r.Op, r.Target, r.Case, r.Status, r.Reason)
		}
	}
	for _, want := range []string{"SKIP AffineOps/AffineAot trt [-]: no NVIDIA GPU", "SKIP AffineOps/AffineJit trt-python [base]: a JIT plugin (trtp.impl) runs its implementation on a GPU only"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	broken := affineWorkspace(t, "0.5")
	rs = verify.Run(broken, &l)
	out = report(rs)
	if !verify.Failed(rs) || !strings.Contains(out, "FAIL AffineOps/AffineAot trt-python [base] max_abs=0.5") {
		t.Errorf("a Triton kernel off by 0.5 must fail on the CPU:\n%s", out)
	}
}

// needTriton skips the test when OPFORGE_PYTHON has no triton.
func needTriton(t *testing.T) {
	t.Helper()
	if err := exec.Command(os.Getenv("OPFORGE_PYTHON"), "-c", "import triton").Run(); err != nil {
		t.Skipf("%s cannot import triton (pip install triton): %v", os.Getenv("OPFORGE_PYTHON"), err)
	}
}

// needTRTGPU skips the test, with the reason, when verify's results rs
// on the TensorRT targets ran no case of the C++ plugins (no headers, no
// nvcc, no GPU, no TensorRT runtime).
func needTRTGPU(t *testing.T, rs []verify.Result) {
	t.Helper()
	if os.Getenv("TENSORRT_INCLUDE_DIR") == "" {
		t.Skip("TENSORRT_INCLUDE_DIR is not set (TensorRT >= 10 headers); the TensorRT runners are not run")
	}
	// The C++ plugin library runs on a GPU only. Without one, the Python
	// plugin's AOT kernel still runs, in Triton's CPU interpreter: that
	// is not the run this test is about, and its JIT plugin skips.
	for _, r := range rs {
		if r.Target == "trt" && r.Status != verify.Skip {
			return
		}
	}
	t.Skipf("the C++ TensorRT plugins ran no case (they need a GPU and TensorRT's runtime):\n%s", report(rs))
}

// TestVerifyTRTOnGPU runs AffineOps on a GPU: the C++ plugin library
// loaded as TensorRT loads it, the AOT plugin's Triton kernel launched
// from aot_impl's PTX, and the JIT implementation; every case passes.
// Then kernels off by 0.5 fail, naming the op, the case and the error,
// on each runner.
func TestVerifyTRTOnGPU(t *testing.T) {
	verifytest.NeedPython(t)
	o := affineWorkspace(t, "0")
	var l diag.List
	rs := verify.Run(o, &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	needTRTGPU(t, rs)
	t.Log(report(rs))
	for _, r := range rs {
		if r.Status != verify.Pass {
			t.Errorf("%s %s [%s]: %s %s", r.Op, r.Target, r.Case, r.Status, r.Reason)
		}
	}
	for _, want := range []string{"PASS AffineOps/AffineAot trt [base]", "PASS AffineOps/AffineJit trt [base]",
		"PASS AffineOps/AffineAot trt-python [base]", "PASS AffineOps/AffineJit trt-python [base]",
		"PASS AffineOps/Positives trt [base]", "PASS AffineOps/Positives trt [N=1]"} {
		if !strings.Contains(report(rs), want) {
			t.Errorf("no %q:\n%s", want, report(rs))
		}
	}

	broken := affineWorkspace(t, "0.5f")
	verifytest.FillRegion(t, filepath.Join(broken.Out, "trt/AffineOps/python/affine_ops_qdp.py"), "triton:AffineAot", affineTriton("0.5"))
	rs = verify.Run(broken, &l)
	out := report(rs)
	t.Log(out)
	if !verify.Failed(rs) {
		t.Fatalf("kernels off by 0.5 passed verify:\n%s", out)
	}
	for _, want := range []string{
		"FAIL AffineOps/AffineAot trt [base] max_abs=0.5", "FAIL AffineOps/AffineJit trt [T=float16]",
		"FAIL AffineOps/AffineAot trt-python [base] max_abs=0.5", "output y differs beyond rtol=0.0001 atol=1e-05",
		// The JIT implementation runs the reference: it still passes.
		"PASS AffineOps/AffineJit trt-python [base]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
}
