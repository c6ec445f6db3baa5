package trt

import (
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/templates"
)

// Generator is the TensorRT target ready to generate. It needs nothing
// besides the IR: the generated CMakeLists finds TensorRT and CUDA itself.
type Generator struct {
	Target
}

// Generate implements target.Target without the generator: the registry's
// check-only target emits nothing.
func (Target) Generate(*ir.Package, *diag.TargetList) *fileset.Set { return nil }

var tmpl = render.MustLoad(templates.FS, "trt", nil)

// Generate emits one plugin library per package — per op a plugin, its
// creator and its CUDA kernels, the library entry points, the build files —
// and the Python plugins: paths relative to out/trt/.
func (g *Generator) Generate(pkg *ir.Package, d *diag.TargetList) *fileset.Set {
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
	// The README and the Python module render over every op, each on one
	// core: they go first, so they do not finish last (render.Package).
	files := make([]render.File, 0, 7+4*len(m.Ops))
	files = append(files, render.File{Path: "README.md", Tmpl: "README.md.tmpl", Data: m})
	if m.QDP != nil {
		files = append(files, render.File{Path: "python/" + m.QDP.Module + ".py", Tmpl: "qdp.py.tmpl", Data: m.QDP, Owned: true})
	}
	files = append(files,
		render.File{Path: "CMakeLists.txt", Tmpl: "CMakeLists.txt.tmpl", Data: m},
		render.File{Path: pkg.Name + ".map", Tmpl: "exports.map.tmpl", Data: m},
		render.File{Path: "src/" + pkg.Name + "Kernels.h", Tmpl: "kernels.h.tmpl", Data: m},
		render.File{Path: "src/" + pkg.Name + "Common.h", Tmpl: "common.h.tmpl", Data: m},
		render.File{Path: "src/" + pkg.Name + "Library.cpp", Tmpl: library + ".cpp.tmpl", Data: m},
	)
	for _, op := range m.Ops {
		// The op's files get a copy of its model, not a pointer: a field of
		// a struct reached through a pointer is addressable, and
		// text/template prints such a field with an extra lookup of pointer
		// methods and an allocation, at every one of a file's actions.
		var data any = *op
		files = append(files,
			render.File{Path: "src/ops/" + op.Name + "Kernel.h", Tmpl: "kernel.h.tmpl", Data: data},
			render.File{Path: "src/ops/" + op.Name + "Kernel.cu", Tmpl: "kernel.cu.tmpl", Data: data, Owned: true},
			// The plugin class holds user regions too: members, clone,
			// attachToContext, configure, tactics, a supportsFormatCombination hook.
			render.File{Path: "src/ops/" + op.Name + "Plugin.h", Tmpl: plugin + ".h.tmpl", Data: data, Owned: true},
			render.File{Path: "src/ops/" + op.Name + "Plugin.cpp", Tmpl: plugin + ".cpp.tmpl", Data: data, Owned: true},
		)
	}
	return tmpl.Package(pkg, files, d)
}
