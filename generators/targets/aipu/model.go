package aipu

import (
	"fmt"
	"strings"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// Versions of the OPT registrations. The Optimizer's built-ins register at
// 1.0 and the higher version wins, so an op that overrides a built-in
// registers above it.
const (
	optVersion         = "1.0"
	optOverrideVersion = "2.0"
)

// Scores of the GBuilder plugins: the highest score wins among plugins of
// one pattern; an override outbids the usual values (10 in the DSL
// plugin generator, 25 in the how-to).
const (
	builderScore         = 10
	builderOverrideScore = 100
)

// opModel is everything the four per-op templates print; every decision
// is taken here.
type opModel struct {
	Package     string
	Name        string
	Description string
	Stem        string
	LayerType   string
	FrameworkOp string
	Alias       bool // the Parser writes alias_op_type: layer type != framework op type
	Override    bool
	Source      string // the opdef, for the docstrings

	// Parser plugin.
	ParserClass   string
	ParserVersion string
	MLDtypes      bool     // infer_shape needs ml_dtypes (bfloat16 outputs)
	Init          []string // __init__ body after super()
	Infer         []string // infer_shape body, return included

	// OPT plugin.
	OPTVersion string
	Forward    []string // forward body before the user region
	ForwardDef []string // default body of the forward region
	QuantDef   []string // default body of the quantize region

	// GBuilder plugin.
	BuilderClass string
	Score        int
	Targets      string // Python tuple of accepted Compass targets
	Kernel       string // entry base name
	Axes         int
	InputSpecs   string // Python tuple: (axis or None, Compass dtypes) per layer input
	OutputSpecs  string
	EnumTables   []string
	InLayouts    string
	OutLayouts   string
	Params       []string // generate_params lines after ro = BuilderParams()
	Objects      []string // object paths relative to the -L directory, for the docstring

	// Kernel.
	KernelFile string
	KernelArgs []string
	FP16       bool
	TypeAxes   []axisModel
	Variants   []variant
	MCPUs      []string
	Default    variant

	builds []KernelBuild // the kernel's objects, for the package Makefile
}

type axisModel struct {
	Typedef, Macro, Default, Values string
}

func newOpModel(pkg *ir.Package, op *ir.Op, known []string) *opModel {
	a := op.Targets.AIPU
	k := newKernelModel(pkg, op)
	m := &opModel{
		Package:       pkg.Name,
		Name:          op.Name,
		Description:   oneLine(op.Description),
		Stem:          stem(op),
		LayerType:     a.LayerType,
		FrameworkOp:   a.FrameworkOp,
		Alias:         a.LayerType != a.FrameworkOp,
		Override:      a.OverrideBuiltin,
		Source:        pkg.Source,
		ParserClass:   op.Name + "Parser",
		ParserVersion: pkg.Version,
		OPTVersion:    optVersion,
		BuilderClass:  op.Name + "Plugin",
		Score:         builderScore,
		Kernel:        k.Base,
		Axes:          len(k.Axes),
		KernelFile:    stem(op) + ".cl",
		FP16:          k.FP16,
		Variants:      k.Variants,
		Default:       k.Variants[0],
	}
	if a.OverrideBuiltin {
		m.OPTVersion, m.Score = optOverrideVersion, builderOverrideScore
	}
	targets := a.Targets
	if len(targets) == 0 {
		targets = known
	}
	quoted := make([]string, len(targets))
	for i, t := range targets {
		quoted[i] = pyString(t)
	}
	m.Targets = pyTuple(quoted)
	m.MCPUs = mcpus(targets)
	m.builds = m.kernelBuilds()
	for _, b := range m.builds {
		m.Objects = append(m.Objects, b.Object)
	}
	m.parser(op)
	m.opt(op)
	m.builder(op, k)
	for _, ax := range k.Axes {
		vals := make([]string, len(ax.Values))
		for i, v := range ax.Values {
			vals[i] = spellings[v].OpenCL
		}
		m.TypeAxes = append(m.TypeAxes, axisModel{ax.Typedef, ax.Macro, vals[0], strings.Join(vals, ", ")})
	}
	for _, arg := range k.Args {
		m.KernelArgs = append(m.KernelArgs, arg.Decl)
	}
	return m
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// parserHelpers are the module-level names of the Parser plugin template.
var parserHelpers = []string{"np", "ml_dtypes", "ParserOp", "register_plugin", "PluginType", "self", "attrs", "framework",
	"input_tensors", "args", "_REQUIRED", "_attr", "_check", "_number", "_numbers", "_bool", "_enum", "_string", "_tensor"}

// parser builds the Parser plugin: params from the node attributes with
// the opdef defaults, tensor params and static inputs as constants, and
// output arrays of the declared shapes and dtypes.
func (m *opModel) parser(op *ir.Op) {
	for _, p := range op.Params {
		if p.Kind == ir.ParamTensor {
			m.Init = append(m.Init, fmt.Sprintf("self.constants[%q] = _tensor(attrs, %s, %s)", p.Ident, pyString(p.Name), m.numpy(p.DTypes[0])))
			continue
		}
		m.Init = append(m.Init, fmt.Sprintf("self.params[%q] = %s", p.Ident, parserParam(p)))
	}
	s := newScope(parserHelpers...)
	local := map[string]string{}
	for i, in := range op.Inputs {
		local[in.Name] = s.claim(in.Ident)
		m.Infer = append(m.Infer, fmt.Sprintf("%s = input_tensors[%d]", local[in.Name], i))
	}
	syms := bindSymbols(op, s)
	for _, d := range dimSymbols(op) {
		m.Infer = append(m.Infer, fmt.Sprintf("%s = %s.shape[%d]", syms[d.name], local[d.input.Name], d.dim))
	}
	params := map[string]string{}
	for _, p := range shapeParams(op) {
		params[p.Name] = s.claim(p.Ident)
		m.Infer = append(m.Infer, fmt.Sprintf("%s = self.params[%q]", params[p.Name], p.Ident))
	}
	for i, in := range op.Inputs {
		if in.Static {
			m.Infer = append(m.Infer,
				fmt.Sprintf("self.constants[%q] = np.asarray(%s)", in.Ident, local[in.Name]),
				fmt.Sprintf("self.remove_inputs_at(%d)", i))
		}
	}
	ref := exprRef(op, syms, params, func(in *ir.Tensor, i int) string { return fmt.Sprintf("int(%s[%d])", local[in.Name], i) })
	m.Infer = append(m.Infer, "return [")
	for _, o := range op.Outputs {
		m.Infer = append(m.Infer, fmt.Sprintf("    np.zeros(%s, dtype=%s),", shapeTuple(o, ref), m.parserDType(op, o, local)))
	}
	m.Infer = append(m.Infer, "]")
}

// parserParam is the helper call reading one param from the node's
// attributes (by its original name) for the IR (under its identifier).
func parserParam(p *ir.Param) string {
	name, def := pyString(p.Name), pyDefault(p)
	kind := "int"
	if elemFloat(p) {
		kind = "float"
	}
	bounds := pyBound(p.Min, elemFloat(p)) + ", " + pyBound(p.Max, elemFloat(p))
	switch p.Kind {
	case ir.ParamBool:
		return fmt.Sprintf("_bool(attrs, %s, %s)", name, def)
	case ir.ParamString:
		return fmt.Sprintf("_string(attrs, %s, %s)", name, def)
	case ir.ParamEnum:
		values := make([]string, len(p.Values))
		for i, v := range p.Values {
			values[i] = pyString(v)
		}
		return fmt.Sprintf("_enum(attrs, %s, %s, %s)", name, def, pyTuple(values))
	case ir.ParamArray:
		length := "None"
		if p.Length > 0 {
			length = fmt.Sprint(p.Length)
		}
		return fmt.Sprintf("_numbers(attrs, %s, %s, %s, %s, %s)", name, def, kind, length, bounds)
	}
	return fmt.Sprintf("_number(attrs, %s, %s, %s, %s)", name, def, kind, bounds)
}

// numpy is the numpy dtype expression of d, noting when ml_dtypes is
// needed.
func (m *opModel) numpy(d ir.DType) string {
	np := spellings[d].NumPy
	m.MLDtypes = m.MLDtypes || strings.HasPrefix(np, "ml_dtypes.")
	return np
}

// parserDType picks an output array's dtype: a type variable follows the
// first input with the same variable; an output that may have the first
// input's dtype takes it; otherwise its first dtype.
func (m *opModel) parserDType(op *ir.Op, o *ir.Tensor, local map[string]string) string {
	if o.Type.Var != "" {
		for _, in := range op.Inputs {
			if in.Type.Var == o.Type.Var {
				return local[in.Name] + ".dtype"
			}
		}
	}
	allowed := distinctCompass(op.AllowedDTypes(o))
	if len(allowed) == 1 || len(op.Inputs) == 0 {
		return m.numpy(allowed[0])
	}
	set := make([]string, len(allowed))
	for i, d := range allowed {
		set[i] = m.numpy(d)
	}
	first := local[op.Inputs[0].Name]
	return fmt.Sprintf("(%s.dtype if %s.dtype in %s else %s)", first, first, pyTuple(set), set[0])
}

// optHelpers are the names the OPT plugin template uses.
var optHelpers = []string{"torch", "self", "args", "OP_TYPE", "Dtype", "OpType", "register_optype", "op_register", "quant_register",
	"dtype2bits", "dtype2range", "dtype2torch_type", "get_linear_quant_params_from_tensor", "is_float", "linear_quantize_clip",
	"out", "shape", "inp", "key", "c"}

// opt builds the OPT plugin: the forward binds inputs, params and the
// declared output shapes for the user's code; the defaults produce zeros
// of those shapes and pass quantization through.
func (m *opModel) opt(op *ir.Op) {
	s := newScope(optHelpers...)
	local := map[string]string{}
	visible := 0
	for _, in := range op.Inputs {
		local[in.Name] = s.claim(in.Ident)
		if in.Static {
			m.Forward = append(m.Forward, fmt.Sprintf("%s = self.constants[%q].betensor", local[in.Name], in.Ident))
			continue
		}
		m.Forward = append(m.Forward, fmt.Sprintf("%s = self.inputs[%d].betensor", local[in.Name], visible))
		visible++
	}
	params := map[string]string{}
	for _, p := range op.Params {
		params[p.Name] = s.claim(p.Ident)
		switch {
		case p.Kind == ir.ParamTensor:
			m.Forward = append(m.Forward, fmt.Sprintf("%s = self.constants[%q].betensor", params[p.Name], p.Ident))
		case p.Default == nil:
			m.Forward = append(m.Forward, fmt.Sprintf("%s = self.get_param(%q)", params[p.Name], p.Ident))
		default:
			m.Forward = append(m.Forward, fmt.Sprintf("%s = self.get_param(%q, optional=True, default_value=%s)", params[p.Name], p.Ident, pyDefault(p)))
		}
	}
	syms := bindSymbols(op, s)
	for _, d := range dimSymbols(op) {
		m.Forward = append(m.Forward, fmt.Sprintf("%s = %s.shape[%d]", syms[d.name], local[d.input.Name], d.dim))
	}
	ref := exprRef(op, syms, params, func(in *ir.Tensor, i int) string { return fmt.Sprintf("int(%s[%d])", local[in.Name], i) })
	var shapes []string
	for _, o := range op.Outputs {
		name := s.claim(o.Ident + "_shape")
		m.Forward = append(m.Forward, fmt.Sprintf("%s = %s", name, shapeTuple(o, ref)))
		shapes = append(shapes, name)
	}
	m.ForwardDef = []string{
		"for out, shape in zip(self.outputs, " + pyTuple(shapes) + "):",
		"    out.betensor = torch.zeros(shape, dtype=dtype2torch_type(out.dtype), device=out.betensor.device)",
	}
	m.QuantDef = quantDefault(op)
}

// quantDefault sets every output's quantization: an output typed like a
// (non-static) input keeps that input's; an integer output is exact
// (scale 1, zero point 0, invariant); a float output of its own is
// quantized as an activation from its calibrated range. The Optimizer
// also requires a dtype for every constant of the layer: float ones are
// quantized as weights, integer ones stay exact (decided by the IR dtype:
// the Optimizer clears the others between its passes).
func quantDefault(op *ir.Op) []string {
	var lines, keys []string
	for _, in := range op.Inputs {
		if in.Static {
			keys = append(keys, pyString(in.Ident))
		}
	}
	for _, p := range op.Params {
		if p.Kind == ir.ParamTensor {
			keys = append(keys, pyString(p.Ident))
		}
	}
	if len(keys) > 0 {
		lines = append(lines,
			"for key in "+pyTuple(keys)+":  # the layer's constants",
			"    c = self.constants[key]",
			"    if is_float(c.ir_dtype):",
			`        c.qbits = self.attrs["q_bits_weight"]`,
			`        c.scale, c.zerop, c.qmin, c.qmax, c.dtype = get_linear_quant_params_from_tensor(c, self.attrs["q_mode_weight"], c.qbits, is_signed=True)`,
			"        c.betensor = linear_quantize_clip(c.betensor, c.broadcast_scale, c.broadcast_zerop, c.qmin, c.qmax)",
			"        c.qinvariant = False",
			"    else:",
			"        c.dtype, c.scale, c.zerop, c.qbits, c.qinvariant = c.ir_dtype, 1.0, 0, dtype2bits(c.ir_dtype), True",
			"        c.qmin, c.qmax = dtype2range(c.dtype)")
	}
	for i, o := range op.Outputs {
		lines = append(lines, fmt.Sprintf("out = self.outputs[%d]  # %s", i, o.Name))
		if j, in := sameTypedInput(op, o); in != nil {
			lines = append(lines,
				fmt.Sprintf("inp = self.inputs[%d]  # %s: the same type", j, in.Name),
				"out.dtype = inp.dtype",
				"out.scale = inp.scale",
				"out.zerop = inp.zerop",
				"out.qbits = inp.qbits",
				"out.qinvariant = inp.qinvariant",
				"out.qmin, out.qmax = dtype2range(out.dtype)")
			continue
		}
		d := distinctCompass(op.AllowedDTypes(o))[0]
		if d.IsFloat() {
			lines = append(lines,
				`out.qbits = self.attrs["q_bits_activation"]`,
				`out.scale, out.zerop, out.qmin, out.qmax, out.dtype = get_linear_quant_params_from_tensor(out, self.attrs["q_mode_activation"], out.qbits, is_signed=True)`,
				"out.qinvariant = False")
			continue
		}
		lines = append(lines,
			"out.dtype = Dtype."+spellings[d].OPT,
			"out.scale = 1.0",
			"out.zerop = 0",
			fmt.Sprintf("out.qbits = %d", d.Info().Bits),
			"out.qinvariant = True",
			"out.qmin, out.qmax = dtype2range(out.dtype)")
	}
	return lines
}

// sameTypedInput finds the first non-static input an output shares a type
// variable with, or has exactly the same single dtype as.
func sameTypedInput(op *ir.Op, o *ir.Tensor) (int, *ir.Tensor) {
	oa := distinctCompass(op.AllowedDTypes(o))
	visible := 0
	for _, in := range op.Inputs {
		if in.Static {
			continue
		}
		ia := distinctCompass(op.AllowedDTypes(in))
		if (o.Type.Var != "" && in.Type.Var == o.Type.Var) || (len(oa) == 1 && len(ia) == 1 && oa[0] == ia[0]) {
			return visible, in
		}
		visible++
	}
	return 0, nil
}

// bindSymbols claims a local for every dimension symbol the inputs bind.
func bindSymbols(op *ir.Op, s scope) map[string]string {
	syms := map[string]string{}
	for _, d := range dimSymbols(op) {
		syms[d.name] = s.claim(d.name)
	}
	return syms
}

// shapeParams are the params the output shapes refer to, in param order.
func shapeParams(op *ir.Op) []*ir.Param {
	used := map[string]bool{}
	for _, o := range op.Outputs {
		for _, d := range o.Shape {
			for _, e := range d.Expr.Symbols() {
				used[e.Name] = true
			}
		}
	}
	var out []*ir.Param
	for _, p := range op.Params {
		if used[p.Name] {
			out = append(out, p)
		}
	}
	return out
}

// exprRef renders the names of a shape expression: symbols and params by
// their locals, shape-tensor elements through value.
func exprRef(op *ir.Op, syms, params map[string]string, value func(*ir.Tensor, int) string) func(*shapeexpr.Expr) string {
	return func(e *shapeexpr.Expr) string {
		if in := op.Input(e.Name); in != nil && e.Kind == shapeexpr.Index {
			return value(in, e.Index)
		}
		name := syms[e.Name]
		if p, ok := params[e.Name]; ok {
			name = p
		}
		if name == "" {
			name = names.Ident(e.Name)
		}
		if e.Kind == shapeexpr.Index {
			return fmt.Sprintf("%s[%d]", name, e.Index)
		}
		return name
	}
}

// shapeTuple is an output's declared shape as a Python tuple.
func shapeTuple(o *ir.Tensor, ref func(*shapeexpr.Expr) string) string {
	dims := make([]string, len(o.Shape))
	for i, d := range o.Shape {
		dims[i] = d.Expr.Python(ref)
	}
	if len(dims) == 0 {
		return "()"
	}
	return pyTuple(dims)
}

// builder builds the GBuilder plugin from the kernel model.
func (m *opModel) builder(op *ir.Op, k *kernelModel) {
	spec := func(t *ir.Tensor) string {
		axis := "None"
		if i, ok := k.axisOf[t]; ok {
			axis = fmt.Sprint(i)
		}
		var ds []string
		for _, d := range distinctCompass(op.AllowedDTypes(t)) {
			ds = append(ds, pyString(compassName(d)))
		}
		return "(" + axis + ", " + pyTuple(ds) + ")"
	}
	var ins, outs, inLayouts, outLayouts []string
	for _, in := range op.Inputs {
		if !in.Static {
			ins = append(ins, spec(in))
			inLayouts = append(inLayouts, layout(in))
		}
	}
	for _, o := range op.Outputs {
		outs = append(outs, spec(o))
		outLayouts = append(outLayouts, layout(o))
	}
	m.InputSpecs, m.OutputSpecs = tupleOrEmpty(ins), tupleOrEmpty(outs)
	m.InLayouts = "[[" + strings.Join(inLayouts, ", ") + "]]"
	m.OutLayouts = "[[" + strings.Join(outLayouts, ", ") + "]]"
	for _, p := range op.Params {
		if p.Kind == ir.ParamEnum && paramPassing(p) == passScalar {
			items := make([]string, len(p.Values))
			for i, v := range p.Values {
				items[i] = fmt.Sprintf("%s: %d", pyString(v), i)
			}
			m.EnumTables = append(m.EnumTables, fmt.Sprintf("%s = {%s}", enumTable(p), strings.Join(items, ", ")))
		}
	}
	for _, a := range k.Args {
		m.Params = append(m.Params, fmt.Sprintf("ro.append(%s)  # %s", a.Python, a.Comment))
	}
	for _, p := range op.Params {
		if paramPassing(p) == passNone {
			m.Params = append(m.Params, fmt.Sprintf("# %s: in the IR layer (params[%q]) only; no kernel argument can hold it", p.Name, p.Ident))
		}
	}
}

func tupleOrEmpty(items []string) string {
	if len(items) == 0 {
		return "()"
	}
	return pyTuple(items)
}

// layout maps a declared layout to GBuilder's: NHWC and NDHWC by name,
// everything else Flat, the IR's element order, which the kernel indexes
// by the declared shape (the Parser does not transpose plugin layers).
func layout(t *ir.Tensor) string {
	switch t.Layout {
	case ir.LayoutNHWC:
		return "DataLayout.NHWC"
	case ir.LayoutNDHWC:
		return "DataLayout.NDHWC"
	}
	return "DataLayout.Flat"
}
