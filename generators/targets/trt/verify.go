package trt

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/opforge/opforge/generators/buildengine"
	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/ir"
)

//go:embed runners/trt_runner.cpp
var trtRunner []byte

// verifyModule holds the runner script's classes of the trt runners.
//
//go:embed runners/trt_verify.py
var verifyModule []byte

// verifySource is the module the runners load: the classes, then the
// harness's let_wrap_triton_interpret, which the interpreter runner calls
// so the reference of an op written with triton_op runs on the CPU.
var verifySource = slices.Concat(verifyModule, harness.TritonInterpret)

// implementation is class of runners/trt_verify.py.
func implementation(class string) harness.Implementation {
	return harness.Implementation{File: "trt_verify.py", Source: verifySource, Class: class}
}

// Verifiers are the trt target's verify runners: the C++ plugin library
// in TensorRT (trt) and the Python plugins (trt-python).
func (Target) Verifiers() []harness.Runner { return []harness.Runner{cppRunner{}, pythonRunner{}} }

// cppRunner runs the C++ plugins: opforge build trt's library, loaded by a
// small C++ runner built here, on a GPU.
type cppRunner struct{}

func (cppRunner) Name() string { return "trt" }

func (cppRunner) Implementation() harness.Implementation { return implementation("TRT") }

func (cppRunner) Runnable(_ harness.Options, _ *ir.Package, op *ir.Op) (string, bool) {
	if OpOptions(op) == nil {
		return "", false
	}
	return trtLayoutProblem(op), true
}

func (cppRunner) OpFields(pkg *ir.Package, op *ir.Op) map[string]any {
	return map[string]any{"trt": trtOpOf(pkg, op)}
}

func (cppRunner) Prepare(o harness.Options, pkg *ir.Package, tmp string) harness.Prepared {
	prep := prepareTRT(o, pkg, tmp)
	if prep.skip != "" || prep.err != "" {
		return harness.Prepared{Skip: prep.skip, Err: prep.err}
	}
	return harness.Prepared{Impl: map[string]string{"library": prep.library, "runner": prep.runner}}
}

// pythonRunner runs the Python plugins (tensorrt.plugin).
type pythonRunner struct{}

func (pythonRunner) Name() string { return "trt-python" }

func (pythonRunner) Implementation() harness.Implementation { return implementation("TRTPython") }

func (pythonRunner) Runnable(_ harness.Options, _ *ir.Package, op *ir.Op) (string, bool) {
	if t := OpOptions(op); t == nil || t.QDP == nil {
		return "", false
	}
	return trtLayoutProblem(op), true
}

func (pythonRunner) OpFields(pkg *ir.Package, op *ir.Op) map[string]any {
	return map[string]any{"trt": trtOpOf(pkg, op)}
}

// Prepare finds the package's module. Where tensorrt.plugin cannot run it
// (no GPU, or no TensorRT), the runner runs each plugin's Triton kernel in
// Triton's interpreter instead, so a TensorRT set-up problem only says
// why the GPU route was not taken.
func (pythonRunner) Prepare(o harness.Options, pkg *ir.Package, _ string) harness.Prepared {
	mod, err := pythonPluginModule(o.Out, pkg)
	if err != nil {
		return harness.Prepared{Skip: err.Error()}
	}
	e, problem := trtPythonEnv(o.Environment().Getenv)
	impl := map[string]string{"path": mod}
	if problem != "" {
		impl["trt_problem"] = problem
	}
	return harness.Prepared{Impl: impl, Env: e}
}

// trtOp is what the TensorRT runners need of an op: its plugin identity
// and how each param travels as a PluginField (ONNX's encoding: ints and
// bools as int32, floats as float32, strings and enums as NUL-terminated
// chars), by the param's identifier.
type trtOp struct {
	Name      string     `json:"name"`
	Namespace string     `json:"namespace"`
	Version   string     `json:"version"`
	ID        string     `json:"id"` // the Python plugin's "<namespace>::<name>"
	Fields    []trtField `json:"fields"`
}

