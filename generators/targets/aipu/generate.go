package aipu

import (
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/workpool"
	"github.com/opforge/opforge/templates"
)

// Generator is the AIPU target with what generation needs besides the IR.
type Generator struct {
	Target
	// Targets are the Compass targets of ops that name none (until
	// toolchains/aipu.yaml provides them, KnownTargets).
	Targets []string
}

// New returns the generator with opforge's known Compass targets.
func New() *Generator { return &Generator{Targets: KnownTargets} }

// Generate implements target.Target without the generator's settings: it
// emits nothing, like the registry's other check-only targets.
func (Target) Generate(*ir.Package, *diag.TargetList) *fileset.Set { return nil }

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

// packageModel is the package-level README and Makefile. Both list every
// kernel object, 8,000 for 1,000 ops: too many for template steps, so the
// op models write those lines (objectLines) and they are joined here.
type packageModel struct {
	Name       string
	Ops        []*opModel
	ObjectList string // the Makefile's OBJECTS
	Rules      string // the Makefile's rules
	ObjectRows string // the README's table of objects
}

// joinObjects joins the ops' object lines in op order.
func (m *packageModel) joinObjects() {
	m.ObjectList = m.join(func(o *objectLines) *strings.Builder { return &o.list })
	m.Rules = m.join(func(o *objectLines) *strings.Builder { return &o.rules })
	m.ObjectRows = m.join(func(o *objectLines) *strings.Builder { return &o.rows })
}

func (m *packageModel) join(part func(*objectLines) *strings.Builder) string {
	n := 0
	for _, om := range m.Ops {
		n += part(&om.objects).Len()
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, om := range m.Ops {
		sb.WriteString(part(&om.objects).String())
	}
	return sb.String()
}

// Generate emits, per op, the three plugins and the kernel source, plus
// the package README and Makefile: paths relative to out/aipu/.
func (g *Generator) Generate(pkg *ir.Package, d *diag.TargetList) *fileset.Set {
	ops := Ops(pkg)
	if len(ops) == 0 {
		return nil
	}
	// Op models are independent of each other: build them on every core.
	f := newPackageFacts(pkg, g.Targets)
	m := &packageModel{Name: pkg.Name, Ops: make([]*opModel, len(ops))}
	workpool.Parallel(len(ops), func(i int) { m.Ops[i] = newOpModel(f, ops[i]) })
	m.joinObjects()
	files := make([]render.File, 0, 2+4*len(m.Ops))
	files = append(files,
		render.File{Path: "Makefile", Tmpl: "Makefile.tmpl", Data: m},
		render.File{Path: "README.md", Tmpl: "README.md.tmpl", Data: m},
	)
	for _, om := range m.Ops {
		files = append(files,
			render.File{Path: ParserDir + "/aipubt_parser_" + om.Stem + ".py", Tmpl: "parser.py.tmpl", Data: om.parser},
			render.File{Path: OPTDir + "/aipubt_opt_" + om.Stem + ".py", Tmpl: "opt.py.tmpl", Data: om.opt, Owned: true},
			render.File{Path: BuilderDir + "/aipubt_builder_" + om.Stem + ".py", Tmpl: "builder.py.tmpl", Data: om.builder},
			render.File{Path: KernelDir + "/" + om.KernelFile, Tmpl: "kernel.cl.tmpl", Data: om.kernel, Owned: true},
		)
	}
	return tmpl.Package(pkg, files, d)
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
// every -mcpu: as builds from source (below out/aipu/), as the package
// Makefile's and README's lines, and as the object paths the GBuilder
// docstring names, which it returns.
func (m *opModel) kernelBuilds(source string, mcpus []string, variants []variant) string {
	n := len(mcpus) * len(variants)
	m.builds = make([]KernelBuild, 0, n)
	objects := newCode(4, n)
	rel := KernelDir + "/" + m.KernelFile
	for i, mc := range mcpus {
		for j, v := range variants {
			object := mc + "/" + v.Entry + ".o"
			m.builds = append(m.builds, KernelBuild{Source: source, Object: object, MCPU: mc, Defines: v.Defines})
			m.objects.add(object, rel, mc, v.Flags)
			if i == 0 && j == 0 {
				m.objects.reserve(n - 1)
			}
			objects.line(object)
		}
	}
	return objects.String()
}

// objectLines are what the package Makefile and README say of an op's
// kernel objects, each line starting with its newline.
type objectLines struct {
	list, rules, rows strings.Builder
}

// add writes the lines of the object at path (below the build directory),
// compiled from source (relative to the package) for mcpu with the -D
// flags:
//
//	OBJECTS := \
//		$(BUILD)/<path> \
//
//	$(BUILD)/<path>: <source> | check-aipuocc
//		@mkdir -p $(@D)
//		$(OPFORGE_COMPILER_LAUNCHER) $(AIPUOCC) -c -target aipu -mcpu=<mcpu> <flags> $(AIPUOCC_FLAGS) -o $@ $<
//
//	| `<path>` | `<source>` | `<mcpu>` | `<flags>` |
func (o *objectLines) add(path, source, mcpu, flags string) {
	write(&o.list, "\n\t$(BUILD)/", path, " \\")
	write(&o.rules, "\n$(BUILD)/", path, ": ", source, " | check-aipuocc\n\t@mkdir -p $(@D)\n\t$(OPFORGE_COMPILER_LAUNCHER) $(AIPUOCC) -c -target aipu -mcpu=", mcpu, " ", flags, " $(AIPUOCC_FLAGS) -o $@ $<\n")
	write(&o.rows, "\n| `", path, "` | `", source, "` | `", mcpu, "` | `", flags, "` |")
}

// reserve makes room for the lines of n more objects, about as long as
// those written so far for one.
func (o *objectLines) reserve(n int) {
	for _, sb := range [...]*strings.Builder{&o.list, &o.rules, &o.rows} {
		sb.Grow(n * sb.Len())
	}
}

func write(sb *strings.Builder, parts ...string) {
	for _, p := range parts {
		sb.WriteString(p)
	}
}
