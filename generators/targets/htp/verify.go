package htp

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
)

//go:embed runners/htp_qnn.py
var htpRunner []byte

// verifyModule holds the runner script's classes of the htp runners.
//
//go:embed runners/htp_verify.py
var verifyModule []byte

// implementation is class of runners/htp_verify.py.
func implementation(class string) harness.Implementation {
	return harness.Implementation{File: "htp_verify.py", Source: verifyModule, Class: class}
}

// Verifiers are the htp target's verify runners: the ExecuTorch ops in
// eager mode (executorch), the x86 op package in Qualcomm's HTP backend
// (htp) and each op's impl function in the host harness (htp-host).
func (Target) Verifiers() []harness.Runner {
	return []harness.Runner{executorchRunner{}, qnnRunner{}, hostRunner{}}
}

// executorchRunner runs the generated ExecuTorch module's ops.
type executorchRunner struct{}

func (executorchRunner) Name() string { return "executorch" }

func (executorchRunner) Implementation() harness.Implementation { return implementation("ExecuTorch") }

func (executorchRunner) Runnable(_ harness.Options, pkg *ir.Package, op *ir.Op) (string, bool) {
	if htpopt.OfOp(op) == nil || !htpopt.OfPackage(pkg).ExecuTorch {
		return "", false
	}
	return "", true
}

func (executorchRunner) OpFields(*ir.Package, *ir.Op) map[string]any { return nil }

func (executorchRunner) Prepare(o harness.Options, pkg *ir.Package, _ string) harness.Prepared {
	mod, err := executorchModule(o.Out, pkg)
	if err != nil {
		return harness.Prepared{Skip: err.Error()}
	}
	return harness.Prepared{Impl: map[string]string{"path": mod}}
}

// executorchModule finds the package's generated ExecuTorch module.
func executorchModule(out string, pkg *ir.Package) (string, error) {
	dir := filepath.Join(out, "htp", pkg.Name, "executorch")
	mods, _ := filepath.Glob(filepath.Join(dir, "*.py"))
	if len(mods) != 1 {
		return "", fmt.Errorf("no ExecuTorch module in %s (run opforge gen)", filepath.ToSlash(dir))
	}
	return mods[0], nil
}

// qnnRunner runs the op package, built for x86, in onnxruntime-qnn's HTP
// backend.
type qnnRunner struct{}

func (qnnRunner) Name() string { return "htp" }

func (qnnRunner) Implementation() harness.Implementation { return implementation("HTP") }

func (qnnRunner) Runnable(_ harness.Options, _ *ir.Package, op *ir.Op) (string, bool) {
	if htpopt.OfOp(op) == nil {
		return "", false
	}
	if len(op.DataDependent) > 0 {
		return "verify does not run HTP ops with data-dependent output sizes yet", true
	}
	return "", true
}

func (qnnRunner) OpFields(_ *ir.Package, op *ir.Op) map[string]any {
	return map[string]any{"htp": htpOpOf(op)}
}

func (qnnRunner) Prepare(o harness.Options, pkg *ir.Package, tmp string) harness.Prepared {
	prep := prepareHTP(o, pkg, tmp)
	if prep.skip != "" || prep.err != "" {
		return harness.Prepared{Skip: prep.skip, Err: prep.err}
	}
	return harness.Prepared{Impl: map[string]string{"python": prep.python, "script": prep.script, "library": prep.library,
		"interface": pkg.Name + "InterfaceProvider", "domain": htpDomain(pkg), "mismatch": prep.mismatch, "engine": prep.engine}}
}

// htpOp is what the HTP runner needs of an op: each param's attribute
// name (the opdef's) by identifier, and whether it is a float (JSON
// cannot tell 1.0 from 1).
type htpOp struct {
	Params []htpParam `json:"params"`
}

type htpParam struct {
	Ident string `json:"ident"`
	Name  string `json:"name"`
	Float bool   `json:"float"`
	// DType is the param's first QNN dtype (the host harness's element
	// type of the param tensor); "" for none.
	DType string `json:"dtype"`
}

func htpOpOf(op *ir.Op) *htpOp {
	h := &htpOp{Params: []htpParam{}}
	for _, p := range op.Params {
		hp := htpParam{Ident: p.Ident, Name: p.Name}
		if len(p.DTypes) > 0 {
			hp.Float, hp.DType = p.DTypes[0].IsFloat(), string(p.DTypes[0])
		}
		h.Params = append(h.Params, hp)
	}
	return h
}

