// Package trt is the NVIDIA TensorRT plugin target.
package trt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/shapeexpr"
	"github.com/opforge/opforge/generators/validate"
	"github.com/opforge/opforge/generators/workpool"
)

// maxNameBytes is TensorRT's limit on plugin name, version and namespace
// strings, terminator included.
const maxNameBytes = 1024

// qdpReservedNamespaces and qdpReservedArgs come from tensorrt.plugin's
// validation rules.
var (
	qdpReservedNamespaces = map[string]bool{"": true, "trt": true, "tensorrt": true, "std": true}
	qdpReservedArgs       = map[string]bool{"outputs": true, "stream": true, "tactic": true}
	// qdpArrayDTypes are the NDArray element dtypes QDP attributes accept.
	qdpArrayDTypes = map[ir.DType]bool{ir.Int8: true, ir.Int16: true, ir.Int32: true, ir.Int64: true, ir.Float16: true, ir.Float32: true, ir.Float64: true, ir.Bool: true}
)

// qdpModuleNames are the names the generated Python plugin module's
// functions use from module level (qdp.py.tmpl's imports; torch, which the
// impl imports). Its helpers all start with '_', and each op adds its own
// functions (qdpOpNames). TestQDPModuleNamesReserved keeps this complete.
var qdpModuleNames = map[string]bool{"List": true, "Tuple": true, "Union": true, "warnings": true, "np": true, "npt": true, "trt": true, "trtp": true, "triton": true, "tl": true, "torch": true, "os": true, "sys": true, "importlib": true}

// qdpOpNames are the module-level functions of op's Python plugin.
func qdpOpNames(op *ir.Op) []string {
	s := names.Snake(op.Name)
	return []string{s, s + "_autotune", s + "_impl", s + "_aot_impl", s + "_kernel", qdpAttrsFunc(s)}
}

// qdpShadows reports whether an argument named ident would shadow a
// module-level name that op's Python plugin functions use (opNames:
// qdpOpNames(op), made once per op by the caller).
func qdpShadows(opNames []string, ident string) bool {
	return strings.HasPrefix(ident, "_") || qdpModuleNames[ident] || slices.Contains(opNames, ident)
}

// qdpVersion is the version of every Python plugin's creator.
const qdpVersion = "1"

// formatCombinationLimit is IPluginV3OneBuild::kDEFAULT_FORMAT_COMBINATION_LIMIT.
const formatCombinationLimit = 100

// onnxReservedAttrs are node attributes the ONNX parser's plugin importer
// reads itself instead of forwarding them as plugin fields.
var onnxReservedAttrs = map[string]bool{"plugin_version": true, "plugin_namespace": true, "tensorrt_plugin_shape_input_indices": true}

// Ops returns the ops of pkg this target generates.
func Ops(pkg *ir.Package) []*ir.Op {
	return pkg.OpsWhere(func(op *ir.Op) bool { return op.Sections.Has(targetName) })
}

// Check implements target.Target.
func (Target) Check(pkg *ir.Package, d *diag.TargetList) {
	decode(pkg, d)
	ops := Ops(pkg)
	if len(ops) == 0 {
		return
	}
	for _, op := range ops {
		checkIdentity(pkg, op, d)
	}
	checkPluginNames(pkg, ops, d)
	// Each op is checked on its own (it reads the op and the package,
	// and writes only diagnostics), on every core; the diagnostics join
	// in op order.
	subs := make([]*diag.TargetList, len(ops))
	defaulted := make([][]string, len(ops))
	workpool.Parallel(len(ops), func(i int) {
		subs[i] = d.Sub()
		defaulted[i] = checkOpMemo(pkg, ops[i], subs[i])
	})
	for i, op := range ops {
		d.Join(subs[i])
		// One warning per op, where its params are, so an op can
		// acknowledge it (acknowledge: [qdp-default]).
		if params := defaulted[i]; len(params) > 0 {
			d.Warnf(op.Where.At("params", op.Pos), "qdp-default", "Python plugin attributes take no defaults, so callers of the Python plugin of op %s must pass %s explicitly (the C++ plugin applies the defaults)", op.Name, strings.Join(params, ", "))
		}
	}
}

