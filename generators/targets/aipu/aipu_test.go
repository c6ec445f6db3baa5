package aipu_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/targets/aipu"
)

// TestLayout checks the tree of every package: each stage's plugins in a
// directory of their own, aipubt_-prefixed, one module per op and stage,
// no module name repeated across the packages of a tree, and nothing else
// in the plugin directories (each Compass stage imports every aipubt_*
// module on its path).
func TestLayout(t *testing.T) {
	modules := map[string]string{}
	for _, pd := range packages(t) {
		want := map[string][]string{}
		for _, op := range pd.Ops {
			s := stem(op)
			want["parser"] = append(want["parser"], "aipubt_parser_"+s+".py")
			want["opt"] = append(want["opt"], "aipubt_opt_"+s+".py")
			want["builder"] = append(want["builder"], "aipubt_builder_"+s+".py")
			want["kernels"] = append(want["kernels"], s+".cl")
		}
		for dir, files := range want {
			entries, err := os.ReadDir(filepath.Join(pd.Dir, dir))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				if e.Name() == "__pycache__" {
					continue
				}
				got = append(got, e.Name())
				if dir != "kernels" {
					key := filepath.Dir(pd.Dir) + ":" + dir + ":" + e.Name()
					if prev, dup := modules[key]; dup {
						t.Errorf("module %s in %s and %s", e.Name(), prev, pd.Dir)
					}
					modules[key] = pd.Dir
				}
			}
			if strings.Join(got, " ") != strings.Join(sorted(files), " ") {
				t.Errorf("%s/%s holds %v, want %v", pd.Dir, dir, got, sorted(files))
			}
		}
		for _, f := range []string{"Makefile", "README.md"} {
			if _, err := os.Stat(filepath.Join(pd.Dir, f)); err != nil {
				t.Error(err)
			}
		}
	}
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// kernelParamsRE finds the parameter list of the kernel entry.
var kernelParamsRE = regexp.MustCompile(`(?s)__kernel\s+void\s+OPFORGE_KERNEL\s*\((.*?)\)\s*\{`)

// kernelSignature parses the kernel's parameters into (type, name) pairs.
func kernelSignature(t *testing.T, src string) [][2]string {
	t.Helper()
	m := kernelParamsRE.FindStringSubmatch(src)
	if m == nil {
		t.Fatal("no __kernel void OPFORGE_KERNEL(...) {")
	}
	var out [][2]string
	for _, p := range strings.Split(m[1], ",") {
		f := strings.Fields(strings.ReplaceAll(p, "*", "* "))
		if len(f) < 2 {
			t.Fatalf("parameter %q", p)
		}
		out = append(out, [2]string{strings.ReplaceAll(strings.Join(f[:len(f)-1], " "), " *", "*"), f[len(f)-1]})
	}
	return out
}

// appendRE reads the argument of each ro.append line of generate_params.
var (
	appendRE   = regexp.MustCompile(`^\s*ro\.append\((.*)\)\s*#`)
	inputRE    = regexp.MustCompile(`^sgnode\.inputs\[(\d+)\]$`)
	outputRE   = regexp.MustCompile(`^sgnode\.outputs\[(\d+)\]$`)
	constantRE = regexp.MustCompile(`^sgnode\.constants\[node\.name \+ "/(\w+)"\]$`)
	rawRE      = regexp.MustCompile(`^_raw\("(\w+)", (?:_bool\(|_enum\(|_element\()?params\["(\w+)"\](?:, (\d+|\w+))?\)?\)$`)
	dimRE      = regexp.MustCompile(`^int\((.*)\.shape\[(\d+)\]\)$`)
	rankRE     = regexp.MustCompile(`^len\((.*)\.shape\)$`)
	rankDimRE  = regexp.MustCompile(`^_dim\((.*), (\d+)\)$`)
)

