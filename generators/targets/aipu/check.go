// Package aipu is the Arm China Compass AIPU plugin target: per op a Parser
// plugin, an Optimizer (OPT) plugin, a GBuilder plugin and a Compass OpenCL
// kernel.
package aipu

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/validate"
)

// KnownTargets are the Compass targets opforge knows toolchain settings
// for; an op without a targets list is built for all of them. They move to
// toolchains/aipu.yaml with the build.
var KnownTargets = []string{"X1_1204", "X2_1204", "X2_1204MP3", "X3P_1304", "X3S_1304"}

// constantSuffixes make the Compass IR reader treat a key group as a
// constant tensor, so params may not end in them.
var constantSuffixes = []string{"_offset", "_type", "_size", "_shape"}

// quantSuffixes are the keys the Optimizer's IR reader folds into a
// constant's quantization (<constant>_scale, _zp, _range): a constant whose
// name ends in one is taken for another constant's scale or zero point.
var quantSuffixes = []string{"_scale", "_zp", "_range"}

// nodeKeys are the keys of the Parser's node dictionary that describe the
// node itself (ONNX: name, type, input, output, domain, out_port); a
// framework attribute of the same name collides with them.
var nodeKeys = map[string]bool{"name": true, "type": true, "input": true, "output": true, "domain": true, "out_port": true}

