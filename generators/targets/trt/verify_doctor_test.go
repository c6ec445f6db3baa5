package trt_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/toolchain"
)

// doctorOf is the registry's runner name as doctor asks it.
func doctorOf(t *testing.T, name string) harness.Doctor {
	t.Helper()
	for _, r := range registry.Verifiers() {
		if r.Name() == name {
			d, ok := r.(harness.Doctor)
			if !ok {
				t.Fatalf("runner %s does not say what it needs (harness.Doctor)", name)
			}
			return d
		}
	}
	t.Fatalf("no runner %s", name)
	return nil
}

// fakePython is a probe's result with these modules (a module's Error
// "" : it imports).
func fakePython(mods ...harness.Module) harness.Python {
	py := harness.Python{Path: "/fake/python", Version: "3.11.7", Via: "$OPFORGE_PYTHON", Modules: map[string]harness.Module{}}
	for _, m := range mods {
		py.Modules[m.Name] = m
	}
	return py
}

func torchCPU() harness.Module {
	return harness.Module{Name: "torch", Version: "2.9.1", Facts: map[string]any{"cuda": false, "device": ""}}
}

func torchGPU() harness.Module {
	return harness.Module{Name: "torch", Version: "2.9.1", Facts: map[string]any{"cuda": true, "device": "NVIDIA H100 80GB HBM3"}}
}

// want is a finding doctor must report: its status and words of its
// line.
type want struct{ status, has string }

func checkFindings(t *testing.T, fs []harness.Finding, wants map[string]want) {
	t.Helper()
	got := map[string]harness.Finding{}
	for _, f := range fs {
		got[f.Name] = f
	}
	for name, w := range wants {
		f, ok := got[name]
		if !ok {
			t.Errorf("no %s finding in %+v", name, fs)
			continue
		}
		if line := f.Detail + "; " + f.Fix; f.Status != w.status || !strings.Contains(line, w.has) {
			t.Errorf("%s: %s %q, want %s with %q", name, f.Status, line, w.status, w.has)
		}
	}
}

// doctorEnv is a machine with the variables in vars, nothing on PATH but
// the commands in path (name -> shell script), under a fresh root.
func doctorEnv(t *testing.T, vars map[string]string, path map[string]string) harness.Options {
	t.Helper()
	root := t.TempDir()
	bins := map[string]string{}
	for name, script := range path {
		p := filepath.Join(root, "bin", name)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		bins[name] = p
	}
	return harness.Options{Toolchains: "../../../toolchains", Env: toolchain.Env{
		Getenv: func(k string) string { return vars[k] },
		LookPath: func(n string) (string, error) {
			if p, ok := bins[n]; ok {
				return p, nil
			}
			return "", os.ErrNotExist
		},
		Root: root,
	}}
}

// fakeCUDAAndTensorRT are a CUDA toolkit and TensorRT headers as the trt
// toolchain descriptor probes them.
func fakeCUDAAndTensorRT(t *testing.T) map[string]string {
	t.Helper()
	root := t.TempDir()
	for p, text := range map[string]string{
		"cuda/include/cuda_runtime_api.h": "",
		"cuda/bin/nvcc":                   "#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n",
		"trt/NvInferRuntime.h":            "",
		"trt/NvInferVersion.h":            "#define NV_TENSORRT_MAJOR 10\n",
		"bin/g++":                         "#!/bin/sh\necho 'g++ (Debian 12.2.0-14) 12.2.0'\n",
	} {
		full := filepath.Join(root, p)
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]string{"CUDA_HOME": filepath.Join(root, "cuda"), "TENSORRT_INCLUDE_DIR": filepath.Join(root, "trt"), "CXX": filepath.Join(root, "bin/g++")}
}

const smiH100 = "echo 'GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-0123)'"

