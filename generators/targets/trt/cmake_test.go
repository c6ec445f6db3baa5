package trt

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCMakeBuild builds the shipped package with its own CMakeLists.txt,
// as a user without opforge would, against the newest TensorRT headers in
// TENSORRT_INCLUDE_DIR, and checks the library's exports.
func TestCMakeBuild(t *testing.T) {
	cmake, err := exec.LookPath("cmake")
	if err != nil {
		t.Skip("cmake is not installed")
	}
	headers := tensorRTHeaders(t)
	newest := headers[0]
	for _, h := range headers {
		if h.atLeast(newest.major, newest.minor) {
			newest = h
		}
	}
	c := findCUDA(t)
	root := toolkitRoot(t, c)
	build := filepath.Join(workDir(t), "cmake-VisionOps")
	run(t, cmake, "-S", repo+"/out/trt/VisionOps", "-B", build, "-DTENSORRT_INCLUDE_DIR="+newest.dir,
		"-DCMAKE_CUDA_COMPILER="+filepath.Join(root, "bin", "nvcc"), "-DCUDAToolkit_ROOT="+root, "-DCMAKE_CUDA_ARCHITECTURES=80")
	run(t, cmake, "--build", build, "-j", "4")
	checkExports(t, filepath.Join(build, "libVisionOps.so"))
}

// toolkitRoot is a directory laid out as CMake's CUDA support expects. A
// toolkit install is one; the pip wheels (nvidia/cu13) keep libraries in
// lib/ without libcudart.so, which nvcc's profile (lib64/) and
// FindCUDAToolkit (libcudart.so) do not find, so the test lays out a copy:
// bin copied (nvcc finds its siblings from its own path), the rest linked.
func toolkitRoot(t *testing.T, c *cuda) string {
	t.Helper()
	src := filepath.Dir(filepath.Dir(c.nvcc))
	if _, err := os.Stat(filepath.Join(src, "lib64", "libcudart.so")); err == nil {
		return src
	}
	root := filepath.Join(workDir(t), "cuda-toolkit")
	if _, err := os.Stat(filepath.Join(root, "bin", "nvcc")); err == nil {
		return root
	}
	if c.lib == "" {
		t.Skipf("no CUDA libraries beside %s", c.nvcc)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, "cp", "-r", filepath.Join(src, "bin"), filepath.Join(root, "bin"))
	for _, d := range []string{"include", "nvvm"} {
		if err := os.Symlink(filepath.Join(src, d), filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	lib64 := filepath.Join(root, "lib64")
	if err := os.MkdirAll(lib64, 0o755); err != nil {
		t.Fatal(err)
	}
	libs, _ := filepath.Glob(filepath.Join(c.lib, "*"))
	for _, l := range libs {
		_ = os.Symlink(l, filepath.Join(lib64, filepath.Base(l)))
		if strings.HasPrefix(filepath.Base(l), "libcudart.so.") {
			_ = os.Symlink(l, filepath.Join(lib64, "libcudart.so"))
		}
	}
	return root
}