// identityPos is where an op's plugin namespace or version is written: the
// op's override, else the package's field.
func identityPos(pkg *ir.Package, op *ir.Op, what string) diag.Pos {
	if p, ok := OpOptions(op).Where.Lookup("plugin_" + what); ok {
		return p
	}
	if what == "namespace" {
		return pkg.Where.At("namespace", pkg.Where.At("domain", pkg.Pos))
	}
	return pkg.Where.At(what, pkg.Pos)
}

// checkIdentity holds an op's plugin identity to TensorRT's limits and,
// with a Python plugin, to tensorrt.plugin's (an op overriding nothing
// repeats the package's diagnostics, which the list de-duplicates).
func checkIdentity(pkg *ir.Package, op *ir.Op, d *diag.TargetList) {
	id := PluginID(pkg, op)
	for _, s := range []struct{ what, v string }{{"namespace", id.Namespace}, {"version", id.Version}} {
		if len(s.v)+1 > maxNameBytes {
			d.Errorf(identityPos(pkg, op, s.what), "trt-name-length", "plugin %s is %d bytes; TensorRT allows %d including the terminator", s.what, len(s.v), maxNameBytes)
		}
	}
	if OpOptions(op).QDP == nil {
		return
	}
	// Said once for the package when the op takes the package's value.
	switch {
	case id.Version != qdpVersion:
	case OpOptions(op).PluginVersion == "":
		d.Warnf(identityPos(pkg, op, "version"), "trt-qdp-version", "package version %q is the version every Python plugin has, so the C++ plugins and the Python plugins of %s share name, namespace and version and cannot be registered together; give the package another version (e.g. 1.0.0) or set qdp: false", id.Version, pkg.Name)
	default:
		d.Warnf(identityPos(pkg, op, "version"), "trt-qdp-version", "plugin version %q is the version every Python plugin has, so the C++ and the Python plugin of %s share name, namespace and version and cannot be registered together; use another version or set qdp: false", id.Version, op.Name)
	}
	if qdpReservedNamespaces[id.Namespace] {
		d.Errorf(identityPos(pkg, op, "namespace"), "qdp-namespace", "namespace %q cannot hold a Python plugin: tensorrt.plugin refuses the empty namespace and keeps trt, tensorrt and std to itself (C++ plugins may use them); use another namespace, or set targets.trt.qdp: false", id.Namespace)
	}
	if strings.Contains(id.Namespace, ".") {
		d.Errorf(identityPos(pkg, op, "namespace"), "qdp-namespace", "namespace %q contains '.', which Python plugin ids cannot; set package.namespace (it defaults to the domain)", id.Namespace)
	}
}

// checkOpMemo is checkOp, taken from pkg.Checked when this op's check
// passed there with no diagnostic (and remembered there when it does now):
// checkOp reads the op and its package's facts alone, which their digests
// name, and writes only diagnostics and the params it returns.
func checkOpMemo(pkg *ir.Package, op *ir.Op, d *diag.TargetList) []string {
	if pkg.Checked == nil || pkg.Digest == "" || op.Digest == "" {
		return checkOp(pkg, op, d)
	}
	key := "trt " + pkg.Digest + " " + op.Digest
	if v, ok := pkg.Checked.Section(key); ok {
		if v == "" {
			return nil
		}
		return strings.Split(v, "\x00")
	}
	mark := d.Len()
	defaulted := checkOp(pkg, op, d)
	if d.Len() == mark {
		pkg.Checked.Remember(key, strings.Join(defaulted, "\x00"))
	}
	return defaulted
}