// retyped matches string values the OPT IR reader would turn into numbers,
// booleans or dtypes.
var retyped = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^([+-]?[0-9.]+([eE][+-]?[0-9]+)?|true|false|u?int(8|16|32|64)|float(16|32|64)|bfloat16|bool)$`)
})

// Ops returns the ops of pkg this target generates.
func Ops(pkg *ir.Package) []*ir.Op {
	return pkg.OpsWhere(func(op *ir.Op) bool { return op.Sections.Has(targetName) })
}

// Check implements target.Target.
func (Target) Check(pkg *ir.Package, d *diag.TargetList) {
	ops := Ops(pkg)
	for _, op := range ops {
		sec := op.Sections.Get(targetName)
		o := decode(op, sec)
		sec.Options, sec.Canonical = o, encode(op, o)
	}
	checkUnique(ops, d)
	for _, op := range ops {
		checkOp(op, d)
		checkParamTyped(op, d)
	}
}

// checkUnique reports two ops of a package that would meet in one Compass
// registry: the Parser keeps the first plugin per framework op type (and
// registers it upper-cased too), the Optimizer and GBuilder match layer
// types exactly, and the plugin modules share one namespace per stage.
func checkUnique(ops []*ir.Op, d *diag.TargetList) {
	kinds := []struct {
		key    func(*ir.Op) string
		what   func(*ir.Op) string
		reason string
	}{
		{func(op *ir.Op) string { return strings.ToUpper(OpOptions(op).FrameworkOp) },
			func(op *ir.Op) string { return fmt.Sprintf("framework op type %q", OpOptions(op).FrameworkOp) },
			"the Parser keeps only the first plugin registered for a framework op type (compared upper-cased too)"},
		{func(op *ir.Op) string { return OpOptions(op).LayerType },
			func(op *ir.Op) string { return fmt.Sprintf("layer type %q", OpOptions(op).LayerType) },
			"the Optimizer and GBuilder would hold two plugins for one layer type"},
		{stem, func(op *ir.Op) string { return "plugin module names aipubt_*_" + stem(op) },
			"each stage would import only one of two modules with the same name"},
	}
	for _, k := range kinds {
		first := map[string]string{}
		for _, op := range ops {
			key := k.key(op)
			if prev, dup := first[key]; dup {
				d.Errorf(OpOptions(op).Pos, "aipu-duplicate", "op %s has the %s of op %s; %s", op.Name, k.what(op), prev, k.reason)
				continue
			}
			first[key] = op.Name
		}
	}
}

// stem is the snake-case name of an op's files (aipubt_parser_<stem>.py).
func stem(op *ir.Op) string { return names.Snake(op.Name) }

// kernelFile is the file name of the kernel of the op whose stem is stem.
func kernelFile(stem string) string { return stem + ".cl" }

// takesDType reports a dtype an AIPU kernel can take (an invalid one is
// the schema's to report).
func takesDType(dt ir.DType) bool {
	_, ok := spellings[dt]
	return ok || !dt.Valid()
}

func checkOp(op *ir.Op, d *diag.TargetList) {
	a := OpOptions(op)
	for _, t := range a.Targets {
		if !slices.Contains(KnownTargets, t) {
			d.Warnf(a.Pos, "aipu-target", "op %s names Compass target %q, which opforge has no toolchain settings for; known: %s", op.Name, t, strings.Join(KnownTargets, ", "))
		}
	}
	if builtinLayerTypes()[a.LayerType] && !a.OverrideBuiltin {
		d.Warnf(a.Pos, "aipu-builtin", "layer type %q of op %s is a built-in Compass Optimizer op; at the built-in's version the one registered last wins, so set override_builtin: true to replace it on purpose, or choose another layer_type", a.LayerType, op.Name)
	}
	for _, t := range op.Tensors() {
		for _, dt := range op.AllowedDTypes(t) {
			if !takesDType(dt) {
				d.Errorf(t.Where.At("type", t.Pos), "aipu-dtype", "%q of op %s may be %s; AIPU kernels have no %s type (no 64-bit, string or 4-bit types)%s", t.Name, op.Name, dt, dt, validate.NarrowingHint(op, "aipu", takesDType))
			}
		}
		if t.Variadic {
			d.Errorf(t.Where.At("variadic", t.Pos), "aipu-variadic", "%q of op %s is variadic; an AIPU kernel takes a fixed argument list%s, so give it one tensor per argument", t.Name, op.Name, map[bool]string{true: " (count: " + t.Count + " does not change that: the kernel's arguments are fixed when it is compiled)"}[t.Count != ""])
		}
	}
	for _, t := range op.Inputs {
		if t.Optional {
			d.Errorf(t.Where.At("optional", t.Pos), "aipu-optional-input", "input %q of op %s is optional; GBuilder passes the kernel one buffer per input and has none to pass for a missing one, so split the op or make the input required", t.Name, op.Name)
		}
		if t.Static {
			checkStatic(op, t, d)
			checkConstantName(op, t.Name, t.Ident, t.Where.At("name", t.Pos), d)
		}
	}
	for _, t := range op.Outputs {
		if t.Shape == nil && t.Like == nil && t.Broadcast == nil {
			d.Errorf(t.Where.At("name", t.Pos), "aipu-output-shape", "output %q of op %s has no shape; the Parser plugin's infer_shape needs one", t.Name, op.Name)
		}
	}
	for _, s := range op.DataDependent {
		d.Errorf(s.Pos, "aipu-data-dependent", "size %s of op %s is known only after the kernel ran; Compass plugins must give every output shape when the graph is parsed", s.Name, op.Name)
	}
	for _, p := range op.Params {
		checkParam(op, p, d)
	}
}

// checkStatic: GBuilder sees a constant (a static input) only through the
// layer, so the kernel variant cannot depend on its dtype.
func checkStatic(op *ir.Op, t *ir.Tensor, d *diag.TargetList) {
	if t.Type.Var != "" {
		for _, o := range op.Tensors() {
			if o.Type.Var == t.Type.Var && !o.Static {
				return
			}
		}
	}
	if ds := distinctCompass(op.AllowedDTypes(t)); len(ds) > 1 {
		d.Errorf(t.Where.At("type", t.Pos), "aipu-static-dtype", "static input %q of op %s may be %s; GBuilder picks the kernel by the dtypes of the layer's inputs and outputs and cannot see a constant's, so give it one dtype or a type variable it shares with an input or output", t.Name, op.Name, dtypeList(ds))
	}
}

func dtypeList(ds []ir.DType) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = string(d)
	}
	return strings.Join(s, ", ")
}

// checkConstantName checks the key a constant (static input or tensor
// param) gets in the IR.
func checkConstantName(op *ir.Op, name, ident string, pos diag.Pos, d *diag.TargetList) {
	for _, suf := range append(append([]string{}, constantSuffixes...), quantSuffixes...) {
		if strings.HasSuffix(ident, suf) {
			d.Errorf(pos, "aipu-constant-name", "%q of op %s becomes a constant of the Compass IR layer, and its name ends in %s; the Optimizer's IR reader would take it for part of another constant", name, op.Name, suf)
		}
	}
}

func checkParam(op *ir.Op, p *ir.Param, d *diag.TargetList) {
	namePos := p.Where.At("name", p.Pos)
	for _, suf := range constantSuffixes {
		if strings.HasSuffix(p.Ident, suf) {
			d.Errorf(namePos, "aipu-param-name", "param %q of op %s ends in %s; the Compass IR reader would take it for part of a constant tensor", p.Name, op.Name, suf)
		}
	}
	if strings.HasPrefix(p.Ident, "layer_") {
		d.Errorf(namePos, "aipu-param-name", "param %q of op %s starts with layer_, the prefix of the Compass IR's own layer keys", p.Name, op.Name)
	}
	if nodeKeys[p.Name] {
		d.Errorf(namePos, "aipu-param-name", "param %q of op %s has the name of a key the Parser's node dictionary uses for the node itself (name, type, input, output, domain, out_port)", p.Name, op.Name)
	}
	check := func(s string, pos diag.Pos) {
		if strings.ContainsAny(s, "=\n") {
			d.Errorf(pos, "aipu-param-value", "value %q of param %q contains '=' or a newline, which Compass IR key=value lines cannot hold", s, p.Name)
		} else if retyped().MatchString(s) {
			d.Warnf(pos, "aipu-param-retyped", "string value %q of param %q looks like a number, boolean or dtype; the Compass IR reader will re-type it", s, p.Name)
		}
	}
	if p.Kind == ir.ParamString && p.Default != nil {
		check(p.Default.Text, p.Where.At("default", p.Pos))
	}
	if p.Kind == ir.ParamEnum && !choosesDType(op, p) {
		for _, v := range p.Values {
			check(v, p.Where.At("values", p.Pos))
		}
	}
	typePos := p.Where.At("type", p.Pos)
	switch paramPassing(p) {
	case passNone:
		what := "a string"
		if p.Kind == ir.ParamArray {
			what = "a variable-length array"
		}
		d.Warnf(typePos, "aipu-kernel-param", "param %q of op %s is %s, which no AIPU kernel argument can hold; the kernel does not receive it (the IR layer, the OPT forward and GBuilder's generate_params still see it)", p.Name, op.Name, what)
	case passBuffer:
		checkConstantName(op, p.Name, p.Ident, namePos, d)
		if dt := p.DTypes[0]; dt.Valid() && (spellings[dt].OpenCL == "" || dt == ir.BFloat16) {
			d.Errorf(typePos, "aipu-param-dtype", "tensor param %q of op %s is %s; the Parser stores it as a numpy constant for the kernel, which takes no %s", p.Name, op.Name, dt, dt)
		}
	default:
		if dt := scalarDType(p); dt.Valid() && !scalarParamDTypes[dt] {
			d.Errorf(typePos, "aipu-param-dtype", "param %q of op %s is %s; AIPU kernel scalars are int8, uint8, int16, uint16, int32, uint32, float16 or float32 (GBuilder encodes them through numpy, Compass OpenCL has no 64-bit types)", p.Name, op.Name, dt)
		}
	}
}

// choosesDType reports a param some output takes its dtype from: its
// values are dtype names, which the Compass IR reader turning them into
// Dtypes is what the OPT plugin wants.
func choosesDType(op *ir.Op, p *ir.Param) bool {
	for _, o := range op.Outputs {
		if o.DTypeParam == p.Name {
			return true
		}
	}
	return false
}
