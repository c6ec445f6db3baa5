package buildplan

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/build"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	targetreg "github.com/opforge/opforge/generators/targets"
	"github.com/opforge/opforge/generators/targets/aipu"
	"github.com/opforge/opforge/generators/toolchain"
)

// AIPU plans one aipuocc unit per kernel object (every Compass target and
// dtype variant of every op, as the GBuilder plugins name them) and lays
// out the plugin directories for AIPUPLUGIN_PATH: build/aipu/plugins/
// {parser,opt,builder}, one per stage, because each stage imports every
// aipubt_* module on its path.
func AIPU(o Options, opdefs string) (*Plan, error) {
	d, err := toolchain.Load(o.Toolchains, "aipu")
	if err != nil {
		return nil, err
	}
	root := filepath.Join(o.Build, "aipu")
	p := &Plan{Target: "aipu", StateFile: filepath.Join(root, ".opforge-build.json")}
	o.Env = withVersionCache(o, p)
	occ := o.Env.ResolveToolOf(d, "aipuocc")
	p.require(occ)
	// The Compass DSL headers are needed only by kernels that include
	// compass/dsl.h; the generated ones are plain OpenCL.
	var include []string
	if s := d.SDK("compass_include"); s != nil {
		if f := o.Env.ResolveSDK(*s); f.OK() {
			include = []string{"-I", f.Path}
		}
	}
	var l diag.List
	pkgs := load.Tree(opdefs, &l)
	targetreg.Check(&l, pkgs...)
	if l.HasErrors() {
		return nil, fmt.Errorf("%s has errors; run opforge check", opdefs)
	}
	if len(o.Packages) > 0 {
		kept, unknown := ir.SelectPackages(pkgs, o.Packages)
		if len(unknown) > 0 {
			return nil, fmt.Errorf("no package %q in %s (there: %s)", unknown[0], opdefs, strings.Join(ir.PackageNames(pkgs), ", "))
		}
		pkgs = kept
	}
	var targets []string
	for _, t := range d.AIPU.Targets {
		targets = append(targets, t.Name)
	}
	if !occ.OK() {
		return p, nil
	}
	launcher := p.launcher(o.Env.LauncherFor(d, "aipuocc"))
	for _, pkg := range pkgs {
		for _, k := range aipu.Kernels(pkg, targets) {
			src := filepath.Join(o.Out, "aipu", filepath.FromSlash(k.Source))
			if _, err := os.Stat(src); err != nil {
				return nil, fmt.Errorf("%s is missing: run opforge gen first", src)
			}
			args := append([]string{}, d.AIPU.Flags.AIPUOCC...)
			args = append(args, "-mcpu="+k.MCPU)
			args = append(append(args, k.Defines...), include...)
			args = append(args, "-o", build.OutArg, src)
			p.Units = append(p.Units, &build.Unit{
				ID:       fmt.Sprintf("aipu/%s/%s", pkg.Name, k.Object),
				Tool:     occ.Path,
				Launcher: launcher,
				Args:     args,
				Inputs:   []string{src},
				Output:   filepath.Join(root, pkg.Name, filepath.FromSlash(k.Object)),
				Source:   src,
			})
		}
	}
	p.Extra = func() error { return layOutPlugins(o.Out, root) }
	return p, nil
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
