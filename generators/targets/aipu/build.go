package aipu

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/buildengine"
	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/toolchain"
)

// BuildPlan is how the aipu target builds (target.Builder).
func (Target) BuildPlan(o buildplan.Options) (*buildplan.Plan, error) { return BuildPlan(o) }

// BuildPlan plans one aipuocc unit per kernel object (every Compass target and
// dtype variant of every op, as the GBuilder plugins name them) and lays
// out the plugin directories for AIPUPLUGIN_PATH: build/aipu/plugins/
// {parser,opt,builder}, one per stage, because each stage imports every
// aipubt_* module on its path. The objects are those the generator wrote
// into each package's Makefile under out/aipu/, so the build compiles
// exactly what the plugins name, without reading the opdefs again.
func BuildPlan(o buildplan.Options) (*buildplan.Plan, error) {
	d, err := LoadToolchain(o.Toolchains)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(o.Build, "aipu")
	p := &buildplan.Plan{Target: "aipu", StateFile: filepath.Join(root, ".opforge-build.json"),
		Notes: "aipu: plugin directories, one per stage:\n" + PluginPaths(o.Build)}
	o.Env = buildplan.WithVersionCache(o, p)
	occ := o.Env.ResolveToolOf(d.Descriptor, "aipuocc")
	// Without the Compass compiler, clang's OpenCL front end still checks
	// every kernel variant; with neither, the preflight names both.
	var clang toolchain.Found
	if !occ.OK() {
		if clang = o.Env.ResolveToolOf(d.Descriptor, "clang"); !clang.OK() {
			p.Require(occ)
			p.Require(clang)
		}
	}
	// The Compass DSL headers are needed only by kernels that include
	// compass/dsl.h; the generated ones are plain OpenCL.
	var include []string
	if s := d.SDK("compass_include"); s != nil {
		if f := o.Env.ResolveSDK(*s); f.OK() {
			include = []string{"-I", f.Path}
		}
	}
	makefiles, err := o.PackageDirs("aipu", "Makefile")
	if err != nil {
		return nil, err
	}
	if len(p.Missing) > 0 {
		return p, nil
	}
	if !occ.OK() {
		return syntaxPlan(p, o, root, clang, occ, include, makefiles)
	}
	launcher := p.Launcher(o.Env.LauncherFor(d.Descriptor, "aipuocc"))
	for _, mk := range makefiles {
		pkgDir := filepath.Dir(mk)
		pkg := filepath.Base(pkgDir)
		kernels, err := readKernelRules(mk)
		if err != nil {
			return nil, err
		}
		for _, k := range kernels {
			src := filepath.Join(pkgDir, filepath.FromSlash(k.source))
			if _, err := os.Stat(src); err != nil {
				return nil, fmt.Errorf("%s is missing: run opforge gen first", src)
			}
			args := append([]string{}, d.AIPU.Flags.AIPUOCC...)
			args = append(args, "-mcpu="+k.mcpu)
			args = append(append(args, k.defines...), include...)
			args = append(args, "-o", buildengine.OutArg, src)
			p.Units = append(p.Units, &buildengine.Unit{
				ID:       fmt.Sprintf("aipu/%s/%s", pkg, k.object),
				Tool:     occ.Path,
				Launcher: launcher,
				Args:     args,
				Inputs:   []string{src},
				Output:   filepath.Join(root, pkg, filepath.FromSlash(k.object)),
				Source:   src,
				// What aipuocc writes is not documented (docs/vendor/aipu.md
				// names it an object, not its format): the engine checks
				// only that it wrote something.
				Format: buildengine.FormatNonEmpty,
			})
		}
	}
	p.Extra = func() error { return layOutPlugins(o.Out, root) }
	return p, nil
}

// syntaxPlan checks, in place of compiling, every kernel variant of the
// packages' Makefiles (each -D set once, whatever its -mcpu) with clang's
// OpenCL C 2.0 front end: a syntax error fails the build at its line, and
// the notes say plainly that no Compass binary was made. Each check writes
// its dependency list, the artifact that keeps it up to date.
func syntaxPlan(p *buildplan.Plan, o buildplan.Options, root string, clang, occ toolchain.Found, include, makefiles []string) (*buildplan.Plan, error) {
	n := 0
	for _, mk := range makefiles {
		pkgDir := filepath.Dir(mk)
		pkg := filepath.Base(pkgDir)
		kernels, err := readKernelRules(mk)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, k := range kernels {
			entry := strings.TrimSuffix(path.Base(k.object), ".o")
			if seen[entry] {
				continue
			}
			seen[entry] = true
			src := filepath.Join(pkgDir, filepath.FromSlash(k.source))
			if _, err := os.Stat(src); err != nil {
				return nil, fmt.Errorf("%s is missing: run opforge gen first", src)
			}
			args := append([]string{"-x", "cl", "-cl-std=CL2.0", "-fsyntax-only"}, k.defines...)
			args = append(append(args, include...), "-MD", "-MF", buildengine.OutArg, src)
			p.Units = append(p.Units, &buildengine.Unit{
				ID:     fmt.Sprintf("aipu/%s/syntax/%s", pkg, entry),
				Tool:   clang.Path,
				Args:   args,
				Inputs: []string{src},
				Output: filepath.Join(root, pkg, "syntax", entry+".d"),
				Source: src,
			})
			n++
		}
	}
	p.Extra = func() error { return layOutPlugins(o.Out, root) }
	p.Preface = fmt.Sprintf("aipu: aipuocc is missing (%s): no Compass binary will be made; clang's OpenCL C 2.0 front end (%s) checks the syntax of the %d kernel variant(s) instead", occ.Problem, clang.Path, n)
	p.Notes = fmt.Sprintf("aipu: no Compass binary was made; the syntax of the %d kernel variant(s) is fine (clang -x cl -cl-std=CL2.0 -fsyntax-only).\n", n) + p.Notes
	return p, nil
}