// checkOp checks one op and returns the params with defaults its Python
// plugin cannot apply.
func checkOp(pkg *ir.Package, op *ir.Op, d *diag.TargetList) (defaulted []string) {
	t := OpOptions(op)
	checkTriton(op, d)
	for _, in := range op.Inputs {
		checkTensor(op, in, d, false)
		if in.ShapeTensor && PkgOptions(pkg).Legacy {
			d.Errorf(in.Where.At("shape_tensor", in.Pos), "trt-legacy", "shape-tensor input %q of op %s: IPluginV2DynamicExt (targets.trt.legacy) has no shape inputs; they need IPluginV3 (TensorRT 10)", in.Name, op.Name)
		}
	}
	if len(op.Inputs) == 0 {
		for _, out := range op.Outputs {
			if !slices.Contains(op.AllowedDTypes(out), ir.Float32) {
				d.Errorf(out.Where.At("type", out.Pos), "trt-no-input-dtype", "output %q of op %s, which has no inputs, cannot be float32; TensorRT gives the outputs of a plugin without inputs kFLOAT", out.Name, op.Name)
			}
		}
	}
	sizes := map[string]bool{}
	for _, s := range op.DataDependent {
		sizes[s.Name] = true
		if PkgOptions(pkg).Legacy {
			d.Errorf(s.Pos, "trt-legacy", "data-dependent size %s of op %s: IPluginV2DynamicExt (targets.trt.legacy) has no size tensors; they need IPluginV3 (TensorRT 10)", s.Name, op.Name)
		}
	}
	for _, out := range op.Outputs {
		checkTensor(op, out, d, true)
		if out.Shape == nil && out.Like == nil && out.Broadcast == nil {
			d.Errorf(out.Where.At("name", out.Pos), "trt-output-shape", "output %q of op %s has no shape; TensorRT plugins must compute output shapes, so give it one (e.g. shape: [N, C])", out.Name, op.Name)
		}
		for _, dim := range out.Shape {
			if dim.Expr.IsSymbol() {
				continue
			}
			for _, s := range dim.Expr.Symbols() {
				if s.Kind == shapeexpr.Sym && sizes[s.Name] {
					d.Errorf(dim.Pos, "trt-size-expr", "output %q of op %s computes dim %q from data-dependent size %s; TensorRT takes a size tensor only as a whole dim (declare another size for %q)", out.Name, op.Name, dim.Expr.String(), s.Name, dim.Expr.String())
					break
				}
			}
		}
	}
	if c := countedOutput(op); c != nil {
		checkCounted(pkg, op, c, d)
	}
	checkOptional(op, d)
	checkAliases(pkg, op, d)
	checkRealDims(op, d)
	if t.Workspace != nil {
		validate.TargetExpr(op, t.Workspace, t.WorkspacePos, "TensorRT workspace size", d)
		checkWorkspace(op, d)
	}
	for _, p := range op.Params {
		if onnxReservedAttrs[p.Name] || (p.Name == "aot" && t.QDP != nil) {
			d.Errorf(p.Where.At("name", p.Pos), "trt-param-name", "param %q of op %s has the name of an attribute the TensorRT ONNX parser reads itself (plugin_version, plugin_namespace, tensorrt_plugin_shape_input_indices; aot for Python plugins); rename it", p.Name, op.Name)
		}
	}
	if n := layoutOf(op).Count(len(t.Formats)); n > formatCombinationLimit {
		d.Warnf(op.Where.At("types", t.Pos), "trt-format-combinations", "op %s admits %d type and format combinations, more than TensorRT's default limit of %d; the plugin raises getFormatCombinationLimit to %d, which lengthens engine builds (fewer dtypes or formats keep it under the limit)", op.Name, n, formatCombinationLimit, n)
	}
	checkFormatRules(op, t, d)
	for _, p := range op.Params {
		if p.Kind == ir.ParamEnum || len(p.DTypes) == 0 {
			continue
		}
		// A param listing alternatives needs one TensorRT can carry; the
		// plugin takes the first such.
		if fieldDType(p) == "" {
			d.Errorf(p.Where.At("type", p.Pos), "trt-param-dtype", "param %q of op %s has dtype %s, which TensorRT plugin fields cannot carry (no PluginFieldType)", p.Name, op.Name, p.DTypes[0])
		}
	}
	if t.QDP != nil {
		return checkQDP(op, d)
	}
	return nil
}

// takesDType reports a dtype a TensorRT tensor can be (an invalid one is
// the schema's to report).
func takesDType(dt ir.DType) bool { return !dt.Valid() || TensorDType(dt) != "" }

func checkTensor(op *ir.Op, t *ir.Tensor, d *diag.TargetList, output bool) {
	pos := t.Where.At("type", t.Pos)
	for _, dt := range op.AllowedDTypes(t) {
		if !dt.Valid() {
			continue
		}
		if TensorDType(dt) == "" {
			d.Errorf(pos, "trt-dtype", "%q of op %s may be %s, which TensorRT tensors cannot be (no nvinfer1::DataType)%s", t.Name, op.Name, dt, validate.NarrowingHint(op, targetName, takesDType))
		} else if output && (dt == ir.Bool || dt == ir.Uint8) {
			d.Errorf(pos, "trt-output-dtype", "output %q of op %s may be %s; TensorRT plugins cannot produce kBOOL or kUINT8 outputs", t.Name, op.Name, dt)
		}
	}
	if t.Variadic && (!output || t.Count == "") {
		d.Errorf(t.Where.At("variadic", t.Pos), "trt-variadic", "%s", variadicMessage(op, t, output))
	}
}