type trtField struct {
	Ident string `json:"ident"`
	Name  string `json:"name"`
	Type  string `json:"type"` // "int32", "float32" or "char"
}

// trtLayoutProblem says why verify cannot run op's TensorRT plugins ("" :
// it can): the runners pass the opdef's inputs one to one (a case's absent
// trailing optional inputs left out, as a node without them), and the
// size-tensor outputs of data-dependent sizes (one kINT32 0-D output per
// size, in opdef order, after the opdef's outputs, as the trt target lays
// them out).
func trtLayoutProblem(op *ir.Op) string {
	for _, in := range op.Inputs {
		switch {
		case in.ShapeTensor:
			return "verify does not run TensorRT plugins with shape-tensor inputs yet"
		case in.Variadic:
			return "verify does not run TensorRT plugins with variadic inputs yet"
		}
	}
	for _, p := range op.Params {
		if p.Kind == ir.ParamTensor {
			return "verify does not run TensorRT plugins with tensor params yet"
		}
	}
	return ""
}

func trtOpOf(pkg *ir.Package, op *ir.Op) *trtOp {
	id := PluginID(pkg, op)
	t := &trtOp{Name: id.Name, Namespace: id.Namespace, Version: id.Version, Fields: []trtField{}}
	t.ID = id.Namespace + "::" + id.Name // as the Python plugin registers itself
	for _, p := range op.Params {
		f := trtField{Ident: p.Ident, Name: p.Name, Type: "int32"}
		switch {
		case p.Kind == ir.ParamString || p.Kind == ir.ParamEnum:
			f.Type = "char"
		case p.Kind != ir.ParamBool && len(p.DTypes) > 0 && p.DTypes[0].IsFloat():
			f.Type = "float32"
		}
		t.Fields = append(t.Fields, f)
	}
	return t
}

// trtPrep builds a package's plugin library (opforge build trt) and the
// runner, and probes for a GPU: the paths, or why the target is skipped
// (skip) or failed (err).
type trtPrep struct {
	library, runner string
	skip, err       string
}

func prepareTRT(o harness.Options, pkg *ir.Package, tmp string) trtPrep {
	if why := noGPU(); why != "" {
		return trtPrep{skip: why}
	}
	bo := o.BuildOptions(pkg)
	plan, err := BuildPlan(bo)
	if err != nil {
		return trtPrep{err: "opforge build trt: " + err.Error()}
	}
	if err := plan.Preflight(); err != nil {
		return trtPrep{skip: "the TensorRT plugin library cannot be built here: " + harness.OneLine(err.Error())}
	}
	var log bytes.Buffer
	if _, err := plan.Run(context.Background(), &log, 0); err != nil {
		return trtPrep{err: "opforge build trt failed: " + harness.OneLine(err.Error()) + ": " + harness.LastLines(log.String(), 3)}
	}
	lib, _ := filepath.Abs(filepath.Join(bo.Build, "trt", pkg.Name, "lib"+pkg.Name+".so"))
	// The runner: the same host compiler, TensorRT headers and CUDA runtime the plan found.
	d, err := LoadToolchain(bo.Toolchains)
	if err != nil {
		return trtPrep{err: err.Error()}
	}
	env := bo.Env
	cudaSDK, trtSDK, cxx := env.ResolveSDK(*d.SDK("cuda")), env.ResolveSDK(*d.SDK("tensorrt")), env.ResolveToolOf(d.Descriptor, "cxx")
	cudaLib := ""
	for _, dir := range []string{"lib64", "lib", "targets/x86_64-linux/lib"} {
		if _, err := os.Stat(filepath.Join(cudaSDK.Path, dir, "libcudart_static.a")); err == nil {
			cudaLib = filepath.Join(cudaSDK.Path, dir)
			break
		}
	}
	src := filepath.Join(tmp, "opforge_trt_runner.cpp")
	runner := filepath.Join(tmp, "opforge_trt_runner")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return trtPrep{err: err.Error()}
	}
	if err := os.WriteFile(src, trtRunner, 0o644); err != nil {
		return trtPrep{err: err.Error()}
	}
	out, err := harness.CombinedOutput(buildengine.DefaultUnitTimeout, "building the TensorRT runner", cxx.Path, "-std=c++17", "-O1", "-Wno-deprecated-declarations", "-isystem", trtSDK.Path,
		"-isystem", filepath.Join(cudaSDK.Path, "include"), src, "-o", runner,
		"-L"+cudaLib, "-l:libcudart_static.a", "-ldl", "-lpthread", "-lrt")
	var killed *harness.TimedOut
	switch {
	case errors.As(err, &killed):
		return trtPrep{err: err.Error()}
	case err != nil:
		return trtPrep{err: "building the TensorRT runner failed: " + harness.LastLines(string(out), 5)}
	}
	probe, err := harness.CombinedOutput(runnerProbeTimeout, "probing for a GPU with the TensorRT runner", runner, "--probe")
	switch {
	case errors.As(err, &killed):
		return trtPrep{err: err.Error()} // a hanging driver is no answer: not a skip
	case err != nil:
		return trtPrep{skip: "no NVIDIA GPU to run the TensorRT plugins on: " + strings.TrimSpace(string(probe))}
	}
	return trtPrep{library: lib, runner: runner}
}

