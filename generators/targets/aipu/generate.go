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

// packageModel is the package-level README and Makefile.
type packageModel struct {
	Name string
	Ops  []opRow
	// What each op's kernel objects (opModel.Objects) add to the
	// Makefile (its OBJECTS lines and its rules) and to the README's
	// table: sections of their own (objects.tmpl), which an unchanged
	// op takes from the gen cache (render.KeyedSectionsOf).
	ObjectLines, ObjectRules, ObjectRows *render.Joined
}

// opRow is what the README's list of ops prints of one.
type opRow struct{ Name, LayerType string }

// The names of an op's sections of the package files (objects.tmpl).
var opSections = []string{"make-objects", "make-rules", "readme-objects"}

// Generate emits, per op, the three plugins and the kernel source, plus
// the package README and Makefile: paths relative to out/aipu/. Ops that
// name no Compass target are built for KnownTargets (until
// toolchains/aipu.yaml provides them).
func (Target) Generate(pkg *ir.Package, d *diag.TargetList) *fileset.Set {
	ops := Ops(pkg)
	if len(ops) == 0 {
		return nil
	}
	// An op whose own files and sections are all kept is not modelled:
	// nothing left to render needs its model. The others' models are
	// independent of each other: they are built on every core.
	f := newPackageFacts(pkg, KnownTargets)
	kept := keptOps(pkg, ops)
	models := make([]*opModel, len(ops))
	workpool.Parallel(len(ops), func(i int) {
		if !kept[i] {
			models[i] = newOpModel(f, ops[i])
		}
	})
	m := &packageModel{Name: pkg.Name, Ops: make([]opRow, len(ops))}
	for i, op := range ops {
		m.Ops[i] = opRow{Name: op.Name, LayerType: OpOptions(op).LayerType}
	}
	sections := make([]*render.Joined, len(opSections))
	for i, name := range opSections {
		// A kept op's sections are all stored (keptOps), so its missing
		// model is never asked for.
		var err error
		if sections[i], err = render.KeyedSectionsOf(tmpl, pkg, name, ops, func(i int) *opModel { return models[i] }); err != nil {
			d.Errorf(pkg.Pos, "internal", "rendering the package's op sections: %v", err)
			return nil
		}
	}
	m.ObjectLines, m.ObjectRules, m.ObjectRows = sections[0], sections[1], sections[2]
	files := make([]render.File, 0, 2+4*len(ops))
	files = append(files,
		render.File{Path: "Makefile", Tmpl: "Makefile.tmpl", Data: m},
		render.File{Path: "README.md", Tmpl: "README.md.tmpl", Data: m},
	)
	for i, op := range ops {
		// A kept op's files are not rendered, so they need no data.
		var parser, opt, builder, kernel any
		if om := models[i]; om != nil {
			parser, opt, builder, kernel = om.parser, om.opt, om.builder, om.kernel
		}
		s := stem(op)
		files = append(files,
			render.File{Path: pluginPath(ParserDir, s), Tmpl: "parser.py.tmpl", Data: parser},
			render.File{Path: pluginPath(OPTDir, s), Tmpl: "opt.py.tmpl", Data: opt, Owned: true},
			render.File{Path: pluginPath(BuilderDir, s), Tmpl: "builder.py.tmpl", Data: builder},
			render.File{Path: kernelPath(s), Tmpl: "kernel.cl.tmpl", Data: kernel, Owned: true},
		)
	}
	return tmpl.Package(pkg, files, d)
}

// keptOps says which ops of pkg need no model: every file the op
// generates alone is kept and each of its sections of the package files
// is stored under its key (pkg.Reuse).
func keptOps(pkg *ir.Package, ops []*ir.Op) []bool {
	kept := make([]bool, len(ops))
	if pkg.Reuse == nil || len(pkg.Reuse.Kept) == 0 {
		return kept
	}
	workpool.Parallel(len(ops), func(i int) {
		op := ops[i]
		for _, p := range opFiles(stem(op)) {
			if !pkg.Reuse.Kept[pkg.Name+"/"+p] {
				return
			}
		}
		kept[i] = render.StoredAll(pkg, op, opSections...)
	})
	return kept
}

// opFiles are the files below its package's directory that the op of
// stem generates alone: its plugin for each Compass stage and its kernel.
func opFiles(stem string) []string {
	return []string{pluginPath(ParserDir, stem), pluginPath(OPTDir, stem), pluginPath(BuilderDir, stem), kernelPath(stem)}
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
		for _, p := range opFiles(stem(op)) {
			out = append(out, target.Path{Path: p, Op: op})
		}
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
