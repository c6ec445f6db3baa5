//go:build mage

// opforge's build targets. Run them with `go tool mage <target>` (mage is a
// tool dependency in go.mod, so nothing needs installing); `go tool mage -l`
// lists them.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/magefile/mage/mg"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/cli"
	"github.com/opforge/opforge/generators/wheel"
)

// Default target when none is named.
var Default = Check

// Check validates every op definition under opdefs/ (all diagnostics, as
// path:line:col) and fails when the checked-in out/ tree differs from what
// they generate: changed, missing or extra files.
func Check() error { return opforge("check") }

// Gen regenerates out/ from opdefs/: only changed files are written, user
// code between opforge:begin/end markers is kept, and nothing is written
// when any error was found. GEN_FORCE=1 overwrites hand edits outside user
// regions (gen --force) instead of stopping.
func Gen() error {
	if os.Getenv("GEN_FORCE") == "1" {
		return opforge("gen", "--force")
	}
	return opforge("gen")
}

// opforge runs one opforge command in-process.
func opforge(args ...string) error {
	if code := cli.Main(args, os.Stdout, os.Stderr); code != 0 {
		return fmt.Errorf("opforge %s failed", args[0])
	}
	return nil
}

// Update refreshes every golden file after an intended change: the tests
// of each package whose tests import generators/golden (the one -update
// flag) run with -update and rewrite testdata/'s goldens, then gen
// regenerates out/, the shipped opdefs' golden tree that check holds to
// opdefs/.
func Update() error {
	pkgs, err := goldenPackages()
	if err != nil {
		return err
	}
	args := append(append([]string{"test", "-count=1"}, pkgs...), "-update")
	if err := run(nil, "go", args...); err != nil {
		return err
	}
	return Gen()
}

// goldenModule is the import path of the package holding -update.
const goldenModule = "github.com/opforge/opforge/generators/golden"

// goldenPackages are the packages whose tests (internal or external)
// import generators/golden, as go list reads their imports.
func goldenPackages() ([]string, error) {
	out, err := output("go", "list", "-f", "{{.ImportPath}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./...")
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 1 && slices.Contains(fields[1:], goldenModule) {
			pkgs = append(pkgs, fields[0])
		}
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no package's tests import %s: nothing to update", goldenModule)
	}
	return pkgs, nil
}

// Build compiles the generated packages with the vendor toolchains into
// build/: a preflight first names anything missing, then only changed
// units rebuild, in parallel.
type Build mg.Namespace

// Htp builds every HTP op package for x86 (simulator), aarch64 and every
// Hexagon arch; HTP_ARCH=v73 (or a comma list: x86,v75) builds just those.
func (Build) Htp() error {
	args := []string{"build", "htp"}
	if a := os.Getenv("HTP_ARCH"); a != "" {
		args = append(args, "--arch", a)
	}
	return opforge(args...)
}

// Trt builds every TensorRT plugin library: kernels with nvcc for the
// configured GPU architectures, plugin sources, the shared library.
func (Build) Trt() error { return opforge("build", "trt") }

// Aipu compiles every AIPU kernel with aipuocc per Compass target and lays
// out the plugin directories for AIPUPLUGIN_PATH.
func (Build) Aipu() error { return opforge("build", "aipu") }

// All builds every target.
func (Build) All() error { return opforge("build", "all") }

// Verify runs every op on every target it can run here against the op's
// reference (opforge verify); a skip is never a pass.
func Verify() error { return opforge("verify") }

// Doctor prints, per target, where every SDK and tool was found or exactly
// what is missing and how to provide it, and the compiler launcher
// (OPFORGE_COMPILER_LAUNCHER) compiles run through.
func Doctor() error { return opforge("doctor") }