// noGPU says why no NVIDIA GPU can be here ("" : one may be), so that a
// machine without one skips the C++ plugins before spending a build on
// them: on Linux the driver's device node and proc entry, and
// CUDA_VISIBLE_DEVICES hiding every device.
func noGPU() string {
	if v, set := os.LookupEnv("CUDA_VISIBLE_DEVICES"); set && (strings.TrimSpace(v) == "" || strings.TrimSpace(v) == "-1") {
		return "no NVIDIA GPU: CUDA_VISIBLE_DEVICES hides every device; the C++ plugins run only on a GPU (opforge build trt compiles them)"
	}
	if runtime.GOOS != "linux" {
		return ""
	}
	for _, p := range []string{"/dev/nvidiactl", "/proc/driver/nvidia/version"} {
		if _, err := os.Stat(p); err == nil {
			return ""
		}
	}
	return "no NVIDIA GPU here (no /dev/nvidiactl, no NVIDIA driver): the C++ plugins run only on a GPU (opforge build trt compiles them)"
}

// trtPythonEnv says why the Python plugins cannot run here ("" : they
// can): tensorrt.plugin must import, from TensorRT itself or from the
// tensorrt bindings wheel's plain-Python plugin package
// (OPFORGE_TRT_BINDINGS) under a stand-in core (OPFORGE_TRT_CORE).
func trtPythonEnv(getenv func(string) string) (env []string, problem string) {
	core, bindings := getenv("OPFORGE_TRT_CORE"), getenv("OPFORGE_TRT_BINDINGS")
	switch {
	case core != "" && bindings == "":
		return nil, "OPFORGE_TRT_CORE is set but OPFORGE_TRT_BINDINGS is not: set it to the directory holding the tensorrt_bindings package of a tensorrt-cu1x-bindings wheel"
	case core != "":
		if _, err := os.Stat(filepath.Join(bindings, "tensorrt_bindings", "plugin", "__init__.py")); err != nil {
			return nil, "OPFORGE_TRT_BINDINGS: " + err.Error()
		}
		return []string{"OPFORGE_VERIFY_TRT_CORE=" + core}, ""
	}
	return nil, ""
}

// pythonPluginModule finds the package's generated Python plugin module.
func pythonPluginModule(out string, pkg *ir.Package) (string, error) {
	dir := filepath.Join(out, "trt", pkg.Name, "python")
	mods, _ := filepath.Glob(filepath.Join(dir, "*.py"))
	if len(mods) != 1 {
		return "", fmt.Errorf("no TensorRT Python plugin module in %s (run opforge gen)", filepath.ToSlash(dir))
	}
	return mods[0], nil
}

// runnerProbeTimeout bounds the runner's GPU probe: CUDA initialises in
// seconds; a wedged driver never answers.
const runnerProbeTimeout = 2 * time.Minute
