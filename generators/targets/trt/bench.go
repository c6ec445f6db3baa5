package trt

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BenchCompilerEnv adds to env what the bench's builds need of the
// compilers unless the caller set it: CUDA_ARCHS=80, so the numbers are
// about the build, not about compiling four architectures, and the test
// venv's CUDA wheels when no CUDA is named (the descriptor's relative
// search path would be looked up inside each clone).
func BenchCompilerEnv(env []string) []string {
	if os.Getenv("CUDA_ARCHS") == "" {
		env = append(env, "CUDA_ARCHS=80")
	}
	if os.Getenv("CUDA_HOME") == "" {
		if m, _ := filepath.Glob(".venv/lib/python3*/site-packages/nvidia/cu13"); len(m) > 0 {
			cuda, _ := filepath.Abs(m[0])
			env = append(env, "CUDA_HOME="+cuda)
			if os.Getenv("NVCC") == "" {
				env = append(env, "NVCC="+filepath.Join(cuda, "bin", "nvcc"))
			}
		}
	}
	return env
}

// BenchYardstick is the cold build of a generated package without
// opforge: CMake's configure of the package's own CMakeLists.txt with the
// Ninja generator into buildDir, then ninja. It returns the two commands
// and what their environment needs besides env (which BenchCompilerEnv
// has filled), or why this machine cannot run them.
func BenchYardstick(pkgDir, buildDir string, env []string) (cmds [][]string, extraEnv []string, err error) {
	for _, tool := range []string{"cmake", "ninja"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, nil, fmt.Errorf("%s is not installed", tool)
		}
	}
	nvcc, home := lookupEnv(env, "NVCC"), lookupEnv(env, "CUDA_HOME")
	if nvcc == "" && home != "" {
		nvcc = filepath.Join(home, "bin", "nvcc")
	}
	if nvcc == "" {
		return nil, nil, fmt.Errorf("no CUDA to build with: set CUDA_HOME or NVCC")
	}
	configure := []string{"cmake", "-S", pkgDir, "-B", buildDir, "-G", "Ninja",
		"-DCMAKE_CUDA_COMPILER=" + nvcc, "-DCUDAToolkit_ROOT=" + filepath.Dir(filepath.Dir(nvcc))}
	if archs := lookupEnv(env, "CUDA_ARCHS"); archs != "" {
		configure = append(configure, "-DCMAKE_CUDA_ARCHITECTURES="+strings.ReplaceAll(archs, ",", ";"))
	}
	if inc := lookupEnv(env, "TENSORRT_INCLUDE_DIR"); inc != "" {
		configure = append(configure, "-DTENSORRT_INCLUDE_DIR="+inc)
	}
	hints, extraEnv := wheelCUDAHints(filepath.Dir(filepath.Dir(nvcc)), lookupEnv(env, "LIBRARY_PATH"))
	return [][]string{append(configure, hints...), {"ninja", "-C", buildDir}}, extraEnv, nil
}

// wheelCUDAHints: the CUDA of NVIDIA's pip wheels (nvidia/cu13) keeps its
// libraries in lib/, where nvcc's own link line and CMake's compiler check
// look for lib64/, and ships libcudart.so only versioned, which CMake's
// FindCUDAToolkit does not find. A toolkit laid out as the CUDA installer
// lays it out needs neither hint.
func wheelCUDAHints(root, libraryPath string) (cmakeArgs, env []string) {
	lib := filepath.Join(root, "lib")
	if _, err := os.Stat(filepath.Join(root, "lib64")); err == nil {
		return nil, nil
	}
	if _, err := os.Stat(lib); err != nil {
		return nil, nil
	}
	if libraryPath != "" {
		lib += string(os.PathListSeparator) + libraryPath
	}
	env = []string{"LIBRARY_PATH=" + lib}
	if _, err := os.Stat(filepath.Join(root, "lib", "libcudart.so")); err != nil {
		if versioned, _ := filepath.Glob(filepath.Join(root, "lib", "libcudart.so.*")); len(versioned) > 0 {
			cmakeArgs = []string{"-DCUDA_CUDART=" + versioned[0]}
		}
	}
	return cmakeArgs, env
}

// lookupEnv is the value of name in env (the last one wins, as for exec).
func lookupEnv(env []string, name string) string {
	value := ""
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			value = v
		}
	}
	return value
}

// BenchPeer is NVIDIA-AI-IOT/tensorrt_plugin_generator, the generator
// issue 30 compares opforge's cold generation with: a checkout of it named
// by $OPFORGE_TPG, run as `python -m tpg.tpg generate` with
// $OPFORGE_TPG_PYTHON (default python3), which must import its
// requirements (PyYAML, NumPy, ONNX, onnx_graphsurgeon). It writes under
// dir its spec of n plugins shaped as the bench's synthetic ops (two 4-D
// inputs and a 4-D output of dynamic dims, float32 and float16, an int, a
// float and an int array attribute) and returns the command that
// generates them into out, or why it cannot run here.
func BenchPeer(n int, dir, out string) (cmd []string, cwd string, err error) {
	checkout := os.Getenv("OPFORGE_TPG")
	if checkout == "" {
		return nil, "", fmt.Errorf("tensorrt_plugin_generator is not here: set OPFORGE_TPG to a checkout of github.com/NVIDIA-AI-IOT/tensorrt_plugin_generator")
	}
	if _, err := os.Stat(filepath.Join(checkout, "tpg", "tpg.py")); err != nil {
		return nil, "", fmt.Errorf("OPFORGE_TPG=%s is not a checkout of tensorrt_plugin_generator (no tpg/tpg.py)", checkout)
	}
	python := os.Getenv("OPFORGE_TPG_PYTHON")
	if python == "" {
		python = "python3"
	}
	spec := filepath.Join(dir, "tpg.yml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(spec, peerSpec(n), 0o644); err != nil {
		return nil, "", err
	}
	return []string{python, "-m", "tpg.tpg", "generate", "--yaml", spec, "-o", out}, checkout, nil
}

// peerSpec is tensorrt_plugin_generator's YAML for n plugins.
func peerSpec(n int) []byte {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, `Op%04d:
    plugin_type: IPluginV2DynamicExt
    inputs:
        x:
            shape: -1x-1x-1x-1
        y:
            shape: -1x-1x-1x-1
    outputs:
        z:
            shape: -1x-1x-1x-1
    support_format_combination: ["float32+float32+float32", "float16+float16+float16"]
    attributes:
        k:
            datatype: int32
            default_value: 2
        scale:
            datatype: float32
            default_value: 1.0
        pads:
            datatype: int32[]
            default_value: [1, 1]
`, i)
	}
	return []byte(sb.String())
}