// generateParams classifies what generate_params appends, in order, as
// plan args (without names and C types).
func generateParams(t *testing.T, src string) []aipuArg {
	t.Helper()
	start := strings.Index(src, "def generate_params(")
	end := strings.Index(src[start:], "return ro")
	if start < 0 || end < 0 {
		t.Fatal("no generate_params ... return ro")
	}
	var out []aipuArg
	for _, line := range strings.Split(src[start:start+end], "\n") {
		m := appendRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		e := m[1]
		var a aipuArg
		switch {
		case inputRE.MatchString(e):
			a.Kind, a.Index = "input", atoi(inputRE.FindStringSubmatch(e)[1])
		case outputRE.MatchString(e):
			a.Kind, a.Index = "output", atoi(outputRE.FindStringSubmatch(e)[1])
		case constantRE.MatchString(e):
			a.Kind, a.Key = "constant", constantRE.FindStringSubmatch(e)[1]
		case rawRE.MatchString(e):
			s := rawRE.FindStringSubmatch(e)
			a.Kind, a.NumPy, a.Param, a.Element = "scalar", s[1], s[2], -1
			if n, err := strconv.Atoi(s[3]); err == nil {
				a.Element = n
			}
		case dimRE.MatchString(e):
			s := dimRE.FindStringSubmatch(e)
			a.Kind, a.Dim, a.Index = "dim", atoi(s[2]), -1
			if inputRE.MatchString(s[1]) {
				a.Index = atoi(inputRE.FindStringSubmatch(s[1])[1])
			} else if constantRE.MatchString(s[1]) {
				a.Key = constantRE.FindStringSubmatch(s[1])[1]
			}
		case rankRE.MatchString(e), rankDimRE.MatchString(e):
			a.Kind, a.Index = "rank", -1
			src := ""
			if s := rankRE.FindStringSubmatch(e); s != nil {
				src = s[1]
			} else {
				s := rankDimRE.FindStringSubmatch(e)
				a.Kind, a.Dim, src = "rankdim", atoi(s[2]), s[1]
			}
			switch {
			case inputRE.MatchString(src):
				a.Index = atoi(inputRE.FindStringSubmatch(src)[1])
			case outputRE.MatchString(src):
				a.Index, a.Output = atoi(outputRE.FindStringSubmatch(src)[1]), true
			case constantRE.MatchString(src):
				a.Key = constantRE.FindStringSubmatch(src)[1]
			default:
				t.Errorf("unrecognised tensor %q", src)
			}
		default:
			t.Errorf("unrecognised argument %q", e)
		}
		out = append(out, a)
	}
	return out
}

