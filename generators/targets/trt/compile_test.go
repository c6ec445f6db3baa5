package trt

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestQDPModulesCompile byte-compiles every generated Python plugin module.
func TestQDPModulesCompile(t *testing.T) {
	py := python(t)
	var modules []string
	for _, p := range packages(t) {
		m, _ := filepath.Glob(filepath.Join(p.dir, "python", "*.py"))
		modules = append(modules, m...)
	}
	if len(modules) < 3 {
		t.Fatalf("only %d Python plugin modules found", len(modules))
	}
	dir := t.TempDir()
	for i, m := range modules {
		// cfile keeps __pycache__ out of the checked-in tree.
		script := fmt.Sprintf("import py_compile; py_compile.compile(%q, cfile=%q, doraise=True)", m, filepath.Join(dir, fmt.Sprintf("%d.pyc", i)))
		if out, err := exec.Command(py, "-c", script).CombinedOutput(); err != nil {
			t.Errorf("%s does not compile: %v\n%s", m, err, out)
		}
	}
}

var (
	kernelOnce sync.Once
	kernelObjs map[string][]string // package dir -> objects
	kernelErrs []string
)

// kernelArch is the one architecture the tests compile for: every CUDA 12
// and 13 nvcc has it.
const kernelArch = "sm_80"

// kernelObjects compiles every kernel source of every tree once per test
// run (they need no TensorRT header) and returns the objects by package.
func kernelObjects(t *testing.T) map[string][]string {
	t.Helper()
	c := findCUDA(t)
	kernelOnce.Do(func() {
		kernelObjs = map[string][]string{}
		type job struct{ src, obj, pkg string }
		var jobs []job
		for i, p := range packages(t) {
			srcs, _ := filepath.Glob(filepath.Join(p.dir, "src", "ops", "*.cu"))
			for _, s := range srcs {
				obj := filepath.Join(workDir(t), "kernels", fmt.Sprintf("%d-%s.o", i, strings.TrimSuffix(filepath.Base(s), ".cu")))
				jobs = append(jobs, job{s, obj, p.dir})
				kernelObjs[p.dir] = append(kernelObjs[p.dir], obj)
			}
		}
		_ = os.MkdirAll(filepath.Join(workDir(t), "kernels"), 0o755)
		var fns []func() error
		for _, j := range jobs {
			fns = append(fns, func() error {
				args := []string{"-std=c++17", "-arch=" + kernelArch, "-Werror", "all-warnings", "-Xcompiler", "-fPIC,-Wall,-Werror", "-c", j.src, "-o", j.obj}
				if out, err := exec.Command(c.nvcc, args...).CombinedOutput(); err != nil {
					return fmt.Errorf("%s does not compile with nvcc: %v\n%s", j.src, err, out)
				}
				return nil
			})
		}
		for _, err := range parallel(fns) {
			if err != nil {
				kernelErrs = append(kernelErrs, err.Error())
			}
		}
	})
	return kernelObjs
}

// TestKernelsCompile compiles every generated kernel source with nvcc,
// warnings as errors.
func TestKernelsCompile(t *testing.T) {
	objs := kernelObjects(t)
	for _, e := range kernelErrs {
		t.Error(e)
	}
	n := 0
	for _, o := range objs {
		n += len(o)
	}
	if n < 10 {
		t.Fatalf("only %d kernel sources found", n)
	}
	t.Logf("%d kernel sources compiled with %s -arch=%s", n, findCUDA(t).nvcc, kernelArch)
}

// cxxFlags are the flags every plugin source must pass with.
func cxxFlags(h trtHeaders, cudaInclude string) []string {
	return []string{"-std=c++17", "-Wall", "-Werror", "-Wno-deprecated-declarations",
		// -isystem: the vendor headers are not ours to keep warning-free.
		"-isystem", h.dir, "-isystem", cudaInclude}
}

// minTensorRT is the oldest TensorRT a package's sources compile with:
// IPluginV3 needs 10.0, aliasing 10.3; the legacy interface 8.0.
func minTensorRT(p treePackage) (int, int) {
	if PkgOptions(p.pkg).Legacy {
		return 8, 0
	}
	for _, op := range Ops(p.pkg) {
		if len(OpOptions(op).Aliases) > 0 {
			return 10, 3
		}
	}
	return 10, 0
}

// TestPluginSyntax compiles every plugin source with g++ -fsyntax-only
// against every TensorRT include directory in TENSORRT_INCLUDE_DIR. Where
// the headers are older than a package needs, the sources must stop at the
// generated #error naming the version.
func TestPluginSyntax(t *testing.T) {
	headers := tensorRTHeaders(t)
	cudaInc := cudaIncludeDir(t)
	for _, h := range headers {
		var jobs []func() error
		var names []string
		for _, p := range packages(t) {
			srcs, _ := filepath.Glob(filepath.Join(p.dir, "src", "*.cpp"))
			more, _ := filepath.Glob(filepath.Join(p.dir, "src", "ops", "*.cpp"))
			major, minor := minTensorRT(p)
			supported := h.atLeast(major, minor)
			for _, src := range append(srcs, more...) {
				names = append(names, src)
				jobs = append(jobs, func() error {
					out, err := exec.Command("g++", append(cxxFlags(h, cudaInc), "-fsyntax-only", src)...).CombinedOutput()
					switch {
					case supported && err != nil:
						return fmt.Errorf("%s does not compile against %s: %v\n%s", src, h, err, out)
					case !supported && (err == nil || !strings.Contains(string(out), fmt.Sprintf("TensorRT >= %d.%d", major, minor))):
						return fmt.Errorf("%s against %s should stop at the #error for TensorRT >= %d.%d:\n%s", src, h, major, minor, out)
					}
					return nil
				})
			}
		}
		for _, err := range parallel(jobs) {
			if err != nil {
				t.Error(err)
			}
		}
		t.Logf("%d plugin sources checked against %s", len(names), h)
	}
}
