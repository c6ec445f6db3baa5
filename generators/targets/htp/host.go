package htp

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
	"github.com/opforge/opforge/generators/toolchain"
)

// hostHeader is the host harness's stand-in for the HTP op package API the
// generated op sources use; hostMain its driver (runners/host).
//
//go:embed runners/host/opforge_htp_host.h
var hostHeader []byte

//go:embed runners/host/main.cpp
var hostMain []byte

// hostIncludes are the headers a generated op source includes; in the
// harness each is the stand-in.
var hostIncludes = []string{
	"HTP/core/constraints.h",
	"HTP/core/op_package_feature_support.h",
	"HTP/core/op_register_ext.h",
	"HTP/core/optimize.h",
	"HTP/core/simple_reg.h",
	"QnnOpPackage.h",
}

// hostRunner runs each op's impl function (src/ops/<Op>.cpp as the user
// wrote it) compiled with g++ against the host harness: it checks the
// kernel's arithmetic without Qualcomm's headers or backend, not the op
// package (registration, layouts and quantization are the backend's).
type hostRunner struct{}

func (hostRunner) Name() string { return "htp-host" }

func (hostRunner) Implementation() harness.Implementation { return implementation("HTPHost") }

func (hostRunner) Runnable(_ harness.Options, _ *ir.Package, op *ir.Op) (string, bool) {
	return "", htpopt.OfOp(op) != nil
}

func (hostRunner) OpFields(_ *ir.Package, op *ir.Op) map[string]any {
	return map[string]any{"htp": htpOpOf(op)}
}

// hostCXX is the host harness's compiler (OPFORGE_HOST_CXX, else g++),
// its path, and why it cannot run ("" when it can).
func hostCXX(env toolchain.Env) (cxx, path, missing string) {
	cxx = env.Getenv("OPFORGE_HOST_CXX")
	if cxx == "" {
		cxx = "g++"
	}
	path, err := env.LookPath(cxx)
	if err != nil {
		return cxx, "", fmt.Sprintf("the host harness's compiler %s is not installed (set OPFORGE_HOST_CXX to a C++17 g++ with _Float16)", cxx)
	}
	return cxx, path, ""
}

func (hostRunner) Probes() []harness.Probe { return nil }

// Doctor: the harness needs its compiler, and torch for the reference.
func (hostRunner) Doctor(o harness.Options, py harness.Python) []harness.Finding {
	var fs []harness.Finding
	if _, path, why := hostCXX(o.Environment()); why != "" {
		fs = append(fs, harness.Finding{Status: harness.Missing, Name: "host compiler", Detail: why, Fix: "apt-get install g++"})
	} else {
		version, _ := harness.CombinedOutput(time.Minute, "reading the host compiler's version", path, "-dumpfullversion")
		fs = append(fs, harness.Finding{Status: harness.OK, Name: "host compiler", Detail: path + " " + strings.TrimSpace(string(version)) + ": compiles each op's impl against opforge's stand-in of the HTP tensor API"})
	}
	if torch := py.Module("torch"); !torch.OK() {
		fs = append(fs, harness.Finding{Status: harness.Missing, Name: "torch", Detail: "does not import: " + torch.Error, Fix: "pip install torch into verify's Python (the reference)"})
	}
	return fs
}

func (hostRunner) Prepare(o harness.Options, pkg *ir.Package, tmp string) harness.Prepared {
	cxx, _, why := hostCXX(o.Environment())
	if why != "" {
		return harness.Prepared{Skip: why}
	}
	dir := filepath.Join(tmp, "htp-host")
	if err := writeHostTree(dir); err != nil {
		return harness.Prepared{Err: err.Error()}
	}
	main := filepath.Join(dir, "main.o")
	if out, err := hostCompile(cxx, dir, filepath.Join(dir, "main.cpp"), main); err != nil {
		return harness.Prepared{Err: "the host harness's driver does not compile: " + harness.LastLines(out, 3)}
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return harness.Prepared{Err: err.Error()}
	}
	for _, op := range pkg.Ops {
		if htpopt.OfOp(op) != nil {
			buildHostOp(cxx, dir, main, filepath.Join(o.Out, "htp", pkg.Name, "src", "ops", op.Name+".cpp"), filepath.Join(bin, op.Name))
		}
	}
	version, _ := harness.CombinedOutput(time.Minute, "reading the host compiler's version", cxx, "-dumpfullversion")
	engine := fmt.Sprintf("host harness (%s %s), QNN HTP tensor API stand-in", filepath.Base(cxx), strings.TrimSpace(string(version)))
	return harness.Prepared{Impl: map[string]string{"bin": bin, "engine": engine}}
}

// writeHostTree writes the harness's sources and, for each header a
// generated op source includes, a header of that name including the
// stand-in.
func writeHostTree(dir string) error {
	files := map[string][]byte{"opforge_htp_host.h": hostHeader, "main.cpp": hostMain}
	for _, h := range hostIncludes {
		files[filepath.Join("include", h)] = []byte("// opforge's host harness: the stand-in for " + h + ".\n#include \"opforge_htp_host.h\"\n")
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// buildHostOp compiles one op source and links it with the driver into
// exe; when it does not compile, exe.error holds why, its first errors
// (the runner fails the op's cases with it, naming a stand-in's missing
// API as the possible cause).
func buildHostOp(cxx, dir, main, src, exe string) {
	obj := exe + ".o"
	out, err := hostCompile(cxx, dir, src, obj)
	if err == nil {
		var link []byte
		link, err = harness.CombinedOutput(harness.ToolTimeout, "linking the host harness", cxx, main, obj, "-o", exe)
		out = string(link)
	}
	if err != nil {
		_ = os.WriteFile(exe+".error", []byte(firstErrors(out, 3)), 0o644)
	}
}

// firstErrors are the compiler's first n "error:" lines (the rest of its
// output when it has none), joined with " | ".
func firstErrors(out string, n int) string {
	var errs []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "error:") && len(errs) < n {
			errs = append(errs, strings.TrimSpace(line))
		}
	}
	if len(errs) == 0 {
		return harness.LastLines(out, 6)
	}
	return strings.Join(errs, " | ")
}

func hostCompile(cxx, dir, src, obj string) (string, error) {
	out, err := harness.CombinedOutput(harness.ToolTimeout, "compiling the op for the host harness", cxx, "-std=c++17", "-O1", "-g", "-Wall", "-I"+dir, "-I"+filepath.Join(dir, "include"), "-c", src, "-o", obj)
	return string(out), err
}