// aipuArg is the part of a planArg generate_params shows.
type aipuArg struct {
	Kind    string
	Index   int
	Key     string
	Param   string
	Element int
	NumPy   string
	Dim     int
	Output  bool
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func shown(a planArg) aipuArg {
	out := aipuArg{Kind: a.Kind, Index: a.Index, Key: a.Key, Param: a.Param, Element: a.Element, NumPy: a.NumPy, Dim: a.Dim, Output: a.Output}
	switch a.Kind {
	case "constant", "output", "input":
		out.Element, out.Dim = 0, 0
		if a.Kind == "constant" {
			out.Index = 0
		}
	case "scalar":
		out.Index, out.Dim = 0, 0
	case "dim", "rank", "rankdim":
		out.Element = 0
	}
	return out
}

// TestKernelSignatures: the parsed __kernel parameters (types and names)
// and the arguments generate_params appends are, one for one, the
// contract restated from the opdef.
func TestKernelSignatures(t *testing.T) {
	n := 0
	for _, pp := range plans(t) {
		for _, op := range pp.Ops {
			cl, err := os.ReadFile(filepath.Join(pp.Dir, "kernels", op.Stem+".cl"))
			if err != nil {
				t.Fatal(err)
			}
			builder, err := os.ReadFile(filepath.Join(pp.Dir, "builder", "aipubt_builder_"+op.Stem+".py"))
			if err != nil {
				t.Fatal(err)
			}
			sig := kernelSignature(t, string(cl))
			appended := generateParams(t, string(builder))
			if len(sig) != len(op.Args) || len(appended) != len(op.Args) {
				t.Errorf("%s: kernel has %d parameters, generate_params appends %d, the opdef implies %d", op.Op, len(sig), len(appended), len(op.Args))
				continue
			}
			for i, want := range op.Args {
				if sig[i] != [2]string{want.CType, want.Name} {
					t.Errorf("%s: kernel parameter %d is %q, want %q", op.Op, i, sig[i], [2]string{want.CType, want.Name})
				}
				if appended[i] != shown(want) {
					t.Errorf("%s: generate_params appends %+v as argument %d, want %+v", op.Op, appended[i], i, shown(want))
				}
			}
			n++
		}
	}
	t.Logf("%d kernels", n)
}

// TestKernelBuilds: every object the Makefile and aipu.Kernels name is a
// variant of its op's kernel for one -mcpu of its targets, and the
// Makefile builds exactly the objects Kernels lists.
func TestKernelBuilds(t *testing.T) {
	for _, pd := range packages(t) {
		builds := aipu.Kernels(pd.Pkg, nil)
		mk, err := os.ReadFile(filepath.Join(pd.Dir, "Makefile"))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, op := range pd.Ops {
			p := planFor(pd.Pkg, op, aipu.KnownTargets)
			for _, target := range p.Targets {
				mcpu := regexp.MustCompile(`MP\d+$`).ReplaceAllString(target, "")
				for _, v := range p.Variants {
					want[filepath.Join(pd.Pkg.Name, "kernels", p.Stem+".cl")+" "+mcpu+"/"+v.Entry+".o"] = true
				}
			}
		}
		got := map[string]bool{}
		for _, b := range builds {
			got[b.Source+" "+b.Object] = true
			if !strings.Contains(string(mk), "$(BUILD)/"+b.Object+": kernels/") ||
				!strings.Contains(string(mk), "-mcpu="+b.MCPU+" "+strings.Join(b.Defines, " ")) {
				t.Errorf("%s/Makefile does not build %s with -mcpu=%s %v", pd.Dir, b.Object, b.MCPU, b.Defines)
			}
		}
		if len(got) != len(want) || len(builds) != len(want) {
			t.Errorf("%s: Kernels lists %d objects (%d distinct), want %d", pd.Pkg.Name, len(builds), len(got), len(want))
		}
		for w := range want {
			if !got[w] {
				t.Errorf("%s: no object %s", pd.Pkg.Name, w)
			}
		}
	}
}

// TestMakefileBuildsObjects runs each package's Makefile with a stand-in
// aipuocc: every object lands at its path, and a missing aipuocc stops
// make with a message naming the SDK.
func TestMakefileBuildsObjects(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	fake := filepath.Join(t.TempDir(), "aipuocc")
	script := "#!/bin/sh\n# stand-in: records its arguments in the object\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then out=$2; fi; shift; done\necho built > \"$out\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, pd := range packages(t) {
		build := t.TempDir()
		cmd := exec.Command("make", "-C", pd.Dir, "AIPUOCC="+fake, "BUILD="+build)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make: %v\n%s", err, out)
		}
		for _, b := range aipu.Kernels(pd.Pkg, nil) {
			if _, err := os.Stat(filepath.Join(build, b.Object)); err != nil {
				t.Errorf("%s: %v", pd.Pkg.Name, err)
			}
		}
		cmd = exec.Command("make", "-C", pd.Dir, "AIPUOCC=/nonexistent/aipuocc", "BUILD="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "Compass SDK") {
			t.Errorf("make without aipuocc: %v\n%s", err, out)
		}
	}
}

