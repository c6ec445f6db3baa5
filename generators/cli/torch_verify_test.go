package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// importedKernels are the kernels a user writes into the regions of ops
// imported from generators/torchimport/testdata/torchops.py: region key,
// the generated file (under out/) and the file of testdata/torchverify
// that holds the region's body.
var importedKernels = []struct{ key, file, body string }{
	{"triton:ScaledSilu", "trt/OpfTestOps/python/opf_test_ops_qdp.py", "ScaledSilu.triton.py"},
	{"helpers", "aipu/OpfTestOps/kernels/scaled_silu.cl", "scaled_silu.helpers.cl"},
	{"kernel", "aipu/OpfTestOps/kernels/scaled_silu.cl", "scaled_silu.kernel.cl"},
	{"impl", "htp/OpfTestOps/src/ops/ScaledSilu.cpp", "ScaledSilu.impl.cpp"},
	{"triton:Concat2", "trt/OpfTestOps/python/opf_test_ops_qdp.py", "Concat2.triton.py"},
	// The Triton kernel of a concat needs dims, which the AOT launch hands it.
	{"aot:Concat2", "trt/OpfTestOps/python/opf_test_ops_qdp.py", "Concat2.aot.py"},
	{"kernel", "aipu/OpfTestOps/kernels/concat2.cl", "concat2.kernel.cl"},
	{"impl", "htp/OpfTestOps/src/ops/Concat2.cpp", "Concat2.impl.cpp"},
	// A reduction whose keepdim param keeps the summed dim or removes it
	// (keep: keepdim): the kernels read the dims around the axis, the same
	// element order either way.
	{"triton:SumDim", "trt/OpfTestOps/python/opf_test_ops_qdp.py", "SumDim.triton.py"},
	{"aot:SumDim", "trt/OpfTestOps/python/opf_test_ops_qdp.py", "SumDim.aot.py"},
	{"helpers", "aipu/OpfTestOps/kernels/sum_dim.cl", "scaled_silu.helpers.cl"},
	{"kernel", "aipu/OpfTestOps/kernels/sum_dim.cl", "sum_dim.kernel.cl"},
	{"impl", "htp/OpfTestOps/src/ops/SumDim.cpp", "SumDim.impl.cpp"},
	// A data-dependent size: written with the size it found (the Triton
	// kernel into its size_K output, the HTP one by set_dims).
	{"triton:PositiveIndices", "trt/OpfTestOps/python/opf_test_ops_qdp.py", "PositiveIndices.triton.py"},
	{"impl", "htp/OpfTestOps/src/ops/PositiveIndices.cpp", "PositiveIndices.impl.cpp"},
}

// verifiedImports are the test ops whose kernels importedKernels holds,
// and the verify rows each must pass: PositiveIndices has no aipu plugin
// (Compass needs every output shape when it parses the graph).
var verifiedImports = map[string][]string{
	"ScaledSilu":      {"trt-python  kernel", "aipu-opencl kernel", "htp-host    kernel", "executorch  wiring"},
	"Concat2":         {"trt-python  kernel", "aipu-opencl kernel", "htp-host    kernel", "executorch  wiring"},
	"SumDim":          {"trt-python  kernel", "aipu-opencl kernel", "htp-host    kernel", "executorch  wiring"},
	"PositiveIndices": {"trt-python  kernel", "htp-host    kernel", "executorch  wiring"},
}

// TestImportTorchVerifies follows the README's "From PyTorch" path: import
// torch on the test module's ops (elementwise at any rank, a reduction
// whose keepdim decides the output's rank, a concat along an axis param, a
// data-dependent size), gen, the kernels written into their
// regions, and verify on every target a CPU runs, whose reference is the
// original torch op: each kernel must run in its engine (Triton's
// interpreter, PoCL, the HTP host harness) and pass, and the ExecuTorch
// registration (the imported op itself) must pass its wiring checks.
func TestImportTorchVerifies(t *testing.T) {
	python := os.Getenv("OPFORGE_PYTHON")
	if python == "" {
		t.Skip("OPFORGE_PYTHON is not set: import torch and verify need a Python with torch, triton and pyopencl (`go tool mage test` sets it up)")
	}
	if err := exec.Command(python, "-c", "import torch, triton, pyopencl; pyopencl.get_platforms()").Run(); err != nil {
		t.Skipf("%s lacks torch, triton or an OpenCL platform (%v): `go tool mage test` installs them", python, err)
	}
	dir := t.TempDir()
	module := filepath.Join(dir, "torchops.py")
	src, err := os.ReadFile("../torchimport/testdata/torchops.py")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(module, src, 0o644); err != nil {
		t.Fatal(err)
	}
	opdefs, outDir := filepath.Join(dir, "opdefs"), filepath.Join(dir, "out")
	opdef := filepath.Join(opdefs, "opftestops", "opftestops.yaml")
	if code, out, errs := run("import", "torch", "--python", python, "--module", module, "--op", "opf_test::scaled_silu,opf_test::sum_dim,opf_test::concat2,opf_test::positive_indices", "-o", opdef); code != 0 {
		t.Fatalf("import torch: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run("gen", "--opdefs", opdefs, "--out", outDir); code != 0 {
		t.Fatalf("gen: %s%s", out, errs)
	}
	for _, k := range importedKernels {
		body, err := os.ReadFile(filepath.Join("testdata", "torchverify", k.body))
		if err != nil {
			t.Fatal(err)
		}
		fillRegion(t, filepath.Join(outDir, k.file), k.key, string(body))
	}
	code, out, errs := run("verify", "--opdefs", opdefs, "--out", outDir, "--python", python,
		"--target", "trt-python,aipu-opencl,htp-host,executorch", "--format", "text")
	report := out + errs
	if code != 0 {
		t.Fatalf("verify of the imported op: exit %d\n%s", code, report)
	}
	for op, rows := range verifiedImports {
		for _, row := range rows {
			if !regexp.MustCompile(`OpfTestOps/` + op + `\s+` + regexp.QuoteMeta(row) + `\s+[1-9]\d*\s+0\s`).MatchString(report) {
				t.Errorf("verify ran no passing %q cases of %s:\n%s", row, op, report)
			}
		}
	}
	if !strings.Contains(report, " 0 failed") {
		t.Errorf("verify reports failures:\n%s", report)
	}
}
