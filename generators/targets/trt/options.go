package trt

import (
	"strconv"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// The TensorRT options are this target's: the core keeps the package's and
// each op's `targets: {trt: ...}` section as an opaque node, and Check
// decodes them (OpOptions, PackageOptions read them).

const targetName = "trt"

// Options are an op's TensorRT options.
type Options struct {
	// Formats are TensorFormat names without the k prefix (LINEAR, CHW32...):
	// every format some rule of FormatRules admits.
	Formats     []string
	FormatRules []FormatRule
	// Aliases maps an output to the input it writes in place.
	Aliases []Alias
	// Workspace is the scratch size in bytes as an expression (nil: none),
	// written at WorkspacePos.
	Workspace    *shapeexpr.Expr
	WorkspacePos diag.Pos
	// QDP options; nil disables the Python plugin.
	QDP *QDPOptions
	// PluginName is the name the plugin is registered and found under
	// (the ONNX node's op_type); "" is the op name.
	PluginName string
	// PluginVersion ("" : the package version) and PluginNamespace (nil:
	// the package namespace; "" is the empty namespace) override the
	// package's for this op's plugin.
	PluginVersion   string
	PluginNamespace *string
	// Where holds where plugin_name, plugin_version and plugin_namespace
	// were written.
	Where ir.Where
	Pos   diag.Pos
}

// Alias ties an output to an input buffer.
type Alias struct {
	Output string
	Input  string
	Pos    diag.Pos
}

// QDPOptions are the options of the Python quickly-deployable plugin.
type QDPOptions struct {
	// Impl is "aot" (Triton, ahead of time) or "jit" (@trtp.impl).
	Impl string
}

// PackageOptions are a package's TensorRT options.
type PackageOptions struct {
	// Legacy selects IPluginV2DynamicExt instead of IPluginV3.
	Legacy bool
	// StaticRegistration adds REGISTER_TENSORRT_PLUGIN for every creator.
	StaticRegistration bool
}

// OpOptions are op's TensorRT options, nil when the op does not generate
// for TensorRT. Check decodes them; IR that was not checked (a test
// building it by hand) has them decoded here, without diagnostics.
func OpOptions(op *ir.Op) *Options {
	return ir.OptionsOf(op.Sections, targetName, decodeOpQuietly)
}

// PkgOptions are pkg's TensorRT options (all off without a section).
func PkgOptions(pkg *ir.Package) *PackageOptions {
	if o := ir.OptionsOf(pkg.Sections, targetName, decodePackage); o != nil {
		return o
	}
	return &PackageOptions{}
}

// decodeOpQuietly decodes a section no check saw, without diagnostics.
func decodeOpQuietly(sec *ir.Section) *Options { return decodeOp(sec, nil) }

func decodePackage(sec *ir.Section) *PackageOptions {
	return &PackageOptions{Legacy: sec.Node.Get("legacy").IsTrue(), StaticRegistration: sec.Node.Get("static_registration").IsTrue()}
}

// decodeOp reads an op's trt section (the opdef schema has refused
// unknown keys and mistyped values); d, when not nil, gets the workspace's
// syntax errors.
func decodeOp(sec *ir.Section, d *diag.TargetList) *Options {
	n := sec.Node
	o := &Options{
		Pos:           sec.Pos,
		PluginName:    n.Get("plugin_name").Text(),
		PluginVersion: n.Get("plugin_version").Text(),
		QDP:           &QDPOptions{Impl: "aot"},
		Where:         ir.Where{},
	}
	for _, k := range []string{"plugin_name", "plugin_version", "plugin_namespace"} {
		if v := n.Get(k); v != nil {
			o.Where.Set(k, v.Pos)
		}
	}
	if v := n.Get("plugin_namespace"); v != nil {
		ns := v.Text()
		o.PluginNamespace = &ns
	}
	o.Formats, o.FormatRules = decodeFormats(n.Get("formats"), d)
	if al := n.Get("aliases"); al != nil {
		for _, e := range al.Entries {
			o.Aliases = append(o.Aliases, Alias{Output: e.Key, Input: e.Value.Text(), Pos: e.KeyPos})
		}
	}
	if w := n.Get("workspace"); w != nil {
		o.Workspace, o.WorkspacePos = workspace(w, d), w.TextPos()
	}
	if q := n.Get("qdp"); q != nil {
		switch {
		case q.IsFalse():
			o.QDP = nil
		case q.Kind == ir.MapNode:
			if impl := q.Get("impl").Text(); impl != "" {
				o.QDP.Impl = impl
			}
		}
	}
	return o
}

// workspace parses the workspace size; a syntax error is reported at its
// column and the size taken as 0.
func workspace(w *ir.Node, d *diag.TargetList) *shapeexpr.Expr {
	if w.Scalar == ir.ScalarInt {
		v, _ := strconv.ParseInt(w.Value, 0, 64)
		return &shapeexpr.Expr{Kind: shapeexpr.Const, Value: v, Col: 1}
	}
	e, err := shapeexpr.Parse(w.Value)
	if err == nil {
		return e
	}
	if d != nil {
		p := w.Pos
		if pe, ok := err.(*shapeexpr.Error); ok {
			if w.Style != ir.StyleBlock {
				p = w.TextPos()
				p.Col += pe.Col - 1
			}
			d.Errorf(p, "shape-syntax", "invalid dimension expression %q: %s", w.Value, pe.Msg)
		} else {
			d.Errorf(p, "shape-syntax", "invalid dimension expression %q: %v", w.Value, err)
		}
	}
	return &shapeexpr.Expr{Kind: shapeexpr.Const, Col: 1}
}

// encodeOp is the canonical section of o: the options that differ from
// the defaults, as opforge has always written them.
func encodeOp(o *Options) *ir.Node {
	n := ir.Map(false)
	rules := o.FormatRules
	if rules == nil { // options built by hand (ImportSection): plain names
		for _, f := range o.Formats {
			rules = append(rules, FormatRule{Format: f})
		}
	}
	if !trivialFormats(rules) {
		n.Set("formats", encodeFormats(rules))
	}
	if len(o.Aliases) > 0 {
		am := ir.Map(true)
		for _, a := range o.Aliases {
			am.Set(a.Output, ir.Str(a.Input))
		}
		n.Set("aliases", am)
	}
	if o.Workspace != nil {
		s := o.Workspace.String()
		if _, err := strconv.Atoi(s); err == nil {
			n.Set("workspace", ir.Int(s))
		} else {
			n.Set("workspace", ir.Str(s))
		}
	}
	if o.PluginName != "" {
		n.Set("plugin_name", ir.Str(o.PluginName))
	}
	if o.PluginVersion != "" {
		n.Set("plugin_version", ir.Str(o.PluginVersion))
	}
	if o.PluginNamespace != nil {
		n.Set("plugin_namespace", ir.Str(*o.PluginNamespace))
	}
	switch {
	case o.QDP == nil:
		n.Set("qdp", ir.BoolNode(false))
	case o.QDP.Impl != "aot":
		n.Set("qdp", ir.Map(true).Set("impl", ir.Str(o.QDP.Impl)))
	}
	if len(n.Entries) == 0 {
		n.Flow = true
	}
	return n
}

// encodePackage is the canonical package section, nil when every option
// is off.
func encodePackage(o *PackageOptions) *ir.Node {
	n := ir.Map(false)
	if o.Legacy {
		n.Set("legacy", ir.BoolNode(true))
	}
	if o.StaticRegistration {
		n.Set("static_registration", ir.BoolNode(true))
	}
	if len(n.Entries) == 0 {
		return nil
	}
	return n
}

// decode decodes pkg's sections and those of its ops, with diagnostics,
// and sets their canonical forms.
func decode(pkg *ir.Package, d *diag.TargetList) {
	if sec := pkg.Sections.Get(targetName); sec != nil {
		o := decodePackage(sec)
		sec.Options, sec.Canonical = o, encodePackage(o)
	}
	for _, op := range pkg.Ops {
		if sec := op.Sections.Get(targetName); sec != nil {
			o := decodeOp(sec, d)
			sec.Options, sec.Canonical = o, encodeOp(o)
		}
	}
}

// ImportSection implements target.Importer: the C++ creator is what the
// ONNX parser finds; the Python plugin (QDP) is left off, the user may
// turn it on.
func (Target) ImportSection(opType, name string) *ir.Node {
	return encodeOp(&Options{Formats: []string{"LINEAR"}})
}

// TorchImportSection implements target.TorchImporter: an op imported from
// torch gets the Python plugin (QDP) beside the C++ one, as a torch user
// has Python and Triton: Torch-TensorRT runs it, and verify's trt-python
// runs its Triton kernel on CPU through Triton's interpreter.
func (Target) TorchImportSection(name string) *ir.Node {
	return encodeOp(&Options{Formats: []string{"LINEAR"}, QDP: &QDPOptions{Impl: "aot"}})
}

// KeepIdentity gives op's plugin the identity its ONNX nodes already name
// (version and namespace where they differ from the package's, and the
// node's op type as plugin name when the op is named otherwise), so the
// creator is registered under it; a no-op for an op without TensorRT.
func KeepIdentity(pkg *ir.Package, op *ir.Op, opType string, version, namespace *string) {
	sec := op.Sections.Get(targetName)
	if sec == nil || version == nil && namespace == nil {
		return
	}
	o := OpOptions(op)
	if version != nil && *version != pkg.Version {
		o.PluginVersion = *version
	}
	if namespace != nil && *namespace != pkg.Namespace {
		o.PluginNamespace = namespace
	}
	if op.Name != opType {
		o.PluginName = opType
	}
	sec.Node, sec.Canonical = encodeOp(o), nil
}
