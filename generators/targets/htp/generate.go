package htp

import (
	"path"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/literal"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/target"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
	"github.com/opforge/opforge/generators/targets/htp/qnnxml"
	"github.com/opforge/opforge/generators/workpool"
	"github.com/opforge/opforge/templates"
)

var tmpl = render.MustLoad(templates.FS, "htp", nil)

// Generate emits the package tree qnn-op-package-generator would, plus the
// ExecuTorch registration module: paths relative to out/htp/. The
// Makefile names the pins of the toolchain descriptor (Target.toolchain).
func (t Target) Generate(pkg *ir.Package, d *diag.TargetList) *fileset.Set {
	ops := Ops(pkg)
	if len(ops) == 0 {
		return nil
	}
	tc, err := t.toolchain()
	if err != nil {
		d.Errorf(diag.Pos{File: t.toolchainDir()}, "toolchain", "%v", err)
		return nil
	}
	m := newPackageModel(pkg, ops, tc)
	// The config is the canonical QNN XML of exactly the ops generated,
	// also when the source was YAML: it is what qnn tools and ExecuTorch's
	// builder read. It is written while the templates render.
	var (
		xml  []byte
		xerr error
		xl   diag.List
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		xml, xerr = configXML(pkg, ops, &xl)
	}()
	files := make([]render.File, 0, 4+len(m.Ops))
	files = append(files,
		render.File{Path: "Makefile", Tmpl: "Makefile.tmpl", Data: m},
		render.File{Path: interfacePath(pkg), Tmpl: "interface.cpp.tmpl", Data: m},
		render.File{Path: "README.md", Tmpl: "README.md.tmpl", Data: m},
	)
	if htpopt.OfPackage(pkg).ExecuTorch {
		files = append(files, render.File{Path: torchPath(pkg), Tmpl: "executorch.py.tmpl", Data: newTorchModel(pkg, ops, m, d), Owned: true, Moved: movedEagerRegions(pkg, ops)})
	}
	for _, op := range m.Ops {
		files = append(files, render.File{Path: opPath(op.Name), Tmpl: "op.cpp.tmpl", Data: op, Owned: true})
	}
	set := tmpl.Package(pkg, files, d)
	<-done
	if xerr != nil || xl.HasErrors() {
		d.Errorf(pkg.Pos, "htp-config", "cannot write config/%s.xml: %v %v", pkg.Name, xerr, xl.Sorted())
	} else {
		name := path.Join(pkg.Name, configPath(pkg))
		_ = set.Add(&fileset.File{Path: name, Data: fileset.WithHeader(name, xml, fileset.GeneratedHeader(pkg.Source)), Source: pkg.Source})
	}
	return set
}

// The paths of a package's files below out/htp/<Package>/, named after
// the package and its ops.
func interfacePath(pkg *ir.Package) string { return "src/" + pkg.Name + "Interface.cpp" }
func torchPath(pkg *ir.Package) string     { return "executorch/" + torchNamespace(pkg) + ".py" }
func opPath(op string) string              { return "src/ops/" + op + ".cpp" }
func configPath(pkg *ir.Package) string    { return "config/" + pkg.Name + ".xml" }

// Paths implements target.Pather: every file Generate writes for pkg.
func (Target) Paths(pkg *ir.Package) []target.Path {
	ops := Ops(pkg)
	if len(ops) == 0 {
		return nil
	}
	out := []target.Path{{Path: "Makefile"}, {Path: interfacePath(pkg)}, {Path: "README.md"}, {Path: configPath(pkg)}}
	if htpopt.OfPackage(pkg).ExecuTorch {
		out = append(out, target.Path{Path: torchPath(pkg)})
	}
	for _, op := range ops {
		out = append(out, target.Path{Path: opPath(op.Name), Op: op})
	}
	return out
}

// packageModel is everything the package-level templates print; all
// decisions are made here, in Go.
type packageModel struct {
	Name           string
	Provider       string
	Legacy         bool
	Ops            []*opModel
	Archs          []archModel
	X86            archModel
	DefaultArch    string
	QNNInclude     string
	QNNTargetLib   string
	AndroidAPI     int
	HostCXX        string
	TorchNamespace string
	// Flags from toolchains/htp.yaml, words of the Makefile's variables
	// (a flag never contains a space).
	CommonFlags, X86Flags, AArch64Flags, HexagonFlags, LinkFlags []string
}

type archModel struct {
	Arch, Upper, SDK, Tools string
}