// TestMakefileLauncher: with OPFORGE_COMPILER_LAUNCHER set, every aipuocc
// run of the package Makefile goes through the launcher, and the objects
// are still built.
func TestMakefileLauncher(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "aipuocc")
	launcher := filepath.Join(dir, "launcher")
	log := filepath.Join(dir, "launcher.log")
	_ = os.WriteFile(fake, []byte("#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then out=$2; fi; shift; done\necho built > \"$out\"\n"), 0o755)
	_ = os.WriteFile(launcher, []byte("#!/bin/sh\necho \"$1\" >> "+log+"\nexec \"$@\"\n"), 0o755)
	pd := packages(t)[0]
	build := t.TempDir()
	cmd := exec.Command("make", "-C", pd.Dir, "AIPUOCC="+fake, "BUILD="+build)
	cmd.Env = append(os.Environ(), "OPFORGE_COMPILER_LAUNCHER="+launcher)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make: %v\n%s", err, out)
	}
	kernels := aipu.Kernels(pd.Pkg, nil)
	data, _ := os.ReadFile(log)
	if runs := strings.Count(string(data), fake+"\n"); runs != len(kernels) || len(kernels) == 0 {
		t.Errorf("%d aipuocc runs through the launcher for %d objects", runs, len(kernels))
	}
	for _, b := range kernels {
		if _, err := os.Stat(filepath.Join(build, b.Object)); err != nil {
			t.Errorf("%s: %v", pd.Pkg.Name, err)
		}
	}
}

// TestKernelsAreOpenCL checks every variant of every kernel with clang's
// OpenCL C 2.0 front end (-fsyntax-only -Wall -Werror): the Compass
// compiler is closed, but its language is OpenCL C. It also checks that
// each variant's entry is the name GBuilder asks for.
func TestKernelsAreOpenCL(t *testing.T) {
	clang := os.Getenv("CLANG")
	if clang == "" {
		clang = "clang"
	}
	if _, err := exec.LookPath(clang); err != nil {
		t.Skipf("%s is not installed (Debian: apt-get install clang); the kernels' OpenCL syntax is not checked", clang)
	}
	n := 0
	for _, pd := range packages(t) {
		seen := map[string]bool{}
		for _, b := range aipu.Kernels(pd.Pkg, nil) {
			key := b.Source + strings.Join(b.Defines, " ")
			if seen[key] {
				continue // the same variant for another -mcpu
			}
			seen[key] = true
			src := filepath.Join(filepath.Dir(pd.Dir), b.Source)
			args := append([]string{"-x", "cl", "-cl-std=CL2.0", "-fsyntax-only", "-Wall", "-Werror"}, b.Defines...)
			if out, err := exec.Command(clang, append(args, src)...).CombinedOutput(); err != nil {
				t.Errorf("%s %v: %v\n%s", src, b.Defines, err, out)
			}
			pre, err := exec.Command(clang, append([]string{"-x", "cl", "-cl-std=CL2.0", "-E", "-P"}, append(b.Defines, src)...)...).Output()
			entry := strings.TrimSuffix(filepath.Base(b.Object), ".o")
			if err != nil || !regexp.MustCompile(`__kernel\s+void\s+`+entry+`\s*\(`).Match(pre) {
				t.Errorf("%s %v: the preprocessed kernel is not called %s (%v)", src, b.Defines, entry, err)
			}
			n++
		}
	}
	t.Logf("%d kernel variants pass %s -x cl -cl-std=CL2.0 -fsyntax-only -Wall -Werror", n, clang)
}

// TestPluginStubs byte-compiles every generated plugin and checks its
// structure with Python's ast module: imports, decorators and their
// arguments, base classes, class attributes, required methods and their
// arity, the module-level register_optype, and one layer type string in
// the three plugins of an op.
func TestPluginStubs(t *testing.T) {
	py := os.Getenv("OPFORGE_PYTHON")
	if py == "" {
		py = "python3"
	}
	if _, err := exec.LookPath(py); err != nil {
		t.Skipf("no Python interpreter (%s): %v", py, err)
	}
	out := runPython(t, py, nil, "check_aipu_stubs.py", plans(t))
	t.Log(out)
}