// checkRealDims refuses the roundings the TensorRT plugins cannot compute.
// They render floor, ceil and round over float params as exact integer
// divisions of fractions (shapeexpr's Syntax.Ratio); min, max, floor_div
// and ceil_div of a real operand have no such form (comparing or dividing
// fractions needs the signs of their denominators). The workspace is
// plain C++ over the profile's dims, which does not yet render a rounding.
func checkRealDims(op *ir.Op, d *diag.TargetList) {
	isFloat := func(e *shapeexpr.Expr) bool { return isFloatParam(op.Param(e.Name)) }
	check := func(e *shapeexpr.Expr, pos diag.Pos, where string) {
		if e == nil {
			return
		}
		if bad := e.RealOperand(isFloat); bad != nil {
			d.Errorf(pos, "trt-real-dim", "%s of op %s uses %s inside a rounding, with a real operand: TensorRT's IExprBuilder and the Python plugin's ShapeExpr compute integers only, so a rounding renders as one integer division of sums, differences, products and quotients, and min, max, floor_div and ceil_div take integer operands there; round each operand first (e.g. min(floor(a), floor(b)))", where, op.Name, bad)
		}
	}
	for _, t := range op.Outputs {
		for _, dim := range t.Shape {
			check(dim.Expr, dim.Pos, fmt.Sprintf("output %q", t.Name))
		}
	}
	for _, s := range op.DataDependent {
		check(s.Upper, s.Where.At("upper", s.Pos), "the upper bound of "+s.Name)
		check(s.Opt, s.Where.At("opt", s.Pos), "the opt value of "+s.Name)
	}
	if o := OpOptions(op); o.Workspace != nil {
		check(o.Workspace, o.WorkspacePos, "the workspace size")
		if r := o.Workspace.Rounded(); len(r) > 0 {
			d.Errorf(o.WorkspacePos, "trt-real-dim", "the workspace size of op %s uses %s, which opforge does not yet render for TensorRT plugins' getWorkspaceSize (output dims may use it)", op.Name, r[0])
		}
	}
}

// variadicMessage says why a variadic tensor (one declared tensor standing
// for as many as the node gives) cannot be a TensorRT plugin's: TensorRT
// itself takes any count of inputs, but the generated plugin gives each
// declared input a fixed index (only trailing optional ones may be left
// out), and its output count (getNbOutputs) is fixed when the plugin is
// created, so only a field of the plugin can give it.
func variadicMessage(op *ir.Op, t *ir.Tensor, output bool) string {
	if output {
		return fmt.Sprintf("variadic output %q of op %s: a TensorRT plugin says its output count (getNbOutputs) when it is created, and no field of the opdef gives that count; name the integer param that does (count: n, with a max) or declare the outputs one by one", t.Name, op.Name)
	}
	return fmt.Sprintf("variadic input %q of op %s: the generated TensorRT plugin reads each declared input at a fixed index, so it takes a count of inputs only by leaving out trailing optional ones; declare the inputs one by one and make the trailing ones optional (a plugin then takes from its required inputs to all)", t.Name, op.Name)
}

