package harness

import (
	"os"
	"strings"

	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/toolchain"
)

// Options are what runners read of a verify run.
type Options struct {
	// Out is the generated tree (out/).
	Out string
	// Build is the build directory the libraries are built in ("" :
	// build); Toolchains the descriptors ("" : the built-in ones or
	// toolchains/).
	Build, Toolchains string
	// Env is the environment SDKs, tools and variables are read from
	// (zero: the process's; tests give their own).
	Env toolchain.Env
}

// Environment is o.Env, or the process's when o has none.
func (o Options) Environment() toolchain.Env {
	if o.Env.Getenv == nil {
		return toolchain.OSEnv()
	}
	return o.Env
}

// Runner is one implementation verify runs ops on, named by --target.
// Targets provide them (target.Verifier, listed by registry.Verifiers): the
// case machinery, the reference and the runner script's driver are
// verify's; what it takes to run a package's generated code is the
// runner's.
type Runner interface {
	// Name is the runner's --target name, unique across targets.
	Name() string
	// Runnable says whether the runner applies to op (applies) and, when
	// it cannot run the op here, why.
	Runnable(o Options, pkg *ir.Package, op *ir.Op) (why string, applies bool)
	// Prepare readies pkg's generated code for the runner script (building
	// what needs building under tmp, a directory of the run's own).
	Prepare(o Options, pkg *ir.Package, tmp string) Prepared
	// OpFields are what the runner script reads of op besides its cases,
	// by JSON key, or nil.
	OpFields(pkg *ir.Package, op *ir.Op) map[string]any
	// Implementation is the runner script's class that runs a case on
	// this runner, in a Python module of the target's own.
	Implementation() Implementation
}

// Implementation is a class of a target's verify module (the target embeds
// the module from its runners/ folder): verify writes File beside its
// harness (runner.py) and the harness makes Class(torch, job) of it. The
// module imports what the harness shares (Unavailable, NotTaken, load,
// short, as_list) from opforge_runner.
type Implementation struct {
	// File is the module's file name (a base name ending in .py, not
	// runner.py); Source its text.
	File   string
	Source []byte
	// Class is the class the harness instantiates.
	Class string
}

// DTypeNamer is a Runner whose implementation spells dtypes its own way:
// every case tensor it gets carries DTypeName(dtype) as "native".
type DTypeNamer interface {
	DTypeName(d ir.DType) string
}

// Prepared is a package ready to run: the "impl" the runner script reads
// and the environment it runs in; or why the runner cannot run it here
// (Skip) or failed to make it runnable (Err).
type Prepared struct {
	Impl      map[string]string
	Env       []string
	Skip, Err string
}

// BuildOptions are opforge build's options for one package's library, in
// the run's out/, build and toolchain directories.
func (o Options) BuildOptions(pkg *ir.Package) buildplan.Options {
	bo := buildplan.DefaultOptions()
	bo.Out = o.Out
	if o.Build != "" {
		bo.Build = o.Build
	}
	if o.Toolchains != "" {
		bo.Toolchains = o.Toolchains
	}
	bo.Env = o.Environment()
	bo.Packages = []string{pkg.Name}
	return bo
}

// OneLine joins s's words with single spaces.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// LastLines are s's last n lines, joined with " | ".
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// Interpreter is the Python a command runs: the --python flag's, else
// $OPFORGE_PYTHON, else python3. verify, doctor's default and import
// torch all follow this one rule.
func Interpreter(flag string) string {
	if flag != "" {
		return flag
	}
	if p := os.Getenv("OPFORGE_PYTHON"); p != "" {
		return p
	}
	return "python3"
}