// TestGBuilderPlugins imports every GBuilder plugin against stand-in
// AIPUBuilder.core and AIPUBuilder.plugin_loader modules (the real ones
// are closed) and drives it like GBuilder: targets, dtype checks for
// every variant, layouts, the kernel entry and object name, and the
// arguments generate_params appends (order, tensors, scalar encoding).
func TestGBuilderPlugins(t *testing.T) {
	py := python(t)
	out := runPython(t, py, nil, "check_aipu_builder.py", plans(t))
	t.Log(out)
}

// TestCompassParser loads the Parser plugins with the open-source Compass
// Parser's own plugin loader (COMPASS_PARSER_DIR: a checkout of
// Arm-China/Compass_Unified_Parser) and runs each plugin on zero inputs.
func TestCompassParser(t *testing.T) {
	dir := os.Getenv("COMPASS_PARSER_DIR")
	if dir == "" {
		t.Skip("COMPASS_PARSER_DIR is not set (a checkout of github.com/Arm-China/Compass_Unified_Parser); the Parser plugins are not run")
	}
	if _, err := os.Stat(filepath.Join(dir, "AIPUBuilder/Parser/plugin_loader.py")); err != nil {
		t.Fatalf("COMPASS_PARSER_DIR=%s has no AIPUBuilder/Parser/plugin_loader.py", dir)
	}
	out := runPython(t, python(t), []string{"COMPASS_PARSER_DIR=" + dir}, "check_aipu_parser.py", plans(t))
	t.Log(out)
}

// TestCompassOptimizer loads the OPT plugins with the open-source Compass
// Optimizer's plugin traversal (COMPASS_OPTIMIZER_DIR: a checkout of
// Arm-China/Compass_Optimizer), parses a Compass IR holding each layer
// with the Parser's params, and runs forward and quantize.
func TestCompassOptimizer(t *testing.T) {
	dir := os.Getenv("COMPASS_OPTIMIZER_DIR")
	if dir == "" {
		t.Skip("COMPASS_OPTIMIZER_DIR is not set (a checkout of github.com/Arm-China/Compass_Optimizer); the OPT plugins are not run")
	}
	if _, err := os.Stat(filepath.Join(dir, "AIPUBuilder/Optimizer/framework/opt_register.py")); err != nil {
		t.Fatalf("COMPASS_OPTIMIZER_DIR=%s has no AIPUBuilder/Optimizer/framework/opt_register.py", dir)
	}
	out := runPython(t, python(t), []string{"COMPASS_OPTIMIZER_DIR=" + dir}, "check_aipu_opt.py", plans(t))
	t.Log(out)
}

// TestCompassPipeline runs the Compass tools themselves: an ONNX model
// with every op of a package through the Parser's main.py (the float IR
// must hold each layer with its shapes, dtypes, params and constants),
// then, with COMPASS_OPTIMIZER_DIR, that IR through optimizer_main.py.
// It needs onnx and TensorFlow (which the Parser imports) in
// OPFORGE_PYTHON, and for the Optimizer the packages its bundled plugins
// import (cv2, scipy, editdistance); it skips with the reason otherwise.
func TestCompassPipeline(t *testing.T) {
	dir := os.Getenv("COMPASS_PARSER_DIR")
	if dir == "" {
		t.Skip("COMPASS_PARSER_DIR is not set (a checkout of github.com/Arm-China/Compass_Unified_Parser); the Compass tools are not run")
	}
	py := python(t)
	data, err := json.Marshal(plans(t))
	if err != nil {
		t.Fatal(err)
	}
	planPath := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(planPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("../../../testdata/python/check_aipu_pipeline.py")
	cmd := exec.Command(py, script, planPath, t.TempDir())
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "COMPASS_PARSER_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		t.Skip(strings.TrimSpace(string(out)))
	}
	if err != nil {
		t.Fatalf("check_aipu_pipeline.py: %v\n%s", err, out)
	}
	t.Log(string(out))
}
