package trt_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/targets/trt"
)

// TestTRTBuildTritonKernel builds testdata/gen/trt-triton's plugin
// library, whose Tadd launches its imported Triton kernel from C++: the
// plan compiles the Python plugin's triton:Tadd region with Triton into
// TaddTriton.h (a cubin per dtype combination and architecture) before
// nvcc compiles TaddKernel.cu, and the library reaches the driver API
// through the runtime alone (no libcuda symbol imported). Axpy, whose
// param is a constexpr of its launcher, gets no such unit. Needs
// TENSORRT_INCLUDE_DIR, OPFORGE_PYTHON with triton and a CUDA toolkit.
func TestTRTBuildTritonKernel(t *testing.T) {
	if os.Getenv("TENSORRT_INCLUDE_DIR") == "" {
		t.Skip("TENSORRT_INCLUDE_DIR is not set: building the plugin libraries needs the TensorRT headers")
	}
	py := os.Getenv("OPFORGE_PYTHON")
	if py == "" {
		t.Skip("OPFORGE_PYTHON is not set: compiling Triton kernels needs a Python with triton")
	}
	if out, err := exec.Command(py, "-c", "import triton").CombinedOutput(); err != nil {
		t.Skipf("%s has no triton: %v %s", py, err, out)
	}
	repo, _ := filepath.Abs("../../..")
	o := buildplan.Options{Out: filepath.Join(repo, "testdata/gen/trt-triton/out"), Build: t.TempDir(), Toolchains: filepath.Join(repo, "toolchains"),
		Env: trtTestEnv(repo, map[string]string{"CUDA_ARCHS": "80,90"})}
	p, err := trt.BuildPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Preflight(); err != nil {
		t.Skipf("no CUDA toolchain: %v", err)
	}
	var headers []string
	for _, u := range p.Units {
		if strings.HasSuffix(u.ID, "Triton.h") {
			headers = append(headers, u.ID)
		}
		if strings.HasSuffix(u.ID, "TaddKernel.cu.o") && !slices.Contains(u.After, "trt/OpfTritonOps/TaddTriton.h") {
			t.Errorf("%s does not wait for TaddTriton.h: after %v", u.ID, u.After)
		}
	}
	if strings.Join(headers, " ") != "trt/OpfTritonOps/TaddTriton.h" {
		t.Errorf("Triton units: %v, want TaddTriton.h alone", headers)
	}
	var log bytes.Buffer
	if _, err := p.Run(context.Background(), &log, 0); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	header, err := os.ReadFile(filepath.Join(o.Build, "trt/OpfTritonOps/TaddTriton.h"))
	if err != nil {
		t.Fatal(err)
	}
	// Six dtype combinations (Tadd's trt types) by two architectures, each an ELF image.
	images := regexp.MustCompile(`kTaddCubin(\d)_sm(80|90)\[\] = \{0x7f, 0x45, 0x4c, 0x46,`).FindAllSubmatch(header, -1)
	if len(images) != 12 {
		t.Errorf("TaddTriton.h holds %d cubins (ELF) for sm_80 and sm_90, want 12", len(images))
	}
	lib := filepath.Join(o.Build, "trt/OpfTritonOps/libOpfTritonOps.so")
	out, err := exec.Command("nm", "-D", "--undefined-only", lib).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, sym := range []string{"cuModuleLoadData", "cuLaunchKernel", "cuModuleGetFunction"} {
		if regexp.MustCompile(`\b` + sym + `\b`).Match(out) {
			t.Errorf("libOpfTritonOps.so imports %s: the driver API must come through the runtime's entry point", sym)
		}
	}
	strs, err := exec.Command("strings", lib).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(strs, []byte("cuLaunchKernel")) {
		t.Error("libOpfTritonOps.so never names cuLaunchKernel: the Triton launch is missing")
	}
}
