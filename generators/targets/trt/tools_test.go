package trt

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/validate"
	"github.com/opforge/opforge/generators/yamldef"
)

// The checked-in trees the tests compile, with the opdefs they come from
// (the golden tests of generators/gen keep them current).
const repo = "../../.."

var trees = []struct{ opdefs, out string }{
	{repo + "/testdata/gen/examples/opdefs", repo + "/testdata/gen/examples/out"},
	{repo + "/testdata/gen/trt-features/opdefs", repo + "/testdata/gen/trt-features/out"},
	{repo + "/testdata/gen/trt-legacy/opdefs", repo + "/testdata/gen/trt-legacy/out"},
	{repo + "/testdata/gen/rank-poly/opdefs", repo + "/testdata/gen/rank-poly/out"},
	{repo + "/testdata/gen/dim-prod/opdefs", repo + "/testdata/gen/dim-prod/out"},
	{repo + "/testdata/gen/relations/opdefs", repo + "/testdata/gen/relations/out"},
	{repo + "/testdata/gen/trt-formats/opdefs", repo + "/testdata/gen/trt-formats/out"},
	{repo + "/testdata/gen/trt-counted/opdefs", repo + "/testdata/gen/trt-counted/out"},
}

// treePackage is one generated trt package and its IR.
type treePackage struct {
	pkg *ir.Package
	dir string // out/trt/<Package>
}

