package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// quickStart is the README section a new user follows to a verified op.
const quickStart = "## Quick start: from nothing to a verified op"

// TestQuickStartVerifies follows the README's quick start as a user
// would: init, gen, then the reference, Triton and OpenCL regions exactly
// as the README prints them, and verify, which must run both kernels in
// their engines (Triton's interpreter, PoCL) and pass. A README example
// that stops compiling or passing fails here.
func TestQuickStartVerifies(t *testing.T) {
	python := os.Getenv("OPFORGE_PYTHON")
	if python == "" {
		t.Skip("OPFORGE_PYTHON is not set: the quick start's verify needs a Python with torch, triton and pyopencl (`go tool mage test` sets it up)")
	}
	if err := exec.Command(python, "-c", "import torch, triton, pyopencl; pyopencl.get_platforms()").Run(); err != nil {
		t.Skipf("%s lacks torch, triton or an OpenCL platform (%v): `go tool mage test` installs them", python, err)
	}
	section := readmeSection(t, quickStart)
	regions := map[string]string{} // region key -> the README's body for it
	for _, block := range regexp.MustCompile("(?s)```(?:python|c)\n(.*?)```").FindAllStringSubmatch(section, -1) {
		m := regexp.MustCompile(`(?s)opforge:begin (\S+)\n(.*?)\n[^\n]*opforge:end `).FindStringSubmatch(block[1])
		if m == nil {
			t.Fatalf("a code block of the quick start holds no region:\n%s", block[1])
		}
		regions[m[1]] = m[2] + "\n"
	}
	files := map[string]string{
		"reference:ScaledSiLU": "out/reference/MyOps/my_ops_reference.py",
		"triton:ScaledSiLU":    "out/trt/MyOps/python/my_ops_qdp.py",
		"kernel":               "out/aipu/MyOps/kernels/scaled_si_lu.cl",
	}
	if len(regions) != len(files) {
		t.Fatalf("the quick start fills regions %v; this test knows %v", keysOf(regions), keysOf(files))
	}

	dir := t.TempDir()
	if code, out, errs := run("init", dir); code != 0 {
		t.Fatalf("init: %s%s", out, errs)
	}
	opdefs, outDir := filepath.Join(dir, "opdefs"), filepath.Join(dir, "out")
	if code, out, errs := run("gen", "--opdefs", opdefs, "--out", outDir); code != 0 {
		t.Fatalf("gen: %s%s", out, errs)
	}
	for key, rel := range files {
		body, ok := regions[key]
		if !ok {
			t.Fatalf("the quick start has no region %s", key)
		}
		fillRegion(t, filepath.Join(dir, rel), key, body)
	}
	code, out, errs := run("verify", "--opdefs", opdefs, "--out", outDir, "--python", python,
		"--target", "trt-python,aipu-opencl", "--format", "text")
	if code != 0 {
		t.Fatalf("verify of the quick start's kernels: exit %d\n%s%s", code, out, errs)
	}
	report := out + errs
	for _, engine := range []string{"trt-python  kernel", "aipu-opencl kernel"} {
		if !regexp.MustCompile(`MyOps/ScaledSiLU\s+` + regexp.QuoteMeta(engine) + `\s+[1-9]\d*\s+0\s`).MatchString(report) {
			t.Errorf("verify ran no passing %q cases:\n%s", engine, report)
		}
	}
}

// readmeSection is the README's text from heading to the next "## ".
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), heading+"\n")
	if !ok {
		t.Fatalf("the README has no section %q", heading)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