// TestTRTDoctor: what doctor says of the trt runners, from fake probe
// results (no Python runs): the GPU torch or nvidia-smi sees, the build's
// toolchain pieces as opforge build trt finds them, Triton on the GPU or in
// its interpreter on CPU, and tensorrt.plugin needed only on a GPU.
func TestTRTDoctor(t *testing.T) {
	sdks := fakeCUDAAndTensorRT(t)
	coreOnly := map[string]string{"OPFORGE_TRT_CORE": "/core"}
	triton := harness.Module{Name: "triton", Version: "3.5.1"}
	noTriton := harness.Module{Name: "triton", Error: "ModuleNotFoundError: No module named 'triton'"}
	plugin := harness.Module{Name: "tensorrt.plugin", Version: "10.13.0", Facts: map[string]any{"tensorrt": "10.13.0"}}
	noPlugin := harness.Module{Name: "tensorrt.plugin", Error: "ModuleNotFoundError: No module named 'tensorrt'"}
	for _, c := range []struct {
		name, runner string
		vars, path   map[string]string
		py           harness.Python
		want         map[string]want
	}{
		{"trt on torch's GPU with the SDKs", "trt", sdks, nil, fakePython(torchGPU()), map[string]want{
			"GPU":      {harness.OK, "NVIDIA H100 80GB HBM3 (via torch.cuda)"},
			"cuda":     {harness.OK, sdks["CUDA_HOME"] + " (via $CUDA_HOME)"},
			"tensorrt": {harness.OK, sdks["TENSORRT_INCLUDE_DIR"] + " 10 (via $TENSORRT_INCLUDE_DIR)"},
			"nvcc":     {harness.OK, "13.0"},
			"cxx":      {harness.OK, "12.2"},
		}},
		{"trt sees the GPU through nvidia-smi when torch is a CPU build", "trt", sdks, map[string]string{"nvidia-smi": smiH100}, fakePython(torchCPU()), map[string]want{
			"GPU": {harness.OK, "NVIDIA A100-SXM4-40GB (via nvidia-smi -L)"},
		}},
		{"trt without GPU or SDKs", "trt", nil, nil, fakePython(torchCPU()), map[string]want{
			"GPU":      {harness.Missing, "no NVIDIA GPU (torch.cuda.is_available() is False, nvidia-smi is not on PATH); the C++ plugins run only on one"},
			"cuda":     {harness.Missing, "set CUDA_HOME"},
			"tensorrt": {harness.Missing, "set TENSORRT_INCLUDE_DIR"},
			"nvcc":     {harness.Missing, "not found"},
		}},
		{"trt with nvidia-smi listing nothing", "trt", nil, map[string]string{"nvidia-smi": "echo 'No devices were found'; exit 6"}, fakePython(torchCPU()), map[string]want{
			"GPU": {harness.Missing, "-L failed: exit status 6"},
		}},
		{"trt when torch does not import", "trt", nil, nil, fakePython(harness.Module{Name: "torch", Error: "ModuleNotFoundError: No module named 'torch'"}), map[string]want{
			"GPU": {harness.Missing, "torch does not import"},
		}},
		{"trt-python on CPU", "trt-python", nil, nil, fakePython(torchCPU(), triton, noPlugin), map[string]want{
			"GPU":             {harness.None, "Triton's interpreter runs the kernels on CPU"},
			"triton":          {harness.OK, "triton 3.5.1: runs Triton kernels in Triton's interpreter on CPU (no GPU)"},
			"tensorrt.plugin": {harness.None, "No module named 'tensorrt' (only needed on a GPU)"},
		}},
		{"trt-python on a GPU torch does not see", "trt-python", nil, map[string]string{"nvidia-smi": smiH100}, fakePython(torchCPU(), triton, noPlugin), map[string]want{
			"GPU":    {harness.None, "install a CUDA build of torch to run them on NVIDIA A100-SXM4-40GB"},
			"triton": {harness.OK, "interpreter on CPU"},
		}},
		{"trt-python on a GPU", "trt-python", nil, nil, fakePython(torchGPU(), triton, plugin), map[string]want{
			"GPU":             {harness.OK, "NVIDIA H100 80GB HBM3"},
			"triton":          {harness.OK, "triton 3.5.1: runs the Triton kernels on the GPU"},
			"tensorrt.plugin": {harness.OK, "imports (TensorRT 10.13.0)"},
		}},
		{"trt-python on a GPU without tensorrt.plugin or triton", "trt-python", nil, nil, fakePython(torchGPU(), noTriton, noPlugin), map[string]want{
			"triton":          {harness.Missing, "pip install triton"},
			"tensorrt.plugin": {harness.Missing, "pip install tensorrt"},
		}},
		{"trt-python with a stand-in core and no bindings", "trt-python", coreOnly, nil, fakePython(torchGPU(), triton, plugin), map[string]want{
			"tensorrt.plugin": {harness.Missing, "OPFORGE_TRT_BINDINGS is not"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkFindings(t, doctorOf(t, c.runner).Doctor(doctorEnv(t, c.vars, c.path), c.py), c.want)
		})
	}
}

// TestTRTPythonProbes: the Python plugins' probe imports tensorrt.plugin
// with the stand-in core first on sys.path, as the runner does.
func TestTRTPythonProbes(t *testing.T) {
	var found bool
	for _, p := range doctorOf(t, "trt-python").Probes() {
		if p.Module == "tensorrt.plugin" {
			found = len(p.Path) == 1 && p.Path[0] == "OPFORGE_TRT_CORE" && p.Facts["tensorrt"] != ""
		}
	}
	if !found {
		t.Errorf("no tensorrt.plugin probe under OPFORGE_TRT_CORE: %+v", doctorOf(t, "trt-python").Probes())
	}
}
