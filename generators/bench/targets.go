package bench

import (
	"os"
	"path/filepath"
)

// The bench's per-target knowledge is here and nowhere else in the
// package: which target the no-op build measures and the stand-in SDK it
// builds against, and which target the team build compiles and what its
// compilers need. The rest of the bench only runs `opforge gen` and
// `opforge build <target>`.

// noopTarget and noopArch are the target and architecture NoopBuild
// builds: the HTP x86 variant, whose compiler the toolchain descriptor
// takes from X86_CXX, so a stand-in compiler can take its place.
const (
	noopTarget = "htp"
	noopArch   = "x86"
)

// noopSDK lays out, under sdk, the stand-in SDK the no-op build's plan
// checks for (the QNN headers' folder with the one header it looks for,
// the Hexagon SDK's folders), and returns the environment that points the
// build at it and at the stand-in compiler cxx.
func noopSDK(sdk, cxx string) ([]string, error) {
	for _, p := range []string{"qnn/include/QNN", "hexagon/hexagon-sdk-6.0.0/incs", "hexagon/hexagon-sdk-6.0.0/tools/HEXAGON_Tools/8.8.02/Tools/libnative/include"} {
		if err := os.MkdirAll(filepath.Join(sdk, p), 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(sdk, "qnn/include/QNN/QnnOpPackage.h"), nil, 0o644); err != nil {
		return nil, err
	}
	return []string{"QNN_SDK_ROOT=" + filepath.Join(sdk, "qnn"), "HEXAGON_SDK_ROOT=" + filepath.Join(sdk, "hexagon/hexagon-sdk-6.0.0"), "X86_CXX=" + cxx}, nil
}

// teamTarget is the target TeamBuild compiles through a shared compiler
// cache, teamTitle its name in the table: TensorRT, whose CUDA compiles
// are the slowest a team repeats.
const (
	teamTarget = "trt"
	teamTitle  = "TensorRT"
)

// teamCompilerEnv adds to env what the team build's compilers need unless
// the caller set it: CUDA_ARCHS=80, so the numbers are about the cache,
// not about compiling four architectures, and the test venv's CUDA wheels
// when no CUDA is named (the descriptor's relative search path would be
// looked up inside each clone).
func teamCompilerEnv(env []string) []string {
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
