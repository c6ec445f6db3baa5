package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitGenCheck: in an empty directory outside this checkout, init
// then gen then check succeed with no warning, for every target, using
// the built-in toolchain descriptors; init again keeps what is there.
func TestInitGenCheck(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "myrepo")
	code, out, errs := run("init", "--package", "ActOps", dir)
	if code != 0 || !strings.Contains(out, "wrote .gitignore, opdefs/act_ops/act_ops.yaml, schemas/opdef.schema.json") {
		t.Fatalf("init: %d\n%s%s", code, out, errs)
	}
	t.Chdir(dir)
	code, out, errs = run("gen")
	if code != 0 || errs != "" {
		t.Fatalf("gen in a fresh repository: %d\n%s%s", code, out, errs)
	}
	for _, p := range []string{"out/trt/ActOps/src/ops/ScaledSiLUPlugin.cpp", "out/htp/ActOps/src/ops/ScaledSiLU.cpp", "out/htp/ActOps/executorch/act_ops.py", "out/aipu/ActOps/kernels/scaled_si_lu.cl"} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("gen did not write %s", p)
		}
	}
	if code, out, errs = run("check"); code != 0 || !strings.Contains(out+errs, "0 error(s), 0 warning(s)") {
		t.Errorf("check after gen: %d\n%s%s", code, out, errs)
	}
	// The user edits the example; init again keeps it and adds nothing.
	example := "opdefs/act_ops/act_ops.yaml"
	data, _ := os.ReadFile(example)
	edited := strings.Replace(string(data), "description: output scale", "description: my scale", 1)
	if err := os.WriteFile(example, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run("init", "--package", "ActOps", "--toolchains")
	if code != 0 || !strings.Contains(out, "wrote toolchains/aipu.yaml, toolchains/htp.yaml, toolchains/trt.yaml, schemas/toolchain.schema.json; kept .gitignore, "+example) {
		t.Errorf("init again: %d\n%s", code, out)
	}
	if now, _ := os.ReadFile(example); string(now) != edited {
		t.Error("init replaced the user's opdef")
	}
	if code, out, errs = run("gen"); code != 0 {
		t.Errorf("gen with the written toolchains/: %d\n%s%s", code, out, errs)
	}
}

func TestInitRefuses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	_ = os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"init", file}, 1, "is not a directory"},
		{[]string{"init", "--package", "my-ops", t.TempDir()}, 2, `package name "my-ops"`},
		{[]string{"init", "a", "b"}, 2, "one directory at most"},
		{[]string{"init", "--package", "ActOps,VisionOps", t.TempDir()}, 2, `"ActOps,VisionOps" is a list: this command makes one package, so --package takes one name`},
		{[]string{"init", "--package", "class", t.TempDir()}, 2, "does not pass the opdef checks"},
		{[]string{"init", "--package", "A__B", t.TempDir()}, 2, "does not pass the opdef checks"},
	} {
		code, _, errs := run(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: %d %q, want %d %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// TestInitToBuiltLibrary is the quick start with the real pieces: from
// init to a linked TensorRT plugin library in a directory outside this
// checkout, with CUDA found from CUDA_HOME alone (the test virtualenv's
// CUDA 13 wheels unless set) and the TensorRT headers from
// TENSORRT_INCLUDE_DIR.
func TestInitToBuiltLibrary(t *testing.T) {
	if os.Getenv("TENSORRT_INCLUDE_DIR") == "" {
		t.Skip("TENSORRT_INCLUDE_DIR is not set: building the TensorRT plugin needs the TensorRT headers")
	}
	if os.Getenv("CUDA_HOME") == "" {
		py := os.Getenv("OPFORGE_PYTHON")
		if py == "" {
			t.Skip("neither CUDA_HOME nor OPFORGE_PYTHON (whose virtualenv has CUDA's wheels) is set")
		}
		site, err := exec.Command(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").Output()
		if err != nil {
			t.Skipf("%s: %v", py, err)
		}
		t.Setenv("CUDA_HOME", filepath.Join(strings.TrimSpace(string(site)), "nvidia", "cu13"))
	}
	t.Setenv("NVCC", "")
	if os.Getenv("CUDA_ARCHS") == "" {
		t.Setenv("CUDA_ARCHS", "80")
	}
	dir := t.TempDir()
	if code, out, errs := run("init", dir); code != 0 {
		t.Fatalf("init: %s%s", out, errs)
	}
	t.Chdir(dir)
	if code, out, errs := run("gen"); code != 0 {
		t.Fatalf("gen: %s%s", out, errs)
	}
	code, out, errs := run("build", "trt")
	if code != 0 {
		t.Fatalf("build trt: %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat("build/trt/MyOps/libMyOps.so"); err != nil {
		t.Fatalf("no library: %v\n%s%s", err, out, errs)
	}
	nm, err := exec.Command("nm", "-D", "--defined-only", "build/trt/MyOps/libMyOps.so").Output()
	if err == nil && !strings.Contains(string(nm), "getCreators") {
		t.Errorf("the library exports no getCreators:\n%s", nm)
	}
}