// kernelRule is one kernel object of a generated AIPU package Makefile.
type kernelRule struct {
	object  string   // below the build directory: <mcpu>/<entry>.o
	source  string   // relative to the package directory: kernels/<op>.cl
	mcpu    string   // aipuocc -mcpu
	defines []string // the -D flags of the variant
}

// readKernelRules reads the kernel objects of a package Makefile the AIPU
// generator wrote, in its order: each rule
//
//	$(BUILD)/<object>: <source> | check-aipuocc
//		@mkdir -p $(@D)
//		$(OPFORGE_COMPILER_LAUNCHER) $(AIPUOCC) -c -target aipu -mcpu=<mcpu> <-D flags> $(AIPUOCC_FLAGS) -o $@ $<
func readKernelRules(makefile string) ([]kernelRule, error) {
	data, err := os.ReadFile(makefile)
	if err != nil {
		return nil, fmt.Errorf("%v: run opforge gen first", err)
	}
	const prereq = " | check-aipuocc"
	var rules []kernelRule
	var cur *kernelRule
	for n, line := range strings.Split(string(data), "\n") {
		bad := func(why string) error {
			return fmt.Errorf("%s:%d: %s; regenerate it with opforge gen", makefile, n+1, why)
		}
		switch {
		case strings.HasPrefix(line, "$(BUILD)/") && strings.HasSuffix(line, prereq):
			if cur != nil {
				return nil, bad("kernel rule without an aipuocc command before it")
			}
			object, source, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(line, "$(BUILD)/"), prereq), ": ")
			if !ok || object == "" || source == "" || strings.ContainsAny(object+source, " \t") {
				return nil, bad("malformed kernel rule")
			}
			cur = &kernelRule{object: object, source: source}
		case cur != nil && strings.HasPrefix(line, "\t$(OPFORGE_COMPILER_LAUNCHER) $(AIPUOCC) "):
			for _, f := range strings.Fields(line) {
				switch {
				case strings.HasPrefix(f, "-mcpu="):
					cur.mcpu = strings.TrimPrefix(f, "-mcpu=")
				case strings.HasPrefix(f, "-D"):
					cur.defines = append(cur.defines, f)
				}
			}
			if cur.mcpu == "" {
				return nil, bad("aipuocc command without -mcpu")
			}
			rules = append(rules, *cur)
			cur = nil
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s: kernel rule %s has no aipuocc command; regenerate it with opforge gen", makefile, cur.object)
	}
	return rules, nil
}

// layOutPlugins copies every package's plugins into one directory per
// stage, writing only changed files and removing plugins no longer
// generated.
func layOutPlugins(out, root string) error {
	for _, stage := range []string{"parser", "opt", "builder"} {
		dst := filepath.Join(root, "plugins", stage)
		srcs, _ := filepath.Glob(filepath.Join(out, "aipu", "*", stage, "aipubt_*.py"))
		sort.Strings(srcs)
		keep := map[string]bool{}
		for _, src := range srcs {
			name := filepath.Base(src)
			if keep[name] {
				return fmt.Errorf("two packages generate %s; module names must be unique on AIPUPLUGIN_PATH", name)
			}
			keep[name] = true
			data, err := os.ReadFile(src)
			if err != nil {
				return err
			}
			if _, err := atomicfile.Write(filepath.Join(dst, name), data, 0o644); err != nil {
				return err
			}
		}
		old, _ := filepath.Glob(filepath.Join(dst, "aipubt_*.py"))
		for _, f := range old {
			if !keep[filepath.Base(f)] {
				_ = os.Remove(f)
			}
		}
	}
	return nil
}

// PluginPaths says where each stage's AIPUPLUGIN_PATH points after a build.
func PluginPaths(buildDir string) string {
	var lines []string
	for _, stage := range []string{"parser", "opt", "builder"} {
		lines = append(lines, fmt.Sprintf("  %-8s AIPUPLUGIN_PATH=%s", stage, filepath.Join(buildDir, "aipu", "plugins", stage)))
	}
	return strings.Join(lines, "\n")
}