// Bench times generation (cold, no-op, one op changed) and a no-op build
// over synthetic packages of 10, 100 and 1,000 ops, beside the time cp -r
// takes to copy the generated tree, and a team's cold TensorRT build
// through a shared ccache on redis-server (when they and the TensorRT
// headers are there). OPFORGE_BENCH_WORK=DIR measures in DIR (a tmpfs such
// as /dev/shm) instead of build/.
func Bench() error {
	// Static, as the wheels ship it (CGO_ENABLED=0): without the dynamic
	// loader and cgo's thread start, a no-op build is about a millisecond
	// (a tenth) faster, and that is what users run.
	env := append(os.Environ(), "CGO_ENABLED=0")
	for _, cmd := range []string{"opforge", "opforge-bench"} {
		if err := run(env, "go", "build", "-o", "build/"+cmd, "./generators/cmd/"+cmd); err != nil {
			return err
		}
	}
	args := []string{"--opforge", "build/opforge"}
	if dir := os.Getenv("OPFORGE_BENCH_WORK"); dir != "" {
		// Measured there instead of build/: a tmpfs (/dev/shm) takes the
		// disk's noise out of the ratios, as issue 30's floor is taken.
		args = append(args, "--work", dir)
	}
	return run(nil, "build/opforge-bench", args...)
}

