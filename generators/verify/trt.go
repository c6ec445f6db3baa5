package verify

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/targets/trt"
	"github.com/opforge/opforge/generators/toolchain"
)

//go:embed runners/trt_runner.cpp
var trtRunner []byte

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
	id := trt.PluginID(pkg, op)
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

func prepareTRT(o Options, pkg *ir.Package, tmp string) trtPrep {
	bo := o.buildOptions(pkg)
	plan, err := trt.BuildPlan(bo)
	if err != nil {
		return trtPrep{err: "opforge build trt: " + err.Error()}
	}
	if err := plan.Preflight(); err != nil {
		return trtPrep{skip: "the TensorRT plugin library cannot be built here: " + oneLine(err.Error())}
	}
	var log bytes.Buffer
	if _, err := plan.Run(context.Background(), &log, 0); err != nil {
		return trtPrep{err: "opforge build trt failed: " + oneLine(err.Error()) + ": " + lastLines(log.String(), 3)}
	}
	lib, _ := filepath.Abs(filepath.Join(bo.Build, "trt", pkg.Name, "lib"+pkg.Name+".so"))
	// The runner: the same host compiler, TensorRT headers and CUDA runtime the plan found.
	d, err := toolchain.Load(bo.Toolchains, "trt")
	if err != nil {
		return trtPrep{err: err.Error()}
	}
	env := bo.Env
	cudaSDK, trtSDK, cxx := env.ResolveSDK(*d.SDK("cuda")), env.ResolveSDK(*d.SDK("tensorrt")), env.ResolveToolOf(d, "cxx")
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
	out, err := exec.Command(cxx.Path, "-std=c++17", "-O1", "-Wno-deprecated-declarations", "-isystem", trtSDK.Path,
		"-isystem", filepath.Join(cudaSDK.Path, "include"), src, "-o", runner,
		"-L"+cudaLib, "-l:libcudart_static.a", "-ldl", "-lpthread", "-lrt").CombinedOutput()
	if err != nil {
		return trtPrep{err: "building the TensorRT runner failed: " + lastLines(string(out), 5)}
	}
	probe, err := exec.Command(runner, "--probe").CombinedOutput()
	if err != nil {
		return trtPrep{skip: "no NVIDIA GPU to run the TensorRT plugins on: " + strings.TrimSpace(string(probe))}
	}
	return trtPrep{library: lib, runner: runner}
}

// buildOptions are opforge build's options for one package's library, in
// the run's out/, build and toolchain directories.
func (o Options) buildOptions(pkg *ir.Package) buildplan.Options {
	bo := buildplan.DefaultOptions()
	bo.Out = o.Out
	if o.Build != "" {
		bo.Build = o.Build
	}
	if o.Toolchains != "" {
		bo.Toolchains = o.Toolchains
	}
	bo.Packages = []string{pkg.Name}
	return bo
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// trtPythonProblem says why the Python plugins cannot run here ("" : they
// can): tensorrt.plugin must import, from TensorRT itself or from the
// tensorrt bindings wheel's plain-Python plugin package
// (OPFORGE_TRT_BINDINGS) under a stand-in core (OPFORGE_TRT_CORE).
func trtPythonEnv() (env []string, problem string) {
	core, bindings := os.Getenv("OPFORGE_TRT_CORE"), os.Getenv("OPFORGE_TRT_BINDINGS")
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
