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
	run(t, cmake, "-S", repo+"/testdata/gen/examples/out/trt/VisionOps", "-B", build, "-DTENSORRT_INCLUDE_DIR="+newest.dir,
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

// TestCMakeBuildThroughLaunchers builds the shipped package with its own
// CMakeLists.txt and compiler launchers: OPFORGE_COMPILER_LAUNCHER from the
// environment for C++, -DCMAKE_CUDA_COMPILER_LAUNCHER (which wins) for
// CUDA. Each launcher logs what it runs: every source compiles through
// its language's launcher, the link through none.
func TestCMakeBuildThroughLaunchers(t *testing.T) {
	cmake, err := exec.LookPath("cmake")
	if err != nil {
		t.Skip("cmake is not installed")
	}
	headers := tensorRTHeaders(t)
	c := findCUDA(t)
	root := toolkitRoot(t, c)
	dir := t.TempDir()
	launcher := func(name string) (string, string) {
		path, log := filepath.Join(dir, name), filepath.Join(dir, name+".log")
		if err := os.WriteFile(path, []byte("#!/bin/sh\necho \"$*\" >> "+log+"\nexec \"$@\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return path, log
	}
	cxxLauncher, cxxLog := launcher("cxx-launcher")
	cudaLauncher, cudaLog := launcher("cuda-launcher")
	t.Setenv("OPFORGE_COMPILER_LAUNCHER", cxxLauncher)
	build := filepath.Join(dir, "build")
	run(t, cmake, "-S", repo+"/testdata/gen/trt-legacy/out/trt/LegacyTrt", "-B", build, "-DTENSORRT_INCLUDE_DIR="+headers[0].dir,
		"-DCMAKE_CUDA_COMPILER="+filepath.Join(root, "bin", "nvcc"), "-DCUDAToolkit_ROOT="+root, "-DCMAKE_CUDA_ARCHITECTURES=80",
		"-DCMAKE_CUDA_COMPILER_LAUNCHER="+cudaLauncher)
	run(t, cmake, "--build", build, "-j", "4")
	count := func(log, suffix string) (n int, all string) {
		data, _ := os.ReadFile(log)
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if strings.Contains(l, " -c ") && strings.Contains(l, suffix+" ") || strings.HasSuffix(l, suffix) {
				n++
			}
			if strings.Contains(l, " -shared") {
				t.Errorf("a link ran through a launcher: %s", l)
			}
		}
		return n, string(data)
	}
	cpps, _ := filepath.Glob(repo + "/testdata/gen/trt-legacy/out/trt/LegacyTrt/src/*.cpp")
	more, _ := filepath.Glob(repo + "/testdata/gen/trt-legacy/out/trt/LegacyTrt/src/ops/*.cpp")
	cus, _ := filepath.Glob(repo + "/testdata/gen/trt-legacy/out/trt/LegacyTrt/src/ops/*.cu")
	if n, all := count(cxxLog, ".cpp"); n != len(cpps)+len(more) {
		t.Errorf("%d C++ compiles through OPFORGE_COMPILER_LAUNCHER, want %d:\n%s", n, len(cpps)+len(more), all)
	}
	if n, all := count(cudaLog, ".cu"); n != len(cus) || len(cus) == 0 {
		t.Errorf("%d CUDA compiles through CMAKE_CUDA_COMPILER_LAUNCHER, want %d:\n%s", n, len(cus), all)
	}
	checkExports(t, filepath.Join(build, "libLegacyTrt.so"))
}

// TestCMakeLauncherChoice runs the generated CMakeLists' launcher block in
// CMake's script mode (no CUDA or TensorRT needed): OPFORGE_COMPILER_LAUNCHER
// serves both languages unless CMake was given a launcher its own way.
func TestCMakeLauncherChoice(t *testing.T) {
	cmake, err := exec.LookPath("cmake")
	if err != nil {
		t.Skip("cmake is not installed")
	}
	data, err := os.ReadFile(repo + "/testdata/gen/trt-legacy/out/trt/LegacyTrt/CMakeLists.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start, end := strings.Index(text, "foreach(lang CXX CUDA)"), strings.Index(text, "endforeach()")
	if start < 0 || end < start {
		t.Fatal("no launcher block in the generated CMakeLists.txt")
	}
	block := text[start : end+len("endforeach()")]
	for _, c := range []struct {
		name, env, preset, want string
	}{
		{"none", "", "", "CXX=[] CUDA=[]"},
		{"opforge's variable serves both", "ccache", "", "CXX=[ccache] CUDA=[ccache]"},
		{"-D wins for its language", "ccache", `set(CMAKE_CUDA_COMPILER_LAUNCHER sccache)`, "CXX=[ccache] CUDA=[sccache]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "launcher.cmake")
			body := c.preset + "\n" + block + "\nmessage(\"CXX=[${CMAKE_CXX_COMPILER_LAUNCHER}] CUDA=[${CMAKE_CUDA_COMPILER_LAUNCHER}]\")\n"
			if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(cmake, "-P", script)
			cmd.Env = append(os.Environ(), "OPFORGE_COMPILER_LAUNCHER="+c.env)
			out, err := cmd.CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != c.want {
				t.Errorf("got %q (%v), want %q", out, err, c.want)
			}
		})
	}
}