func newPackageModel(pkg *ir.Package, ops []*ir.Op, d *Descriptor) *packageModel {
	tc := d.HTP
	m := &packageModel{
		Name:           pkg.Name,
		Provider:       pkg.Name + "InterfaceProvider",
		Legacy:         htpopt.OfPackage(pkg).InterfaceStyle == "legacy",
		DefaultArch:    tc.DefaultArch,
		QNNInclude:     tc.QNNInclude,
		QNNTargetLib:   tc.QNNTargetLib,
		AndroidAPI:     tc.AndroidAPI,
		HostCXX:        "clang++",
		TorchNamespace: torchNamespace(pkg),
		X86:            archModel{"x86", "X86", tc.X86.SDK, tc.X86.Tools},
		CommonFlags:    tc.Flags.Common,
		X86Flags:       tc.Flags.X86,
		AArch64Flags:   tc.Flags.AArch64,
		HexagonFlags:   tc.Flags.Hexagon,
		LinkFlags:      tc.Flags.Link,
	}
	if t := d.Tool("host_cxx"); t != nil && len(t.Names) > 0 {
		m.HostCXX = t.Names[0]
	}
	for _, a := range tc.Archs {
		m.Archs = append(m.Archs, archModel{a.Arch, strings.ToUpper(a.Arch), a.SDK, a.Tools})
	}
	m.Ops = make([]*opModel, len(ops))
	workpool.Parallel(len(ops), func(i int) { m.Ops[i] = newOpModel(pkg, ops[i]) })
	return m
}

// opModel is one src/ops/<Op>.cpp. The template ranges over its rows (the
// scalar defaults, the param order, the vendor's tensor names) and joins
// the impl's parameters (Args), which it prints twice.
type opModel struct {
	Package  string
	Name     string
	Func     string // <op_lower>Impl
	CostFunc string
	Defaults []defaultModel
	Args     []string // the impl's parameters, declared: outputs, inputs, params
	// VendorNames declare the names qnn-op-package-generator gives the
	// tensors (out_<i>, in_<i>) where they differ from opforge's, so a
	// kernel body written for the vendor's skeleton compiles unchanged.
	VendorNames []vendorName
	// Order are DEF_PACKAGE_PARAM_ORDER's entries after the op name, one
	// per param; none without params.
	Order []orderEntry
	// TextDefaults name the params whose QNN Default is text that forms no
	// value (`N-1`, `{0,..,0}`): registered as required, as
	// qnn-op-package-generator does, with the text kept for the kernel
	// writer in a comment.
	TextDefaults []textDefault
	NumInputs    int
	NumOutputs   int
	NumParams    int
	// Example names the op's own tensors in the impl region's first
	// contents, which show the tensor API on them; nil for an op without
	// an input or an output.
	Example *tensorExample
}

// tensorExample is what the impl region's comments show the HTP tensor API
// on: the op's first input and output, and its first param ("" for none).
type tensorExample struct {
	In, Out, Param text
}

// vendorName is a reference named as the vendor's skeleton names a tensor:
// [[maybe_unused]] <Qual>auto& <Name> = <Ident>;
type vendorName struct {
	Qual, Name, Ident text
}

// orderEntry is a param in DEF_PACKAGE_PARAM_ORDER: its name as a C
// string, then whether it is required and its default, the address of
// Static when it has one (an optional param), else nullptr.
type orderEntry struct {
	CName, Static text
}

// textDefault is a param whose config default forms no value: its Name
// and that Default (Go-quoted), both as C comment text.
type textDefault struct {
	Name, Default text
}

// text is C++, Python, make or comment text a template prints: an
// identifier, or a literal or expression a named function built. Its
// String method has a pointer receiver on purpose (as the trt and aipu
// targets' text): text/template prints an addressable value whose pointer
// is a fmt.Stringer through that pointer, which spares the copy into an
// interface that printing a plain string field costs, an allocation a
// field. Row fields are addressable (reached through pointers or slices).
type text string

func (t *text) String() string { return string(*t) }

type defaultModel struct {
	Static   string // sg_opDefault<Title>
	Name     string // the param's name as a string
	DataType string // QNN_DATATYPE_...
	Field    string // Qnn_Scalar_t member
	Literal  string // C++ literal (a number, never free text)
}