// checkQDP enforces tensorrt.plugin's rules for the Python plugin and
// returns the params with defaults it cannot apply.
func checkQDP(op *ir.Op, d *diag.TargetList) (defaulted []string) {
	checkQDPFormats(op, d)
	opNames := qdpOpNames(op)
	// Inputs and outputs are arguments of the Python plugin's functions
	// too (the impl takes outputs and stream, the autotune the tactic).
	for _, t := range op.Tensors() {
		switch {
		case qdpReservedArgs[t.Ident]:
			d.Errorf(t.Where.At("name", t.Pos), "qdp-reserved-name", "tensor %q of op %s: outputs, stream and tactic are reserved argument names in Python plugins; rename it or set targets.trt.qdp: false", t.Name, op.Name)
		case qdpShadows(opNames, t.Ident):
			d.Errorf(t.Where.At("name", t.Pos), "qdp-reserved-name", "tensor %q of op %s is an argument of the Python plugin's functions and would shadow the module's name %s (its imports, names starting with _, and the op's functions); rename it or set targets.trt.qdp: false", t.Name, op.Name, t.Ident)
		}
	}
	if c := countedOutput(op); c != nil {
		d.Errorf(c.Where.At("count", c.Pos), "qdp-count", "counted output %q of op %s: a Python plugin's @trtp.register function lists every output it returns, so its output count cannot come from attribute %s; only the C++ plugin can take it, so set targets.trt.qdp: false for this op", c.Name, op.Name, c.Count)
	}
	for _, in := range op.Inputs {
		if in.Optional {
			d.Errorf(in.Where.At("optional", in.Pos), "qdp-optional-input", "optional input %q of op %s: Python plugins (tensorrt.plugin) take a fixed number of inputs, so only the C++ plugin can leave it out; set targets.trt.qdp: false for this op", in.Name, op.Name)
		}
		if in.ShapeTensor {
			d.Errorf(in.Where.At("shape_tensor", in.Pos), "qdp-shape-tensor", "shape-tensor input %q of op %s: Python plugins (tensorrt.plugin) have no shape inputs; set targets.trt.qdp: false for this op", in.Name, op.Name)
		}
	}
	for _, p := range op.Params {
		pos := p.Where.At("name", p.Pos)
		switch {
		case qdpReservedArgs[p.Name]:
			d.Errorf(pos, "qdp-reserved-name", "param %q of op %s: outputs, stream and tactic are reserved argument names in Python plugins", p.Name, op.Name)
		case !names.IsIdent(p.Name) || names.Reserved(p.Name) == "a Python keyword":
			d.Errorf(pos, "qdp-attr-name", "param %q of op %s is not a Python identifier, so it cannot be a Python plugin attribute; rename it or disable qdp", p.Name, op.Name)
		case qdpShadows(opNames, p.Ident):
			d.Errorf(pos, "qdp-reserved-name", "param %q of op %s is an argument of the Python plugin's functions and would shadow the module's name %s (its imports, names starting with _, and the op's functions); rename it or set targets.trt.qdp: false", p.Name, op.Name, p.Ident)
		}
		switch p.Kind {
		case ir.ParamTensor:
			what := fmt.Sprintf("a rank-%d tensor", p.Rank)
			if p.Rank == ir.RankAny {
				what = "a tensor of any rank"
			}
			d.Errorf(p.Where.At("rank", p.Pos), "qdp-attr-type", "param %q of op %s is %s; Python plugin attributes are scalars, strings or 1-D arrays", p.Name, op.Name, what)
		case ir.ParamArray:
			if len(p.DTypes) > 0 && !qdpArrayDTypes[p.DTypes[0]] {
				d.Errorf(p.Where.At("type", p.Pos), "qdp-attr-type", "param %q of op %s is an array of %s; Python plugin arrays hold int8, int16, int32, int64, float16, float32, float64 or bool", p.Name, op.Name, p.DTypes[0])
			}
		}
		if p.Default != nil {
			defaulted = append(defaulted, p.Name)
		}
	}
	return defaulted
}

// fieldDType is the first of a param's dtypes a PluginField can carry, or "".
func fieldDType(p *ir.Param) ir.DType {
	for _, dt := range p.DTypes {
		if FieldType(dt) != "" {
			return dt
		}
	}
	return ""
}

