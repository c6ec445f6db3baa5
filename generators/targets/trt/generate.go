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
	m := newPackageModel(pkg, ops)
	m.QDP = newQDPModel(pkg, ops, m.Ops)
	if m.QDP != nil {
		m.QDPModule = m.QDP.Module
	}
	plugin, library := "plugin", "library"
	if m.Legacy {
		plugin, library = "plugin_v2", "library_v2"
	}
	if err := renderSections(pkg, ops, m); err != nil {
		d.Errorf(pkg.Pos, "internal", "rendering the package's op sections: %v", err)
		return nil
	}
	// The README and the Python module render over every op, each on one
	// core: they go first, so they do not finish last (render.Package).
	files := make([]render.File, 0, 7+5*len(m.Ops))
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
	for _, op := range m.Ops {
		// The op's files get a copy of its model, not a pointer: a field of
		// a struct reached through a pointer is addressable, and
		// text/template prints such a field with an extra lookup of pointer
		// methods and an allocation, at every one of a file's actions.
		var data any = *op
		files = append(files,
			render.File{Path: opPath(op.Name, "Kernel.h"), Tmpl: "kernel.h.tmpl", Data: data},
			render.File{Path: opPath(op.Name, "Kernel.cu"), Tmpl: "kernel.cu.tmpl", Data: data, Owned: true},
			// The plugin class holds user regions too: members, clone,
			// attachToContext, configure, tactics, a supportsFormatCombination hook.
			render.File{Path: opPath(op.Name, "Plugin.h"), Tmpl: plugin + ".h.tmpl", Data: data, Owned: true},
			render.File{Path: opPath(op.Name, "Plugin.cpp"), Tmpl: plugin + ".cpp.tmpl", Data: data, Owned: true},
		)
		if op.Kernel.Triton != nil {
			files = append(files, render.File{Path: tritonScriptPath(op.Name), Tmpl: "triton.py.tmpl", Data: data})
		}
	}
	return tmpl.Package(pkg, files, d)
}

// renderSections renders the sections the README and the Python module
// repeat per op, each on its own, so that the files render on every core
// and an unchanged op's sections are reused (render.KeyedSections).
func renderSections(pkg *ir.Package, ops []*ir.Op, m *packageModel) error {
	var err error
	if m.OpSections, err = render.KeyedSections(tmpl, pkg, "readme-op", m.Readme, ops); err != nil {
		return err
	}
	if m.QDP == nil {
		return nil
	}
	qops := make([]*ir.Op, len(m.QDP.Ops))
	for i, q := range m.QDP.Ops {
		qops[i] = q.op
	}
	m.QDP.OpSections, err = render.KeyedSections(tmpl, pkg, "qdp-op", m.QDP.Ops, qops)
	return err
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
		for _, suffix := range []string{"Kernel.h", "Kernel.cu", "Plugin.h", "Plugin.cpp"} {
			out = append(out, target.Path{Path: opPath(op.Name, suffix), Op: op})
		}
		if launchesTriton(op) {
			out = append(out, target.Path{Path: tritonScriptPath(op.Name), Op: op})
		}
	}
	return out
}