// packages loads every YAML package of the trees that generates for trt.
// The loader package cannot be used here (it imports the targets), so the
// files go through the same steps: parse, validate, check.
func packages(t *testing.T) []treePackage {
	t.Helper()
	var out []treePackage
	for _, tr := range trees {
		files, _ := filepath.Glob(filepath.Join(tr.opdefs, "*", "*.yaml"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var l diag.List
			pkg := yamldef.Load(f, data, &l)
			if pkg == nil {
				t.Fatalf("%s: %v", f, l.Sorted())
			}
			validate.Package(pkg, &l)
			Target{}.Check(pkg, l.ForTarget("trt"))
			if l.HasErrors() {
				t.Fatalf("%s: %v", f, l.Sorted())
			}
			if len(Ops(pkg)) == 0 {
				continue
			}
			out = append(out, treePackage{pkg: pkg, dir: filepath.Join(tr.out, "trt", pkg.Name)})
		}
	}
	if len(out) < 3 {
		t.Fatalf("only %d trt packages found", len(out))
	}
	return out
}

// python returns OPFORGE_PYTHON or python3, or skips.
func python(t *testing.T) string {
	t.Helper()
	if py := os.Getenv("OPFORGE_PYTHON"); py != "" {
		return py
	}
	if py, err := exec.LookPath("python3"); err == nil {
		return py
	}
	t.Skip("no Python: set OPFORGE_PYTHON (go tool mage test does) or install python3")
	return ""
}

// cuda is the CUDA toolchain the tests found.
type cuda struct {
	nvcc    string
	include string // holds cuda_runtime_api.h
	lib     string // holds libcudart_static.a ("" when none)
}

var (
	cudaOnce  sync.Once
	cudaFound *cuda
	cudaWhy   string
)

// findCUDA looks for nvcc in $NVCC, the test virtualenv's nvidia wheels
// (nvidia-cuda-nvcc, CUDA 13: nvidia/cu13/bin/nvcc), $CUDA_HOME, PATH and
// /usr/local/cuda, in that order.
func findCUDA(t *testing.T) *cuda {
	t.Helper()
	cudaOnce.Do(func() {
		var candidates []string
		if n := os.Getenv("NVCC"); n != "" {
			candidates = append(candidates, n)
		}
		if py := os.Getenv("OPFORGE_PYTHON"); py != "" {
			if out, err := exec.Command(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").Output(); err == nil {
				site := strings.TrimSpace(string(out))
				candidates = append(candidates, filepath.Join(site, "nvidia/cu13/bin/nvcc"), filepath.Join(site, "nvidia/cuda_nvcc/bin/nvcc"))
			}
		}
		if h := os.Getenv("CUDA_HOME"); h != "" {
			candidates = append(candidates, filepath.Join(h, "bin/nvcc"))
		}
		if p, err := exec.LookPath("nvcc"); err == nil {
			candidates = append(candidates, p)
		}
		candidates = append(candidates, "/usr/local/cuda/bin/nvcc")
		for _, c := range candidates {
			if st, err := os.Stat(c); err != nil || st.IsDir() {
				continue
			}
			root := filepath.Dir(filepath.Dir(c))
			found := &cuda{nvcc: c}
			for _, inc := range []string{filepath.Join(root, "include"), "/usr/local/cuda/include", "/usr/include"} {
				if _, err := os.Stat(filepath.Join(inc, "cuda_runtime_api.h")); err == nil {
					found.include = inc
					break
				}
			}
			for _, lib := range []string{filepath.Join(root, "lib"), filepath.Join(root, "lib64"), filepath.Join(root, "targets/x86_64-linux/lib")} {
				if _, err := os.Stat(filepath.Join(lib, "libcudart_static.a")); err == nil {
					found.lib = lib
					break
				}
			}
			if found.include != "" {
				cudaFound = found
				return
			}
		}
		cudaWhy = "no nvcc with CUDA headers: install testdata/requirements.txt into the test virtualenv (go tool mage test), or set NVCC or CUDA_HOME"
	})
	if cudaFound == nil {
		t.Skip(cudaWhy)
	}
	return cudaFound
}

// cudaIncludeDir is a directory with cuda_runtime_api.h for g++: the real one
// when a CUDA toolkit was found, else a stub declaring what the TensorRT
// headers and the plugin sources use.
func cudaIncludeDir(t *testing.T) string {
	t.Helper()
	cudaOnce.Do(func() {}) // findCUDA may not have run; a stub is enough here
	if cudaFound != nil {
		return cudaFound.include
	}
	dir := filepath.Join(workDir(t), "cuda-stub")
	_ = os.MkdirAll(dir, 0o755)
	stub := `// A stand-in for cuda_runtime_api.h: the types and functions the TensorRT headers and the plugins name.
#pragma once
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
typedef enum cudaError cudaError_t;
extern "C" const char* cudaGetErrorString(cudaError_t error);
extern "C" cudaError_t cudaGetLastError(void);
`
	if err := os.WriteFile(filepath.Join(dir, "cuda_runtime_api.h"), []byte(stub), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// trtHeaders is one TensorRT include directory with its version.
type trtHeaders struct {
	dir          string
	major, minor int
}

func (h trtHeaders) String() string {
	return fmt.Sprintf("TensorRT %d.%d (%s)", h.major, h.minor, h.dir)
}

// atLeast reports whether the headers are version major.minor or later.
func (h trtHeaders) atLeast(major, minor int) bool {
	return h.major > major || (h.major == major && h.minor >= minor)
}

var versionRE = regexp.MustCompile(`(?m)^#define\s+(NV_TENSORRT_MAJOR|NV_TENSORRT_MINOR|TRT_MAJOR_ENTERPRISE|TRT_MINOR_ENTERPRISE)\s+(\w+)`)

// tensorRTHeaders reads TENSORRT_INCLUDE_DIR, one directory or several
// separated by the path list separator, or skips.
func tensorRTHeaders(t *testing.T) []trtHeaders {
	t.Helper()
	env := os.Getenv("TENSORRT_INCLUDE_DIR")
	if env == "" {
		t.Skip("TENSORRT_INCLUDE_DIR is not set: the plugin sources need TensorRT headers (NVIDIA/TensorRT include/, several directories separated by " + string(os.PathListSeparator) + ")")
	}
	var out []trtHeaders
	for _, dir := range filepath.SplitList(env) {
		data, err := os.ReadFile(filepath.Join(dir, "NvInferVersion.h"))
		if err != nil {
			t.Fatalf("TENSORRT_INCLUDE_DIR entry %s: %v", dir, err)
		}
		defs := map[string]string{}
		for _, m := range versionRE.FindAllStringSubmatch(string(data), -1) {
			defs[m[1]] = m[2]
		}
		num := func(name string) int {
			v := defs[name]
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
			n, _ := strconv.Atoi(defs[v]) // NV_TENSORRT_MAJOR TRT_MAJOR_ENTERPRISE (10.11+)
			return n
		}
		h := trtHeaders{dir: dir, major: num("NV_TENSORRT_MAJOR"), minor: num("NV_TENSORRT_MINOR")}
		if h.major == 0 {
			t.Fatalf("cannot read the TensorRT version from %s/NvInferVersion.h", dir)
		}
		out = append(out, h)
	}
	return out
}

var (
	workOnce sync.Once
	work     string
)

// workDir is a scratch directory shared by the tests of one run.
func workDir(t *testing.T) string {
	t.Helper()
	workOnce.Do(func() {
		dir, err := os.MkdirTemp("", "opforge-trt-")
		if err != nil {
			t.Fatal(err)
		}
		work = dir
	})
	return work
}

func TestMain(m *testing.M) {
	code := m.Run()
	if work != "" {
		_ = os.RemoveAll(work)
	}
	os.Exit(code)
}

// run executes a command and fails the test with its output.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// parallel runs jobs on every core, collecting the errors in order.
func parallel(jobs []func() error) []error {
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, max(2, runtime.NumCPU()))
	var wg sync.WaitGroup
	for i, job := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, job func() error) {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = job()
		}(i, job)
	}
	wg.Wait()
	return errs
}