// scalarField is the Qnn_Scalar_t member holding each dtype, and its C
// type (a bool is a uint8_t, written 1 or 0).
var scalarField = map[ir.DType]struct{ name, ctype string }{
	ir.Float32: {"floatValue", "float"}, ir.Uint32: {"uint32Value", "uint32_t"}, ir.Int32: {"int32Value", "int32_t"},
	ir.Uint16: {"uint16Value", "uint16_t"}, ir.Int16: {"int16Value", "int16_t"}, ir.Int8: {"int8Value", "int8_t"},
	ir.Uint8: {"uint8Value", "uint8_t"}, ir.Bool: {"bool8Value", "uint8_t"},
}

func newOpModel(pkg *ir.Package, op *ir.Op) *opModel {
	lower := strings.ToLower(op.Name)
	m := &opModel{
		Package:    pkg.Name,
		Name:       op.Name,
		Func:       lower + "Impl",
		CostFunc:   lower + "CostFunc",
		NumInputs:  len(op.Inputs),
		NumOutputs: len(op.Outputs),
		NumParams:  len(op.Params),
		Args:       make([]string, 0, len(op.Outputs)+len(op.Inputs)+len(op.Params)),
	}
	for _, t := range op.Outputs {
		m.Args = append(m.Args, "TensorType& "+t.Ident)
	}
	for _, t := range op.Inputs {
		m.Args = append(m.Args, "const TensorType& "+t.Ident)
	}
	for _, p := range op.Params {
		m.Args = append(m.Args, "const Tensor& "+p.Ident)
	}
	m.VendorNames = vendorNames(op)
	if len(op.Inputs) > 0 && len(op.Outputs) > 0 {
		m.Example = &tensorExample{In: text(op.Inputs[0].Ident), Out: text(op.Outputs[0].Ident)}
		if len(op.Params) > 0 {
			m.Example.Param = text(op.Params[0].Ident)
		}
	}
	if len(op.Params) > 0 {
		m.Order = make([]orderEntry, len(op.Params))
	}
	for i, p := range op.Params {
		m.Order[i].CName = text(escape.CString(p.Name))
		if dm, ok := scalarDefault(p); ok {
			m.Defaults = append(m.Defaults, dm)
			m.Order[i].Static = text(dm.Static)
		}
		if p.DefaultText != "" {
			m.TextDefaults = append(m.TextDefaults, textDefault{Name: text(escape.CComment(p.Name)), Default: text(escape.CComment(strconv.Quote(p.DefaultText)))})
		}
	}
	return m
}

// scalarDefault builds the static default of a param whose default is one
// scalar of a dtype Qnn_Scalar_t can hold.
func scalarDefault(p *ir.Param) (defaultModel, bool) {
	if p.Default == nil || !isScalarDefault(p) || len(p.DTypes) == 0 {
		return defaultModel{}, false
	}
	dt := p.DTypes[0]
	field, ok := scalarField[dt]
	if !ok {
		return defaultModel{}, false
	}
	return defaultModel{
		Static:   "sg_opDefault" + title(p.Ident),
		Name:     p.Name,
		DataType: qnnxml.QNNName(dt),
		Field:    field.name,
		Literal:  literal.CPP(literal.OfIndexed(p, p.Default), field.ctype),
	}, true
}

// title upper-cases the first letter of every underscore-separated word,
// like Python's str.title() on identifiers: transpose_in0 -> Transpose_In0.
func title(s string) string {
	b := []byte(s)
	start := true
	for i, c := range b {
		if start && c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
		start = !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
	}
	return string(b)
}

// vendorNames are references named as qnn-op-package-generator names the
// impl's tensors: outputs out_<i> when their name contains "out", inputs
// in_<i> when it contains "in" (vendor doc, HTP skeleton item 4). Only
// names that differ from opforge's and clash with no other argument are
// declared.
func vendorNames(op *ir.Op) []vendorName {
	taken := map[string]bool{}
	for _, t := range op.Outputs {
		taken[t.Ident] = true
	}
	for _, t := range op.Inputs {
		taken[t.Ident] = true
	}
	for _, p := range op.Params {
		taken[p.Ident] = true
	}
	var out []vendorName
	add := func(t *ir.Tensor, prefix, substr, qual string, i int) {
		if !strings.Contains(t.Name, substr) {
			return
		}
		name := prefix + "_" + strconv.Itoa(i)
		if taken[name] {
			return
		}
		taken[name] = true
		out = append(out, vendorName{Qual: text(qual), Name: text(name), Ident: text(t.Ident)})
	}
	for i, t := range op.Outputs {
		add(t, "out", "out", "", i)
	}
	for i, t := range op.Inputs {
		add(t, "in", "in", "const ", i)
	}
	return out
}
