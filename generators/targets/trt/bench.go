package trt

import (
	"os"
	"path/filepath"
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