// checkAliases checks each aliased output against its input: both must
// exist, an input is aliased at most once, it is a regular input, and the
// output has the input's type and shape (it is the same buffer).
func checkAliases(pkg *ir.Package, op *ir.Op, d *diag.TargetList) {
	t := OpOptions(op)
	aliasedBy := map[string]string{}
	for _, a := range t.Aliases {
		var out *ir.Tensor
		for _, o := range op.Outputs {
			if o.Name == a.Output {
				out = o
			}
		}
		in := op.Input(a.Input)
		switch {
		case out == nil || in == nil:
			d.Errorf(a.Pos, "trt-alias", "alias %s -> %s of op %s names an unknown output or input", a.Output, a.Input, op.Name)
			continue
		case PkgOptions(pkg).Legacy:
			d.Errorf(a.Pos, "trt-legacy", "alias %s -> %s of op %s: IPluginV2DynamicExt (targets.trt.legacy) cannot alias outputs; aliasing needs IPluginV3OneBuildV2 (TensorRT 10.3)", a.Output, a.Input, op.Name)
			continue
		case aliasedBy[a.Input] != "":
			d.Errorf(a.Pos, "trt-alias", "input %q of op %s is aliased by outputs %s and %s; TensorRT aliases an input to one output at most", a.Input, op.Name, aliasedBy[a.Input], a.Output)
		case in.ShapeTensor:
			d.Errorf(a.Pos, "trt-alias", "output %q of op %s aliases shape-tensor input %q, which is not a buffer the plugin receives", a.Output, op.Name, a.Input)
		case in.Optional:
			d.Errorf(a.Pos, "trt-alias", "output %q of op %s aliases optional input %q, which a node may leave out; alias a required input", a.Output, op.Name, a.Input)
		case !sameType(in.Type, out.Type):
			d.Errorf(a.Pos, "trt-alias", "output %q of op %s aliases input %q, so it must have the input's type (%s), not %s", a.Output, op.Name, a.Input, typeText(in.Type), typeText(out.Type))
		case !sameShape(in, out):
			d.Errorf(a.Pos, "trt-alias", "output %q of op %s aliases input %q, so it must have the input's shape %s, not %s", a.Output, op.Name, a.Input, shapeText(in), shapeText(out))
		}
		aliasedBy[a.Input] = a.Output
	}
}

func sameType(a, b ir.TypeRef) bool {
	if a.Var != "" || b.Var != "" {
		return a.Var == b.Var
	}
	return typeText(a) == typeText(b)
}