// Wheel builds one Python wheel per platform Go cross-compiles opforge
// to (Linux, macOS and Windows on x86-64 and arm64) into build/wheels/: each
// carries the executable, which pip puts on the environment's PATH, as
// ruff and uv ship theirs. Install the one for this machine with
// `pip install --no-index --find-links build/wheels opforge`.
func Wheel() error {
	version, err := wheelVersion()
	if err != nil {
		return err
	}
	stamp, err := output("git", "log", "-1", "--format=%ct")
	if err != nil {
		return err
	}
	seconds, err := strconv.ParseInt(strings.TrimSpace(stamp), 10, 64)
	if err != nil {
		return fmt.Errorf("commit time %q: %v", stamp, err)
	}
	dir := filepath.Join("build", "wheels")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range wheel.Platforms {
		bin := filepath.Join("build", "wheel-bin", p.GOOS+"-"+p.GOARCH, p.Executable("opforge"))
		env := append(os.Environ(), "GOOS="+p.GOOS, "GOARCH="+p.GOARCH, "CGO_ENABLED=0")
		if err := run(env, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./generators/cmd/opforge"); err != nil {
			return err
		}
		exe, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		s := wheel.Spec{
			Name: "opforge", Version: version, Platform: p, Executable: exe,
			Summary:  "Declarative custom-operator build system: one op definition, TensorRT plugins, QNN HTP op packages and Compass AIPU plugins",
			Homepage: "https://github.com/opforge/opforge",
			Modified: time.Unix(seconds, 0),
		}
		var whl bytes.Buffer
		if err := wheel.Write(&whl, s); err != nil {
			return err
		}
		// Atomically: an interrupted run leaves no truncated wheel for pip.
		if _, err := atomicfile.Write(filepath.Join(dir, s.FileName()), whl.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Println(filepath.Join(dir, s.FileName()))
	}
	return nil
}

// wheelVersion is the PEP 440 version of this checkout (see
// wheel.Version): the release tag, or the next release's .devN.
func wheelVersion() (string, error) {
	var d wheel.Describe
	if tag, err := output("git", "describe", "--tags", "--abbrev=0", "--match", "v[0-9]*"); err == nil {
		d.Tag = strings.TrimSpace(tag)
	}
	rangeArg := "HEAD"
	if d.Tag != "" {
		rangeArg = d.Tag + "..HEAD"
	}
	count, err := output("git", "rev-list", "--count", rangeArg)
	if err != nil {
		return "", err
	}
	if d.Commits, err = strconv.Atoi(strings.TrimSpace(count)); err != nil {
		return "", fmt.Errorf("git rev-list --count: %q", count)
	}
	rev, err := output("git", "rev-parse", "--short", "HEAD")
	if err != nil {
		return "", err
	}
	d.Revision = strings.TrimSpace(rev)
	status, err := output("git", "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return "", err
	}
	d.Dirty = strings.TrimSpace(status) != ""
	return wheel.Version(d)
}

// Clean removes the build directory (artifacts, caches, the test venv stays).
func Clean() error { return os.RemoveAll("build") }

// venvDir holds the Python test dependencies (git-ignored, reused across
// runs; rebuilt only when testdata/requirements.txt changes).
const venvDir = ".venv"

// Test prepares the Python test environment, runs every Go test (SDK-gated
// ones skip with a reason unless their environment variables are set) and
// runs each fuzz target briefly.
func Test() error {
	env, err := testEnv()
	if err != nil {
		return err
	}
	if err := run(env, "go", "vet", "./..."); err != nil {
		return err
	}
	if err := run(env, "go", "test", "-count=1", "./..."); err != nil {
		return err
	}
	return Fuzz()
}

// testEnv installs what the tests need (Debian packages as root, the
// venv) and returns the environment that points them at it.
func testEnv() ([]string, error) {
	if err := ensureDebianPackages(); err != nil {
		return nil, err
	}
	python, err := ensureVenv()
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(), "OPFORGE_PYTHON="+python)
	if os.Getenv("OPFORGE_TRT_BINDINGS") == "" {
		// The tensorrt bindings wheel (requirements-nodeps.txt) holds the real
		// tensorrt.plugin the Python plugin modules run against.
		site, err := output(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
		if err != nil {
			return nil, err
		}
		env = append(env, "OPFORGE_TRT_BINDINGS="+strings.TrimSpace(site))
	}
	if os.Getenv("OPFORGE_EXECUTORCH_PYTHON") == "" {
		// executorch 1.0 (requirements-nodeps.txt), the release of the
		// venv's torch: the ExecuTorch lowering test's builder and calibrate
		// stages.
		env = append(env, "OPFORGE_EXECUTORCH_PYTHON="+python)
	}
	if os.Getenv("OPFORGE_TRT_CORE") == "" {
		// verify's trt-python runner uses the same stand-in core as the tests
		// of the Python plugins (it runs only where a GPU is).
		core, err := filepath.Abs(filepath.Join("testdata", "trt", "qdp", "core"))
		if err != nil {
			return nil, err
		}
		env = append(env, "OPFORGE_TRT_CORE="+core)
	}
	return env, nil
}

// cpuKernelTargets are the verify targets whose kernels run on a machine
// without a GPU, in real engines the test venv and Debian's packages
// provide: the Python plugins' Triton kernels in Triton's interpreter,
// the Compass OpenCL kernels on PoCL, the HTP implementations compiled
// with g++ against the host harness.
var cpuKernelTargets = []string{"trt-python", "aipu-opencl", "htp-host"}

// VerifyCPU runs the shipped ops' kernels that a CPU can run, in the
// engines the test environment installs (opforge verify --strict: a case
// that cannot run here fails too, so a runner that lost its engine cannot
// pass quietly). It reads opdefs/ and out/, so it is CI's second step, not
// part of test: the tests never depend on what opdefs/ and out/ hold.
func VerifyCPU() error {
	env, err := testEnv()
	if err != nil {
		return err
	}
	return run(env, "go", "run", "./generators/cmd/opforge", "verify", "--strict", "--target", strings.Join(cpuKernelTargets, ","))
}

// fuzzTargets are the loaders' fuzz tests (opdef YAML and XML, shape
// expressions, ONNX models), random free text through every generator
// and the escapers, the one holding the quick schema check to the
// reference validator's verdicts, the writer's property test (random
// sequences of opdef and user edits, interrupted and concurrent gens, one
// per seed), the region marker matcher held to its regular expression,
// and the compiled templates held to text/template's output and errors:
// package -> fuzz function.
var fuzzTargets = [][2]string{
	{"./generators/yamldef", "FuzzLoadYAML"},
	{"./generators/yamldef", "FuzzQuickSchema"},
	{"./generators/yamldef", "FuzzParseSliced"},
	{"./generators/targets/htp/qnnxml", "FuzzLoadXML"},
	{"./generators/shapeexpr", "FuzzParse"},
	{"./generators/onnx", "FuzzRead"},
	{"./generators/onnximport", "FuzzImport"},
	{"./generators/writer", "FuzzWriterSequence"},
	{"./generators/gen", "FuzzHostileText"},
	{"./generators/escape", "FuzzEscapers"},
	{"./generators/regions", "FuzzMarker"},
	{"./generators/regions", "FuzzMerge"},
	{"./generators/writer", "FuzzMarshalManifest"},
	{"./generators/writer", "FuzzUnmarshalManifest"},
	{"./generators/tmplexec", "FuzzCompiledMatchesTextTemplate"},
}

// Fuzz runs each loader fuzz target for FUZZTIME (default 10s). Inputs
// are not minimized (-fuzzminimizetime=0), so a crasher is reported and
// written sooner, only unminimized.
//
// Go 1.26's fuzz coordinator can fail a target that found nothing with a
// bare "context deadline exceeded" as the fuzz time ends: its deadline
// races a worker still running an input (golang/go#75804, fixed in Go
// 1.27), and a loaded machine widens the window. Such a run, and only
// such a run (that one line as the failure, no new input written to the
// target's testdata/fuzz), is run again, up to fuzzRaceRetries times;
// anything else fails at once.
func Fuzz() error {
	d := os.Getenv("FUZZTIME")
	if d == "" {
		d = "10s"
	}
	for _, t := range fuzzTargets {
		for try := 0; ; try++ {
			raced, err := fuzzOnce(t[0], t[1], d)
			if err == nil {
				break
			}
			if !raced || try == fuzzRaceRetries {
				return err
			}
			fmt.Printf("%s: the Go fuzz coordinator's end-of-time race (golang/go#75804), no failing input written: running it again\n", t[1])
		}
	}
	return nil
}

// fuzzRaceRetries is how often a target that only hit the coordinator's
// race runs again.
const fuzzRaceRetries = 2

// fuzzOnce runs one fuzz target, its output shown as it comes. raced
// reports a failure that is only the coordinator's race: the output's
// failure is "context deadline exceeded" alone and the target's corpus
// folder gained no file.
func fuzzOnce(pkg, name, fuzztime string) (raced bool, err error) {
	corpus := filepath.Join(pkg, "testdata", "fuzz", name)
	before, _ := os.ReadDir(corpus)
	var out bytes.Buffer
	args := []string{"test", "-run=^$", "-fuzz=^" + name + "$", "-fuzztime=" + fuzztime, "-fuzzminimizetime=0", pkg}
	cmd := exec.Command("go", args...)
	cmd.Stdout = io.MultiWriter(os.Stdout, &out)
	cmd.Stderr = io.MultiWriter(os.Stderr, &out)
	fmt.Printf("$ go %v\n", args)
	if err = cmd.Run(); err == nil {
		return false, nil
	}
	after, _ := os.ReadDir(corpus)
	return len(after) == len(before) && onlyDeadline(out.String(), name), err
}

// onlyDeadline reports whether the one failure in a fuzz run's output is
// the target's bare "context deadline exceeded".
func onlyDeadline(output, name string) bool {
	i := strings.Index(output, "--- FAIL: "+name+" (")
	if i < 0 || strings.Count(output, "--- FAIL") != 1 {
		return false
	}
	rest := strings.SplitN(output[i:], "\n", 3)
	return len(rest) >= 2 && strings.TrimSpace(rest[1]) == "context deadline exceeded"
}

// debianPackage is a Debian package the tests use and how to tell it is
// there: a command on PATH, or for a package with no command a file it
// installs (any of Files, which may be globs).
type debianPackage struct {
	Name    string
	Command string
	Files   []string
}

// present reports whether the package's command or one of its files is
// there (so another distribution's package serves as well).
func (p debianPackage) present() bool {
	if p.Command != "" {
		_, err := exec.LookPath(p.Command)
		return err == nil
	}
	for _, pattern := range p.Files {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			return true
		}
	}
	return false
}

