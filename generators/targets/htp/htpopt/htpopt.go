// Package htpopt decodes the htp target's sections of an opdef: the core
// keeps the package's and each op's `targets: {htp: ...}` section as an
// opaque, positioned node, and the htp target reads it through this
// package. It is a leaf of its own, not part of package htp, because QNN's
// op-package XML is the htp target's own input format: the XML loader and
// writer (qnnxml), which package htp imports, read and write these options
// too.
package htpopt

import (
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

// Target is the name of the htp target and of its sections.
const Target = "htp"

// Op holds an op's QNN/HTP options.
type Op struct {
	// Backends are QNN's SupportedBackend values (HTP, CPU, LPAI, ...);
	// [HTP] when the section has no backends key.
	Backends []string
	// TorchName is the op's torch.library name for ExecuTorch; "" is the
	// snake-cased op name.
	TorchName string
	// Where holds where backends and torch_name were written.
	Where ir.Where
	// Pos is where the section (or, from XML, SupportedBackend) was
	// written.
	Pos diag.Pos
}

// Package holds a package's QNN/HTP options.
type Package struct {
	// InterfaceStyle is "current" (SDK >= 2.10 registration through
	// INIT_PKG_CORE_INIT_FUNC) or "legacy" (ops registered in <Pkg>Init).
	InterfaceStyle string
	// ExecuTorch enables the ExecuTorch registration module and its checks.
	ExecuTorch bool
	// UseQHPI is the XML OpDefCollection attribute UseQHPI="true": the
	// vendor generator then emits a QHPI package; opforge generates the
	// DEF_PACKAGE_OP skeleton (which the HTP backend accepts beside QHPI
	// packages) and says so. YAML keeps it as targets.htp.use_qhpi, so a
	// config converted to YAML and back still asks for QHPI.
	UseQHPI bool
	// Supplementals are the package's QNN SupplementalOpDefLists, one per
	// backend: per-backend refinements of its ops' tensors (the XML's
	// SupplementalOpDefList elements, the YAML section's supplemental
	// list), checked against the ops by the htp target.
	Supplementals []*Supplemental
}

// DefaultPackage is a package's htp options where its opdef sets none.
func DefaultPackage() *Package { return &Package{InterfaceStyle: "current", ExecuTorch: true} }

// htpBackends are the QNN backends whose op packages the htp target emits.
var htpBackends = map[string]bool{"HTP": true, "HTP_FP16": true, "HTPMCP": true}

// NamesHTP reports whether o names a backend the htp target generates for.
func (o *Op) NamesHTP() bool {
	for _, b := range o.Backends {
		if htpBackends[b] {
			return true
		}
	}
	return false
}

// OfOp returns op's htp options, nil when the op has no htp section. The
// decoded options are kept in the section.
func OfOp(op *ir.Op) *Op {
	return ir.OptionsOf(op.Sections, Target, decodeOp)
}

// OfPackage returns pkg's htp options (the defaults without a section).
func OfPackage(pkg *ir.Package) *Package {
	if o := ir.OptionsOf(pkg.Sections, Target, decodePackage); o != nil {
		return o
	}
	return DefaultPackage()
}

// SetPackage gives sec the package options o a front end built itself
// (QNN's XML, whose elements they are, with their positions) and their
// canonical form; Decode keeps them.
func SetPackage(sec *ir.Section, o *Package) {
	sec.Options, sec.Canonical = o, canonicalPackage(sec, o)
}

// Decode decodes pkg's htp sections and those of its ops and sets their
// canonical forms (the schema has refused unknown keys and mistyped
// values, so decoding reports nothing; the htp target's checks report
// what the schema cannot know, such as a supplemental's unknown dtype).
// Package options a front end set (SetPackage) are kept.
func Decode(pkg *ir.Package) {
	if sec := pkg.Sections.Get(Target); sec != nil {
		o, ok := sec.Options.(*Package)
		if !ok {
			o = decodePackage(sec)
		}
		SetPackage(sec, o)
	}
	for _, op := range pkg.Ops {
		if sec := op.Sections.Get(Target); sec != nil {
			o := decodeOp(sec)
			sec.Options, sec.Canonical = o, EncodeOp(o)
		}
	}
}

func decodeOp(sec *ir.Section) *Op {
	n := sec.Node
	o := &Op{Backends: n.Get("backends").Strings(), TorchName: n.Get("torch_name").Text(), Where: ir.Where{}, Pos: sec.Pos}
	for _, k := range []string{"backends", "torch_name"} {
		if v := n.Get(k); v != nil {
			o.Where.Set(k, v.Pos)
		}
	}
	if n.Get("backends") == nil {
		o.Backends = []string{"HTP"}
	}
	return o
}

func decodePackage(sec *ir.Section) *Package {
	n := sec.Node
	o := &Package{InterfaceStyle: n.Get("interface_style").Text(), ExecuTorch: true, UseQHPI: n.Get("use_qhpi").IsTrue()}
	if v := n.Get("executorch"); v != nil && !v.IsTrue() {
		o.ExecuTorch = false
	}
	if o.InterfaceStyle == "" {
		o.InterfaceStyle = "current"
	}
	o.Supplementals = decodeSupplementals(n)
	return o
}

// EncodeOp is the canonical op section: the options that differ from the
// defaults, as a flow mapping.
func EncodeOp(o *Op) *ir.Node {
	n := ir.Map(true)
	if !(len(o.Backends) == 1 && o.Backends[0] == "HTP") {
		n.Set("backends", ir.Strs(o.Backends...))
	}
	if o.TorchName != "" {
		n.Set("torch_name", ir.Str(o.TorchName))
	}
	return n
}

// EncodePackage is the canonical package section, nil when every option
// is at its default and no supplemental is listed.
func EncodePackage(o *Package) *ir.Node {
	n := encodeOptions(o)
	if len(o.Supplementals) > 0 {
		if n == nil {
			n = ir.Map(false)
		}
		n.Set(supplementalKey, encodeSupplementals(o.Supplementals))
	}
	return n
}

// encodeOptions is the package section's options that differ from the
// defaults, nil when none does.
func encodeOptions(o *Package) *ir.Node {
	n := ir.Map(false)
	if o.InterfaceStyle != "" && o.InterfaceStyle != "current" {
		n.Set("interface_style", ir.Str(o.InterfaceStyle))
	}
	if !o.ExecuTorch {
		n.Set("executorch", ir.BoolNode(false))
	}
	if o.UseQHPI {
		n.Set("use_qhpi", ir.BoolNode(true))
	}
	if len(n.Entries) == 0 {
		return nil
	}
	return n
}