// htpPrep is a package's x86 op package library and the Python that runs
// it in Qualcomm's HTP backend, or why the target is skipped (skip) or
// failed (err). mismatch, when set, says the package's QNN headers are not
// the backend's version: a failed run is then reported as a skip naming
// both, because an op package is bound to its backend's C++ ABI.
type htpPrep struct {
	python, script, library string
	engine                  string
	mismatch                string
	skip, err               string
}

func prepareHTP(o harness.Options, pkg *ir.Package, tmp string) htpPrep {
	python := os.Getenv("OPFORGE_QNN_PYTHON")
	if python == "" {
		return htpPrep{skip: "OPFORGE_QNN_PYTHON is not set: point it at a Python with onnxruntime, onnxruntime-qnn (Qualcomm's x86 HTP backend), onnx and numpy"}
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return htpPrep{err: err.Error()}
	}
	script := filepath.Join(tmp, "htp_qnn.py")
	if err := os.WriteFile(script, htpRunner, 0o644); err != nil {
		return htpPrep{err: err.Error()}
	}
	out, err := harness.CombinedOutput(2*time.Minute, "reading the QNN backend's versions", python, script, "versions")
	fields := strings.Fields(string(out))
	if err != nil || len(fields) != 4 {
		return htpPrep{skip: fmt.Sprintf("OPFORGE_QNN_PYTHON=%s cannot load onnxruntime and onnxruntime-qnn: %s", python, harness.LastLines(string(out), 2))}
	}
	backendQNN := fields[2]

	bo := o.BuildOptions(pkg)
	bo.Variants = []string{"x86"}
	plan, err := BuildPlan(bo)
	if err != nil {
		return htpPrep{err: "opforge build htp --arch x86: " + err.Error()}
	}
	if err := plan.Preflight(); err != nil {
		return htpPrep{skip: "the x86 HTP op package cannot be built here: " + harness.OneLine(err.Error())}
	}
	var log bytes.Buffer
	if _, err := plan.Run(context.Background(), &log, 0); err != nil {
		return htpPrep{err: "opforge build htp --arch x86 failed: " + harness.OneLine(err.Error()) + ": " + harness.LastLines(log.String(), 3)}
	}
	lib, _ := filepath.Abs(filepath.Join(bo.Build, "htp", pkg.Name, "x86_64-linux-clang", "libQnn"+pkg.Name+".so"))
	if _, err := os.Stat(lib); err != nil {
		return htpPrep{err: "opforge build htp --arch x86 left no library: " + err.Error()}
	}
	p := htpPrep{python: python, script: script, library: lib,
		engine: fmt.Sprintf("QNN HTP backend %s (x86, onnxruntime-qnn %s, onnxruntime %s)", backendQNN, fields[1], fields[0])}
	if d, err := LoadToolchain(bo.Toolchains); err == nil {
		// The headers' version as the toolchain descriptor reads it (QnnSdkBuildId.h).
		found := bo.Env.ResolveSDK(*d.SDK("qnn"))
		p.mismatch = headerMismatch(found.Version, found.Path, backendQNN, fields[3])
	}
	return p
}

// headerMismatch says, when the QNN headers at root are not the backend's
// version, which two versions were found where and where headers of the
// backend's version come from; "" when they match.
func headerMismatch(headers, root, backend, backendLib string) string {
	if headers != "" && majorMinor(headers) == majorMinor(backend) {
		return ""
	}
	if headers == "" {
		headers = "unknown"
	}
	return fmt.Sprintf("the package is built with QNN %s headers (QNN_SDK_ROOT=%s, include/QNN/QnnSdkBuildId.h) and the backend (onnxruntime-qnn's libQnnHtp.so, %s) is QNN %s: an op package runs only in the backend of its headers' version; point QNN_SDK_ROOT at a tree whose include/QNN holds the QNN %s headers (the QAIRT SDK %s, or a public copy of its include/QNN of that build id)",
		headers, root, backendLib, backend, backend, backend)
}

// htpDomain is the ONNX domain the runner's node uses: the package's, or a
// domain of its own when the package has the ONNX one.
func htpDomain(pkg *ir.Package) string {
	if onnx.IsDefaultDomain(pkg.Domain) {
		return "opforge.verify"
	}
	return pkg.Domain
}

func majorMinor(v string) string {
	p := strings.SplitN(v, ".", 3)
	if len(p) < 2 {
		return v
	}
	return p[0] + "." + p[1]
}