// debianPackages are what the tests run: clang checks the generated AIPU
// kernels as OpenCL, make dry-runs the generated Makefiles; ccache, sccache
// and redis-server are the shared compiler cache the team build tests run
// against; PoCL (an OpenCL CPU runtime, found by its ICD file) and the
// OpenCL ICD loader run the AIPU kernels in opforge verify's aipu-opencl
// runner, through pyopencl (testdata/requirements.txt).
var debianPackages = []debianPackage{{Name: "clang", Command: "clang"}, {Name: "make", Command: "make"}, {Name: "g++", Command: "g++"},
	{Name: "ccache", Command: "ccache"}, {Name: "sccache", Command: "sccache"}, {Name: "redis-server", Command: "redis-server"},
	{Name: "pocl-opencl-icd", Files: []string{"/etc/OpenCL/vendors/pocl.icd"}},
	{Name: "ocl-icd-opencl-dev", Files: []string{"/usr/lib/*/libOpenCL.so", "/usr/lib64/libOpenCL.so", "/usr/lib/libOpenCL.so"}}}

// ensureDebianPackages installs the missing ones with apt-get when running
// as root (CI and these machines); otherwise the tests that need them skip
// and say why.
func ensureDebianPackages() error {
	var missing []string
	for _, p := range debianPackages {
		if !p.present() {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if os.Geteuid() != 0 {
		fmt.Printf("not root, so not installing %v: the tests that need them will skip\n", missing)
		return nil
	}
	env := append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if err := run(env, "apt-get", "update", "-q"); err != nil {
		return err
	}
	return run(env, "apt-get", append([]string{"install", "-y", "-q", "--no-install-recommends"}, missing...)...)
}

func ensureVenv() (string, error) {
	python := filepath.Join(venvDir, "bin", "python")
	if runtime.GOOS == "windows" {
		python = filepath.Join(venvDir, "Scripts", "python.exe")
	}
	req, err := os.ReadFile("testdata/requirements.txt")
	if err != nil {
		return "", err
	}
	// Pure-Python wheels whose declared dependencies no registry here can
	// serve (nvtripy wants TensorRT's libraries): the tests read their
	// code, so they are installed without dependencies.
	noDeps, err := os.ReadFile("testdata/requirements-nodeps.txt")
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append(append(req, 0), noDeps...))
	stamp := filepath.Join(venvDir, ".requirements.sha256")
	want := hex.EncodeToString(sum[:])
	if got, err := os.ReadFile(stamp); err == nil && string(got) == want {
		return filepath.Abs(python)
	}
	start := time.Now()
	if _, err := os.Stat(python); err != nil {
		if err := run(nil, "python3", "-m", "venv", venvDir); err != nil {
			return "", fmt.Errorf("creating the test virtualenv: %w (on Debian: apt-get install python3-venv)", err)
		}
	}
	if err := run(nil, python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", "testdata/requirements.txt"); err != nil {
		return "", err
	}
	if err := run(nil, python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "-r", "testdata/requirements-nodeps.txt"); err != nil {
		return "", err
	}
	if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
		return "", err
	}
	fmt.Printf("test virtualenv ready in %s\n", time.Since(start).Round(time.Second))
	return filepath.Abs(python)
}

// run executes a command (argv, no shell) with output passed through.
func run(env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if env != nil {
		cmd.Env = env
	}
	fmt.Printf("$ %s %v\n", name, args)
	return cmd.Run()
}

// output runs a command and returns its standard output.
func output(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "", fmt.Errorf("%s %v: %w", name, args, err)
	}
	return string(out), nil
}
