package aipu

import (
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

// Options are an op's Compass options: its `targets: {aipu: ...}` section,
// decoded by this target (the core keeps the section as an opaque node).
type Options struct {
	// FrameworkOp is the source framework's op type the Parser matches.
	FrameworkOp string
	// LayerType is the Compass IR layer_type; defaults to the op name.
	LayerType string
	// Targets are Compass targets (X2_1204, ...); empty means all known.
	Targets []string
	// OverrideBuiltin makes the OPT plugin replace a built-in of the same name.
	OverrideBuiltin bool
	Pos             diag.Pos
}

// OpOptions are op's Compass options, nil when the op does not generate
// for Compass. Check decodes them once; a package that was not checked
// (a test building IR by hand) has them decoded here.
func OpOptions(op *ir.Op) *Options {
	return ir.OptionsOf(op.Sections, targetName, func(sec *ir.Section) *Options { return decode(op, sec) })
}

const targetName = "aipu"

// decode reads op's aipu section (the opdef schema has refused unknown
// keys and mistyped values; an absent node takes every default).
func decode(op *ir.Op, sec *ir.Section) *Options {
	n := sec.Node
	o := &Options{
		FrameworkOp:     n.Get("framework_op").Text(),
		LayerType:       n.Get("layer_type").Text(),
		Targets:         n.Get("targets").Strings(),
		OverrideBuiltin: n.Get("override_builtin").IsTrue(),
		Pos:             sec.Pos,
	}
	if o.FrameworkOp == "" {
		o.FrameworkOp = op.Name
	}
	if o.LayerType == "" {
		o.LayerType = op.Name
	}
	return o
}

// encode is the canonical section of o: the options that differ from the
// defaults, on one line, as opforge has always written them.
func encode(op *ir.Op, o *Options) *ir.Node {
	n := ir.Map(true)
	if o.FrameworkOp != op.Name {
		n.Set("framework_op", ir.Str(o.FrameworkOp))
	}
	if o.LayerType != op.Name {
		n.Set("layer_type", ir.Str(o.LayerType))
	}
	if len(o.Targets) > 0 {
		n.Set("targets", ir.Strs(o.Targets...))
	}
	if o.OverrideBuiltin {
		n.Set("override_builtin", ir.BoolNode(true))
	}
	return n
}

// ImportSection implements target.Importer: an op imported from ONNX has
// the Compass parser intercept the op type found in the model.
func (Target) ImportSection(opType, name string) *ir.Node {
	return encode(&ir.Op{Name: name}, &Options{FrameworkOp: opType, LayerType: name})
}
