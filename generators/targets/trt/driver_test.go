package trt

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/golden"
)

var update = golden.Update

const driverSource = repo + "/testdata/trt/driver/trt_driver.cpp"

// TestDriverCases keeps testdata/trt/VisionOps.cases, the cases the GPU
// script (testdata/trt/gpu_e2e.sh) runs without Go, equal to what the
// shipped opdefs give.
func TestDriverCases(t *testing.T) {
	for _, p := range packages(t) {
		if p.pkg.Name != "VisionOps" {
			continue
		}
		got := driverCases(p.pkg)
		golden := repo + "/testdata/trt/VisionOps.cases"
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile(golden)
		if err != nil || string(want) != got {
			t.Errorf("%s is not what opdefs/ give (go test ./generators/targets/trt -run TestDriverCases -update refreshes it)", golden)
		}
		return
	}
	t.Fatal("no VisionOps package")
}

// TestPluginDriver builds every package's plugin library (g++ for the
// plugins, nvcc for the kernels, the package's version script), checks it
// exports exactly getCreators, getPluginCreators and setLoggerFinder, and
// runs the driver on it: dlopen and getCreators as TensorRT does, every
// plugin created from ONNX-style and Python-style fields, invalid fields
// refused with a message, getFieldsToSerialize round-tripped through
// createPlugin at the runtime phase, clone and attachToContext, output
// dtypes, format combinations, shapes through IExprBuilder, size tensors,
// workspace and aliases. OPFORGE_TRT_ENQUEUE=1 (on a machine with a GPU)
// adds enqueue on device buffers.
func TestPluginDriver(t *testing.T) {
	headers := tensorRTHeaders(t)
	c := findCUDA(t)
	if c.lib == "" {
		t.Skipf("no libcudart_static.a beside %s", c.nvcc)
	}
	objs := kernelObjects(t)
	if len(kernelErrs) > 0 {
		t.Fatalf("kernels do not compile: %s", kernelErrs[0])
	}
	enqueue := os.Getenv("OPFORGE_TRT_ENQUEUE") == "1"
	for _, h := range headers {
		if h.major < 10 {
			t.Logf("skipping %s: the driver needs TensorRT 10 headers", h)
			continue
		}
		dir := filepath.Join(workDir(t), fmt.Sprintf("driver-%d.%d", h.major, h.minor))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		driver := filepath.Join(dir, "trt_driver")
		driverCUDA := driver + "_cuda"
		// -rdynamic: a library with REGISTER_TENSORRT_PLUGIN resolves
		// getPluginRegistry in the driver.
		run(t, "g++", append(cxxFlags(h, c.include), "-O1", "-rdynamic", driverSource, "-o", driver, "-ldl")...)
		// The GPU variant must at least build here.
		run(t, "g++", append(cxxFlags(h, c.include), "-O1", "-DOPFORGE_DRIVER_CUDA", "-rdynamic", driverSource, "-o", driverCUDA,
			"-L"+c.lib, "-l:libcudart_static.a", "-ldl", "-lpthread", "-lrt")...)
		for i, p := range packages(t) {
			major, minor := minTensorRT(p)
			if !h.atLeast(major, minor) {
				continue
			}
			t.Run(fmt.Sprintf("%s/TensorRT-%d.%d", p.pkg.Name, h.major, h.minor), func(t *testing.T) {
				lib := buildLibrary(t, p, h, c, objs[p.dir], filepath.Join(dir, fmt.Sprintf("%d", i)))
				checkExports(t, lib)
				cases := filepath.Join(dir, fmt.Sprintf("%d.cases", i))
				if err := os.WriteFile(cases, []byte(driverCases(p.pkg)), 0o644); err != nil {
					t.Fatal(err)
				}
				bin, args := driver, []string{lib, cases}
				if enqueue {
					bin, args = driverCUDA, append(args, "--enqueue")
				}
				out, err := exec.Command(bin, args...).CombinedOutput()
				if err != nil {
					t.Fatalf("driver: %v\n%s", err, out)
				}
				t.Logf("%s", lastLine(out))
			})
		}
	}
}

// buildLibrary compiles a package's plugin sources against h and links
// them with its kernels into lib<Package>.so, as its CMakeLists does.
func buildLibrary(t *testing.T, p treePackage, h trtHeaders, c *cuda, kernels []string, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	srcs, _ := filepath.Glob(filepath.Join(p.dir, "src", "*.cpp"))
	more, _ := filepath.Glob(filepath.Join(p.dir, "src", "ops", "*.cpp"))
	srcs = append(srcs, more...)
	objs := make([]string, len(srcs))
	var jobs []func() error
	for i, src := range srcs {
		objs[i] = filepath.Join(dir, fmt.Sprintf("%d.o", i))
		jobs = append(jobs, func() error {
			args := append(cxxFlags(h, c.include), "-O1", "-fPIC", "-fvisibility=hidden", "-c", src, "-o", objs[i])
			if out, err := exec.Command("g++", args...).CombinedOutput(); err != nil {
				return fmt.Errorf("%s: %v\n%s", src, err, out)
			}
			return nil
		})
	}
	for _, err := range parallel(jobs) {
		if err != nil {
			t.Fatal(err)
		}
	}
	lib := filepath.Join(dir, "lib"+p.pkg.Name+".so")
	args := append([]string{"-shared", "-o", lib}, objs...)
	args = append(args, kernels...)
	args = append(args, "-Wl,--version-script="+filepath.Join(p.dir, p.pkg.Name+".map"))
	if !PkgOptions(p.pkg).StaticRegistration {
		// REGISTER_TENSORRT_PLUGIN needs libnvinfer's getPluginRegistry
		// (the driver provides it at load time); nothing else may be
		// undefined.
		args = append(args, "-Wl,--no-undefined")
	}
	args = append(args, "-L"+c.lib, "-l:libcudart_static.a", "-ldl", "-lpthread", "-lrt")
	run(t, "g++", args...)
	return lib
}

// checkExports: the version script leaves exactly the three entry points.
func checkExports(t *testing.T, lib string) {
	t.Helper()
	out := run(t, "nm", "-D", "--defined-only", lib)
	var got []string
	for _, ln := range strings.Split(out, "\n") {
		f := strings.Fields(ln)
		if len(f) == 3 && (f[1] == "T" || f[1] == "W" || f[1] == "D" || f[1] == "B") {
			got = append(got, f[2])
		}
	}
	sort.Strings(got)
	if want := []string{"getCreators", "getPluginCreators", "setLoggerFinder"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s exports %v, want %v", lib, got, want)
	}
}

func lastLine(b []byte) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(lines[len(lines)-1])
}
