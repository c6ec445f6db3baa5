package aipu

import (
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/target"
	"github.com/opforge/opforge/generators/workpool"
	"github.com/opforge/opforge/templates"
)

var tmpl = render.MustLoad(templates.FS, "aipu", nil)

// Directories of a package's tree under out/aipu/<Package>/. Each Compass
// stage imports every aipubt_* module on AIPUPLUGIN_PATH, and a module whose
// imports fail stops that stage, so each stage gets a directory of its own:
// the Parser's plugins need AIPUBuilder.Parser, the Optimizer's torch and
// AIPUBuilder.Optimizer, GBuilder's the closed AIPUBuilder.core.
const (
	ParserDir  = "parser"
	OPTDir     = "opt"
	BuilderDir = "builder"
	KernelDir  = "kernels"
)

// packageModel is the package-level README and Makefile. Both range over
// every op's kernel objects (opModel.Objects).
type packageModel struct {
	Name string
	Ops  []*opModel
}

// Generate emits, per op, the three plugins and the kernel source, plus
// the package README and Makefile: paths relative to out/aipu/. Ops that
// name no Compass target are built for KnownTargets (until
// toolchains/aipu.yaml provides them).
func (Target) Generate(pkg *ir.Package, d *diag.TargetList) *fileset.Set {
	ops := Ops(pkg)
	if len(ops) == 0 {
		return nil
	}
	// Op models are independent of each other: build them on every core.
	f := newPackageFacts(pkg, KnownTargets)
	m := &packageModel{Name: pkg.Name, Ops: make([]*opModel, len(ops))}
	workpool.Parallel(len(ops), func(i int) { m.Ops[i] = newOpModel(f, ops[i]) })
	files := make([]render.File, 0, 2+4*len(m.Ops))
	files = append(files,
		render.File{Path: "Makefile", Tmpl: "Makefile.tmpl", Data: m},
		render.File{Path: "README.md", Tmpl: "README.md.tmpl", Data: m},
	)
	for _, om := range m.Ops {
		files = append(files,
			render.File{Path: pluginPath(ParserDir, om.Stem), Tmpl: "parser.py.tmpl", Data: om.parser},
			render.File{Path: pluginPath(OPTDir, om.Stem), Tmpl: "opt.py.tmpl", Data: om.opt, Owned: true},
			render.File{Path: pluginPath(BuilderDir, om.Stem), Tmpl: "builder.py.tmpl", Data: om.builder},
			render.File{Path: kernelPath(om.Stem), Tmpl: "kernel.cl.tmpl", Data: om.kernel, Owned: true},
		)
	}
	return tmpl.Package(pkg, files, d)
}

// pluginPath is the path of an op's plugin for a Compass stage below
// out/aipu/<Package>/: aipubt_<stage>_<stem>.py in the stage's directory.
func pluginPath(stage, stem string) string { return stage + "/aipubt_" + stage + "_" + stem + ".py" }

// kernelPath is the path of an op's kernel source below out/aipu/<Package>/.
func kernelPath(stem string) string { return KernelDir + "/" + kernelFile(stem) }

// Paths implements target.Pather: every file Generate writes for pkg.
func (Target) Paths(pkg *ir.Package) []target.Path {
	ops := Ops(pkg)
	if len(ops) == 0 {
		return nil
	}
	out := []target.Path{{Path: "Makefile"}, {Path: "README.md"}}
	for _, op := range ops {
		for _, stage := range []string{ParserDir, OPTDir, BuilderDir} {
			out = append(out, target.Path{Path: pluginPath(stage, stem(op)), Op: op})
		}
		out = append(out, target.Path{Path: kernelPath(stem(op)), Op: op})
	}
	return out
}

// KernelBuild is one object a package's kernels compile into:
//
//	aipuocc -c -target aipu -mcpu=<MCPU> <Defines> -o <build dir>/<Object> out/aipu/<Source>
//
// GBuilder finds it by Object below the directory aipurun/aipugb get with -L.
type KernelBuild struct {
	Source  string // relative to out/aipu/: <Package>/kernels/<op>.cl
	Object  string // relative to the build directory: <mcpu>/<entry>.o
	MCPU    string
	Defines []string
}

// Kernels lists the objects of pkg's kernels, for builds (mage build:aipu)
// that compile without the generated Makefile. targets stands for ops that
// name none (nil: KnownTargets).
func Kernels(pkg *ir.Package, targets []string) []KernelBuild {
	if targets == nil {
		targets = KnownTargets
	}
	f := newPackageFacts(pkg, targets)
	var out []KernelBuild
	for _, op := range Ops(pkg) {
		out = append(out, newOpModel(f, op).builds...)
	}
	return out
}

// kernelBuilds lists the objects of an op's kernel, every variant for
// every -mcpu: as builds from source (below out/aipu/) and as the rows
// the package Makefile and README and the GBuilder docstring print.
func (m *opModel) kernelBuilds(source string, mcpus []string, variants []variant) {
	n := len(mcpus) * len(variants)
	m.builds = make([]KernelBuild, 0, n)
	m.Objects = make([]objectRow, 0, n)
	m.KernelPath = text(KernelDir + "/" + m.KernelFile)
	for _, mc := range mcpus {
		for _, v := range variants {
			object := mc + "/" + v.Entry + ".o"
			m.builds = append(m.builds, KernelBuild{Source: source, Object: object, MCPU: mc, Defines: v.Defines})
			m.Objects = append(m.Objects, objectRow{Path: text(object), MCPU: text(mc), Flags: v.Flags})
		}
	}
}