func typeText(t ir.TypeRef) string {
	if t.Var != "" {
		return t.Var
	}
	parts := make([]string, len(t.DTypes))
	for i, d := range t.DTypes {
		parts[i] = string(d)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// sameShape reports whether output out always has input in's shape: it
// is written like in (with no axis changed), or both write the same dims.
func sameShape(in, out *ir.Tensor) bool {
	if l := out.Like; l != nil {
		return l.Input == in.Name && l.Axis == ""
	}
	return in.Shape != nil && shapeText(in) == shapeText(out)
}

// shapeText is a tensor's shape as the opdef wrote it, for messages and
// the generated code's comments.
func shapeText(t *ir.Tensor) string {
	switch {
	case t.Shape != nil:
	case t.Like != nil && t.Like.Axis != "":
		return "(like " + t.Like.Input + ", axis " + t.Like.Axis + ")"
	case t.Like != nil:
		return "(like " + t.Like.Input + ")"
	case t.Broadcast != nil:
		return "(broadcast of " + strings.Join(t.Broadcast.Inputs, ", ") + ")"
	case t.RankRange != nil:
		return fmt.Sprintf("(rank %d to %d)", t.RankRange.Min, t.RankRange.Max)
	case t.Rank == ir.RankAny:
		return "(any rank)"
	default:
		return fmt.Sprintf("(rank %d)", t.Rank)
	}
	parts := make([]string, len(t.Shape))
	for i, dim := range t.Shape {
		parts[i] = dim.Expr.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// checkWorkspace: getWorkspaceSize sees the inputs' dims and the params,
// not the values of shape tensors.
func checkWorkspace(op *ir.Op, d *diag.TargetList) {
	t := OpOptions(op)
	bound := map[string]bool{}
	for _, in := range op.Inputs {
		if in.ShapeTensor {
			continue
		}
		for _, dim := range in.Shape {
			if dim.Expr.IsSymbol() {
				bound[dim.Expr.Name] = true
			}
		}
	}
	for _, s := range op.DataDependent {
		bound[s.Name] = true // validate reports sizes in the workspace (size-in-bound)
	}
	for _, s := range t.Workspace.Symbols() {
		if in := op.Input(s.Name); in != nil && in.ShapeTensor && s.Kind == shapeexpr.ElemSize {
			d.Errorf(t.WorkspacePos, "trt-workspace", "the workspace size of op %s uses %s, but shape tensor %q travels apart from the tensors getWorkspaceSize sees", op.Name, s, s.Name)
			return
		}
		if in := op.Input(s.Name); in != nil && in.ShapeTensor {
			d.Errorf(t.WorkspacePos, "trt-workspace", "the workspace size of op %s reads the values of shape tensor %q, which getWorkspaceSize does not receive; use input dims and params", op.Name, s.Name)
			return
		}
		if s.Kind == shapeexpr.Sym && op.Param(s.Name) == nil && !bound[s.Name] {
			d.Errorf(t.WorkspacePos, "trt-workspace", "the workspace size of op %s uses %q, which only a shape-tensor input's dims bind; getWorkspaceSize sees the dims of the other inputs", op.Name, s.Name)
			return
		}
	}
}

// checkPluginNames refuses two ops of a package registered under one
// identity: the registry keys creators by name, version and namespace, so
// the second would replace the first.
func checkPluginNames(pkg *ir.Package, ops []*ir.Op, d *diag.TargetList) {
	seen := map[PluginIdentity]*ir.Op{}
	for _, op := range ops {
		id := PluginID(pkg, op)
		if first, dup := seen[id]; dup {
			d.Errorf(OpOptions(op).Where.At("plugin_name", op.Pos), "trt-plugin-name", "ops %s and %s are both the plugin %s (namespace %q, version %q); give one another targets.trt.plugin_name", first.Name, op.Name, id.Name, id.Namespace, id.Version)
			continue
		}
		seen[id] = op
	}
}

// checkOptional holds optional inputs to what a plugin can take: a node
// leaves out inputs only from the end (TensorRT hands the plugin the inputs
// present, then the outputs), so optional inputs come last, a shape input
// is never optional, the first data input is always there (the outputs'
// formats and dtypes follow it), and nothing the plugin computes before it
// knows whether an optional input is there (output shapes, size bounds, the
// workspace) may need a dim symbol only an optional input gives.
func checkOptional(op *ir.Op, d *diag.TargetList) {
	var firstOptional *ir.Tensor
	for _, in := range op.Inputs {
		switch {
		case in.Optional && in.ShapeTensor:
			d.Errorf(in.Where.At("optional", in.Pos), "trt-optional-input", "optional shape-tensor input %q of op %s: TensorRT plugins take a fixed number of shape inputs; make it required", in.Name, op.Name)
		case in.Optional && firstOptional == nil:
			firstOptional = in
		case !in.Optional && firstOptional != nil:
			d.Errorf(in.Where.At("name", in.Pos), "trt-optional-input", "input %q of op %s is required but follows optional input %q; a TensorRT node leaves out inputs only from the end, so put the optional inputs last", in.Name, op.Name, firstOptional.Name)
		}
	}
	if firstOptional == nil {
		return
	}
	for _, in := range op.Inputs {
		if in.ShapeTensor {
			continue
		}
		if in.Optional {
			d.Errorf(in.Where.At("optional", in.Pos), "trt-optional-input", "input %q of op %s is its first data input, which a TensorRT plugin needs always there (the outputs follow its format); make it required", in.Name, op.Name)
		}
		break
	}
	facts := op.Derived()
	optionalOnly := func(sym string) (*ir.Tensor, bool) {
		b, ok := facts.Binding(sym)
		if !ok || !op.Inputs[b.Input].Optional {
			return nil, false
		}
		return op.Inputs[b.Input], true
	}
	needs := func(e *shapeexpr.Expr, pos diag.Pos, what string) {
		if e == nil {
			return
		}
		for _, s := range e.Symbols() {
			if s.Kind != shapeexpr.Sym {
				continue
			}
			if in, ok := optionalOnly(s.Name); ok {
				d.Errorf(pos, "trt-optional-shape", "%s of op %s uses %s, which only optional input %q gives; without it TensorRT cannot compute it, so give %s a required input's dim or make %q required", what, op.Name, s.Name, in.Name, s.Name, in.Name)
				return
			}
		}
	}
	for _, out := range op.Outputs {
		for _, dim := range out.Shape {
			needs(dim.Expr, dim.Pos, fmt.Sprintf("the shape of output %q", out.Name))
		}
	}
	for _, s := range op.DataDependent {
		needs(s.Upper, s.Pos, "the upper bound of size "+s.Name)
		needs(s.Opt, s.Pos, "the opt value of size "+s.Name)
	}
	if w := OpOptions(op).Workspace; w != nil {
		needs(w, OpOptions(op).WorkspacePos, "the workspace size")
	}
}
