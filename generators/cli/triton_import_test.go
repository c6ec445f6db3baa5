package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTritonKernelBroughtAlong imports ops written with
// torch.library.triton_op (a kernel with a @triton.jit helper, an input's
// element count, a float param, another grid block name), generates the
// TensorRT Python plugins, and verifies them in Triton's interpreter
// against the torch ops themselves: the region must run the user's own
// kernel (a planted bug in the region's copy fails verify).
func TestTritonKernelBroughtAlong(t *testing.T) {
	python := os.Getenv("OPFORGE_PYTHON")
	if python == "" {
		t.Skip("OPFORGE_PYTHON is not set: import torch and verify need a Python with torch and triton (`go tool mage test` sets it up)")
	}
	if err := exec.Command(python, "-c", "import torch, triton; from torch.library import triton_op, wrap_triton").Run(); err != nil {
		t.Skipf("%s lacks torch (with torch.library.triton_op) or triton: %v", python, err)
	}
	dir := t.TempDir()
	if code, out, errs := run("init", dir); code != 0 {
		t.Fatalf("init: %s%s", out, errs)
	}
	module := filepath.Join(dir, "tritonops.py")
	if err := copyFile("../torchimport/testdata/tritonops.py", module); err != nil {
		t.Fatal(err)
	}
	opdefs, outDir := filepath.Join(dir, "opdefs"), filepath.Join(dir, "out")
	opdef := filepath.Join(opdefs, "tritonops", "tritonops.yaml")
	code, out, errs := run("import", "torch", "--module", module, "--op", "opf_triton::tadd,opf_triton::axpy",
		"--targets", "trt", "--dtypes", "float32,float16", "--python", python, "-o", opdef)
	if code != 0 {
		t.Fatalf("import torch: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run("gen", "--opdefs", opdefs, "--out", outDir); code != 0 {
		t.Fatalf("gen: %s%s", out, errs)
	}
	plugin := filepath.Join(outDir, "trt", "OpfTritonOps", "python", "opf_triton_ops_qdp.py")
	text := readFile(t, plugin)
	for _, want := range []string{"def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):",
		"def _scale(v, alpha):", "add_kernel(x_ptr, y_ptr, out_ptr, n_out, BLOCK_SIZE=BLOCK_SIZE)",
		"axpy_kernel(x_ptr, y_ptr, out_ptr, ALPHA, n_out, BLOCK=BLOCK_SIZE)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the Python plugin's Triton regions lack %q:\n%s", want, text)
		}
	}
	verify := func() (int, string) {
		code, out, errs := run("verify", "--opdefs", opdefs, "--out", outDir, "--python", python, "--target", "trt-python", "--format", "text")
		return code, out + errs
	}
	code, report := verify()
	for _, op := range []string{"Tadd", "Axpy"} {
		if !regexp.MustCompile(`OpfTritonOps/` + op + `\s+trt-python\s+kernel\s+[1-9]\d*\s+0\s+0\s`).MatchString(report) {
			t.Errorf("verify ran no clean kernel check of %s:\n%s", op, report)
		}
	}
	if code != 0 {
		t.Fatalf("verify: exit %d\n%s", code, report)
	}
	// The region's copy of add_kernel is what runs: a bug there fails.
	buggy := strings.Replace(text, "tl.store(out_ptr + offsets, x + y, mask=mask)", "tl.store(out_ptr + offsets, x - y, mask=mask)", 1)
	if buggy == text {
		t.Fatal("add_kernel's store is not in the region as imported")
	}
	if err := os.WriteFile(plugin, []byte(buggy), 0o644); err != nil {
		t.Fatal(err)
	}
	code, report = verify()
	if code != 1 || !regexp.MustCompile(`OpfTritonOps/Tadd\s+trt-python\s+kernel\s+0\s+[1-9]\d*\s`).MatchString(report) {
		t.Errorf("verify of a planted bug in add_kernel: exit %d, want every Tadd case failing\n%s", code, report)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
