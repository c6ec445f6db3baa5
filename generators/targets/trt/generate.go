package trt

import (
	"path"
	"strings"

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
	m.QDP = newQDPModel(pkg, ops)
	if m.QDP != nil {
		m.QDPModule = m.QDP.Module
	}
	set := fileset.New()
	add := func(name, tmplName string, data any, owned bool) {
		out, err := tmpl.Execute(tmplName, data)
		if err != nil {
			d.Errorf(pkg.Pos, "internal", "rendering %s: %v", tmplName, err)
			return
		}
		if err := set.Add(&fileset.File{Path: path.Join(pkg.Name, name), Data: out, Source: pkg.Source, Owned: owned}); err != nil {
			d.Errorf(pkg.Pos, "internal", "%v", err)
		}
	}
	plugin := "plugin"
	if m.Legacy {
		plugin = "plugin_v2"
	}
	add("CMakeLists.txt", "CMakeLists.txt.tmpl", m, false)
	add(pkg.Name+".map", "exports.map.tmpl", m, false)
	add("README.md", "README.md.tmpl", m, false)
	add("src/"+pkg.Name+"Kernels.h", "kernels.h.tmpl", m, false)
	add("src/"+pkg.Name+"Common.h", "common.h.tmpl", m, false)
	add("src/"+pkg.Name+"Library.cpp", strings.Replace(plugin, "plugin", "library", 1)+".cpp.tmpl", m, false)
	for _, op := range m.Ops {
		add("src/ops/"+op.Name+"Kernel.h", "kernel.h.tmpl", op, false)
		add("src/ops/"+op.Name+"Kernel.cu", "kernel.cu.tmpl", op, true)
		add("src/ops/"+op.Name+"Plugin.h", plugin+".h.tmpl", op, false)
		add("src/ops/"+op.Name+"Plugin.cpp", plugin+".cpp.tmpl", op, false)
	}
	if m.QDP != nil {
		add("python/"+m.QDP.Module+".py", "qdp.py.tmpl", m.QDP, true)
	}
	return set
}
