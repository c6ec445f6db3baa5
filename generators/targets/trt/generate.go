package trt

import (
	"slices"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/target"
	"github.com/opforge/opforge/templates"
)

var tmpl = render.MustLoad(templates.FS, "trt", nil)

// Generate emits one plugin library per package — per op a plugin, its
// creator and its CUDA kernels, the library entry points, the build files —
// and the Python plugins: paths relative to out/trt/. It needs nothing
// besides the IR: the generated CMakeLists finds TensorRT and CUDA itself.
func (Target) Generate(pkg *ir.Package, d *diag.TargetList) *fileset.Set {
	ops := Ops(pkg)
	if len(ops) == 0 {
		return nil
	}
	// An op whose own files and sections are all kept is not modelled:
	// its frame is all the shared files need of it (opFrame).
	frames := keptFrames(pkg, ops)
	m := newPackageModelKeeping(pkg, ops, frames)
	m.QDP = newQDPModel(pkg, ops, m.Ops, frames)
	if m.QDP != nil {
		m.QDPModule = m.QDP.Module
	}
	if err := renderSections(pkg, ops, m); err != nil {
		d.Errorf(pkg.Pos, "internal", "rendering the package's op sections: %v", err)
		return nil
	}
	rememberFrames(pkg, ops, frames, m.Ops)
	plugin, library := "plugin", "library"
	if m.Legacy {
		plugin, library = "plugin_v2", "library_v2"
	}
	// The README and the Python module render over every op, each on one
	// core: they go first, so they do not finish last (render.Package).
	files := make([]render.File, 0, 7+5*len(ops))
	files = append(files, render.File{Path: "README.md", Tmpl: "README.md.tmpl", Data: m})
	if m.QDP != nil {
		files = append(files, render.File{Path: qdpPath(pkg), Tmpl: "qdp.py.tmpl", Data: m.QDP, Owned: true})
	}
	files = append(files,
		render.File{Path: "CMakeLists.txt", Tmpl: "CMakeLists.txt.tmpl", Data: m},
		render.File{Path: mapPath(pkg), Tmpl: "exports.map.tmpl", Data: m},
		render.File{Path: pkgPath(pkg, "Kernels.h"), Tmpl: "kernels.h.tmpl", Data: m},
		render.File{Path: pkgPath(pkg, "Common.h"), Tmpl: "common.h.tmpl", Data: m},
		render.File{Path: pkgPath(pkg, "Library.cpp"), Tmpl: library + ".cpp.tmpl", Data: m},
	)
	for i, f := range frames {
		// The op's files get a copy of its model, not a pointer: a field of
		// a struct reached through a pointer is addressable, and
		// text/template prints such a field with an extra lookup of pointer
		// methods and an allocation, at every one of a file's actions. A
		// kept op's files have no model: they are not rendered.
		var data any
		if op := m.Ops[i]; op != nil {
			data = *op
		}
		files = append(files, opRenderFiles(f.Name, f.Triton, plugin, data)...)
	}
	return tmpl.Package(pkg, files, d)
}

// renderSections renders the sections the README and the Python module
// repeat per op, each on its own, so that the files render on every core
// and an unchanged op's sections are reused (render.KeyedSections).
func renderSections(pkg *ir.Package, ops []*ir.Op, m *packageModel) error {
	var err error
	if m.OpSections, err = render.KeyedSections(tmpl, pkg, readmeSection, m.Readme, ops); err != nil {
		return err
	}
	if m.QDP == nil {
		return nil
	}
	m.QDP.OpSections, err = render.KeyedSections(tmpl, pkg, qdpSection, m.QDP.Ops, m.QDP.ops)
	return err
}

// The names of the ops' keyed sections.
const (
	readmeSection = "readme-op"
	qdpSection    = "qdp-op"
)

// opRenderFiles are the files op generates alone, rendered from data (its
// model) with the plugin templates named plugin. The plugin class holds
// user regions too: members, clone, attachToContext, configure, tactics,
// a supportsFormatCombination hook.
func opRenderFiles(op string, triton bool, plugin string, data any) []render.File {
	files := []render.File{
		{Path: opPath(op, "Kernel.h"), Tmpl: "kernel.h.tmpl", Data: data},
		{Path: opPath(op, "Kernel.cu"), Tmpl: "kernel.cu.tmpl", Data: data, Owned: true},
		{Path: opPath(op, "Plugin.h"), Tmpl: plugin + ".h.tmpl", Data: data, Owned: true},
		{Path: opPath(op, "Plugin.cpp"), Tmpl: plugin + ".cpp.tmpl", Data: data, Owned: true},
	}
	if triton {
		files = append(files, render.File{Path: tritonScriptPath(op), Tmpl: "triton.py.tmpl", Data: data})
	}
	return files
}

// The paths of a package's files below out/trt/<Package>/ that are named
// after the package and its ops.
func qdpPath(pkg *ir.Package) string { return "python/" + qdpModule(pkg) + ".py" }

func mapPath(pkg *ir.Package) string { return pkg.Name + ".map" }

func pkgPath(pkg *ir.Package, suffix string) string { return "src/" + pkg.Name + suffix }

func opPath(op, suffix string) string { return "src/ops/" + op + suffix }

// Paths implements target.Pather: every file Generate writes for pkg.
func (Target) Paths(pkg *ir.Package) []target.Path {
	ops := Ops(pkg)
	if len(ops) == 0 {
		return nil
	}
	out := []target.Path{{Path: "README.md"}, {Path: "CMakeLists.txt"}, {Path: mapPath(pkg)}}
	if slices.ContainsFunc(ops, func(op *ir.Op) bool { return OpOptions(op).QDP != nil }) {
		out = append(out, target.Path{Path: qdpPath(pkg)})
	}
	for _, suffix := range []string{"Kernels.h", "Common.h", "Library.cpp"} {
		out = append(out, target.Path{Path: pkgPath(pkg, suffix)})
	}
	for _, op := range ops {
		for _, p := range opFiles(op.Name, launchesTriton(op)) {
			out = append(out, target.Path{Path: p, Op: op})
		}
	}
	return out
}
