package aipu

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/reference"
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

// opModel is an op's four plugins, a model for each template holding
// exactly what that template prints (every decision is taken in Go), and
// what the package files and builds need of the op. text/template finds a
// field by scanning the fields of its struct: small structs print faster.
type opModel struct {
	Name       string // for the package README
	LayerType  string
	Stem       string
	KernelFile string
	objects    objectLines // the package Makefile's and README's lines

	parser  *parserModel
	opt     *optModel
	builder *builderModel
	kernel  *clModel
	builds  []KernelBuild // the kernel's objects, for builds without the Makefile
}

// parserModel is what parser.py.tmpl prints. Code bodies are code strings,
// one field to print each.
type parserModel struct {
	Name          string
	Package       string
	FrameworkOp   string
	LayerType     string
	Description   string
	MLDtypes      bool   // infer_shape needs ml_dtypes (bfloat16 outputs)
	ParserVersion string // Python string
	ParserClass   string
	OpType        string // FrameworkOp as a Python string
	Alias         bool   // alias_op_type: the layer type is not the framework op type
	Init          string // __init__ body after super()
	Infer         string // infer_shape body, return included
}

// optModel is what opt.py.tmpl prints. The template quotes LayerType (an
// identifier) and OPTVersion itself.
type optModel struct {
	Name        string
	Package     string
	LayerType   string
	Description string
	Override    bool
	OPTVersion  string
	Stem        string
	Forward     string // forward body before the user region
	ForwardDef  string // default body of the forward region
	QuantDef    string // default body of the quantize region
	// RefModule is the package's reference module name and RefPath its
	// path from the plugin's directory, as Python string arguments of
	// os.path.join (see generators/reference).
	RefModule string
	RefPath   string
}

// builderModel is what builder.py.tmpl prints.
type builderModel struct {
	Name         string
	Package      string
	LayerType    string
	KernelFile   string
	Objects      string // object paths relative to the -L directory, for the docstring
	Targets      string // Python tuple of accepted Compass targets
	Kernel       string // entry base name
	Axes         int
	InputSpecs   string // Python tuple: (axis or None, Compass dtypes) per layer input
	OutputSpecs  string
	EnumTables   string // module-level dicts, enum value -> index
	BuilderClass string
	Score        int
	InLayouts    string
	OutLayouts   string
	Params       string // generate_params body after ro = BuilderParams()
	RankDims     bool   // some kernel argument is a tensor's dim (_dim)
}

// clModel is what kernel.cl.tmpl prints.
type clModel struct {
	Name         string
	Package      string
	LayerType    string
	Description  string
	VariantFlags string // each variant's -D flags, one comment line each
	FP16         bool
	DefaultEntry string // the first variant's
	TypeAxes     []axisModel
	KernelArgs   string // the parameter list, one per line
	RankArgs     string // the rank and dims arguments of tensors of no declared shape, one comment line each
}

type axisModel struct {
	Typedef, Macro, Default, Values string
}

// packageFacts are what every op model of a package shares, worked out
// once rather than per op.
type packageFacts struct {
	pkg       *ir.Package
	version   string         // the package version as a Python string
	prefix    string         // the package's snake-case name, which kernel entries start with
	kernelDir string         // <Package>/kernels, where the kernel sources lie below out/aipu/
	known     compassTargets // for ops that name no targets
}

func newPackageFacts(pkg *ir.Package, known []string) *packageFacts {
	return &packageFacts{
		pkg:       pkg,
		version:   pyString(pkg.Version),
		prefix:    names.Snake(pkg.Name),
		kernelDir: path.Join(pkg.Name, KernelDir),
		known:     newCompassTargets(known),
	}
}

// compassTargets are the Compass targets of an op: the Python tuple its
// GBuilder plugin accepts and the -mcpu values its kernel compiles for.
type compassTargets struct {
	tuple string
	mcpus []string
}

func newCompassTargets(targets []string) compassTargets {
	quoted := make([]string, len(targets))
	for i, t := range targets {
		quoted[i] = pyString(t)
	}
	return compassTargets{tuple: pyTuple(quoted), mcpus: mcpus(targets)}
}

func newOpModel(f *packageFacts, op *ir.Op) *opModel {
	a := OpOptions(op)
	dims := dimSymbols(op)
	k := newKernelModel(f.prefix, op, dims)
	m := &opModel{Name: op.Name, LayerType: a.LayerType, Stem: stem(op)}
	m.KernelFile = m.Stem + ".cl"
	targets := f.known
	if len(a.Targets) > 0 {
		targets = newCompassTargets(a.Targets)
	}
	objects := m.kernelBuilds(path.Join(f.kernelDir, m.KernelFile), targets.mcpus, k.Variants)
	desc := oneLine(op.Description)
	m.parser = newParserModel(f, op, dims, desc)
	m.opt = newOptModel(f.pkg, op, dims, desc, m.Stem)
	m.builder = newBuilderModel(f.pkg, op, k, m.KernelFile, objects, targets.tuple)
	m.kernel = newCLModel(f.pkg, op, k, desc)
	return m
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// parserReserved are the module-level names of the Parser plugin template.
var parserReserved = newNameSet("np", "ml_dtypes", "ParserOp", "register_plugin", "PluginType", "self", "attrs", "framework",
	"input_tensors", "args", "_REQUIRED", "_attr", "_check", "_number", "_numbers", "_bool", "_enum", "_string", "_tensor")

// newParserModel builds the Parser plugin: params from the node attributes
// with the opdef defaults, tensor params and static inputs as constants,
// and output arrays of the declared shapes and dtypes.
func newParserModel(f *packageFacts, op *ir.Op, dims []dimSymbol, desc string) *parserModel {
	a := OpOptions(op)
	m := &parserModel{
		Name:          op.Name,
		Package:       f.pkg.Name,
		FrameworkOp:   a.FrameworkOp,
		LayerType:     a.LayerType,
		Description:   desc,
		ParserVersion: f.version,
		ParserClass:   op.Name + "Parser",
		OpType:        pyString(a.FrameworkOp),
		Alias:         a.LayerType != a.FrameworkOp,
	}
	ctor := newCode(8, len(op.Params))
	for _, p := range op.Params {
		if p.Kind == ir.ParamTensor {
			ctor.line("self.constants[", pyString(p.Ident), "] = _tensor(attrs, ", pyString(p.Name), ", ", m.numpy(p.DTypes[0]), ")")
			continue
		}
		ctor.line("self.params[", pyString(p.Ident), "] = ", parserParam(p))
	}
	m.Init = ctor.String()
	s := newScope(parserReserved)
	l := newLocals(op, dims)
	infer := newCode(8, 2*len(op.Inputs)+len(dims)+len(op.Params)+len(op.Outputs)+2)
	for i, in := range op.Inputs {
		l.inputs[i] = s.claim(in.Ident)
		infer.line(l.inputs[i], " = input_tensors[", strconv.Itoa(i), "]")
	}
	l.bindSymbols(s)
	l.readDims(infer)
	for i, p := range op.Params {
		if shapesRefer(op.Outputs, p.Name) {
			l.params[i] = s.claim(p.Ident)
			infer.line(l.params[i], " = self.params[", pyString(p.Ident), "]")
		}
	}
	for i, in := range op.Inputs {
		if in.Static {
			infer.line("self.constants[", pyString(in.Ident), "] = np.asarray(", l.inputs[i], ")")
			infer.line("self.remove_inputs_at(", strconv.Itoa(i), ")")
		}
	}
	for i, in := range op.Inputs {
		if rr := in.RankRange; rr != nil {
			lo, hi := strconv.Itoa(rr.Min), strconv.Itoa(rr.Max)
			infer.line("if not ", lo, " <= len(", l.inputs[i], ".shape) <= ", hi, ": raise ValueError(", pyString(op.Name+`: input "`+in.Name+`" has `), " + str(len(", l.inputs[i], ".shape)) + ", pyString(" dims; the op takes "+lo+" to "+hi), ")")
		}
	}
	shapes := make([]string, len(op.Outputs))
	for i, o := range op.Outputs {
		shapes[i] = l.shapeOf(op, i, o, s, infer, "np.broadcast_shapes")
	}
	infer.line("return [")
	rules := op.Derived().Outputs
	for i := range op.Outputs {
		infer.line("    np.zeros(", shapes[i], ", dtype=", m.parserDType(op, rules[i], l.inputs), "),")
	}
	infer.line("]")
	m.Infer = infer.String()
	return m
}

// parserParam is the helper call reading one param from the node's
// attributes (by its original name) for the IR (under its identifier).
func parserParam(p *ir.Param) string {
	args := "attrs, " + pyString(p.Name) + ", " + pyDefault(p)
	switch p.Kind {
	case ir.ParamBool:
		return "_bool(" + args + ")"
	case ir.ParamString:
		return "_string(" + args + ")"
	case ir.ParamEnum:
		values := make([]string, len(p.Values))
		for i, v := range p.Values {
			values[i] = pyString(v)
		}
		return "_enum(" + args + ", " + pyTuple(values) + ")"
	}
	kind := "int"
	if elemFloat(p) {
		kind = "float"
	}
	bounds := pyBound(p.Min, elemFloat(p)) + ", " + pyBound(p.Max, elemFloat(p))
	if p.Kind == ir.ParamArray {
		length := "None"
		if p.Length > 0 {
			length = strconv.Itoa(p.Length)
		}
		return "_numbers(" + args + ", " + kind + ", " + length + ", " + bounds + ")"
	}
	return "_number(" + args + ", " + kind + ", " + bounds + ")"
}

// numpy is the numpy dtype expression of d, noting when ml_dtypes is
// needed.
func (m *parserModel) numpy(d ir.DType) string {
	np := spellings[d].NumPy
	m.MLDtypes = m.MLDtypes || strings.HasPrefix(np, "ml_dtypes.")
	return np
}

// parserDType is an output array's dtype, as the op's dtype rule
// (ir.OutputDType) says, in Compass's dtypes. inputs are the inputs'
// locals.
func (m *parserModel) parserDType(op *ir.Op, r ir.OutputDType, inputs []string) string {
	switch r.Rule {
	case ir.DTypeSameAs:
		x := inputs[r.Input]
		if op.Inputs[r.Input].Optional {
			return "(" + x + ".dtype if " + x + " is not None else " + m.numpy(r.DType) + ")"
		}
		return x + ".dtype"
	case ir.DTypeParam:
		// The param holds a dtype name (the Parser reads it as a string).
		entries := make([]string, len(r.Allowed))
		for i, d := range r.Allowed {
			entries[i] = pyString(string(d)) + ": " + m.numpy(d)
		}
		return "{" + strings.Join(entries, ", ") + "}[self.params[" + pyString(op.Params[r.Param].Ident) + "]]"
	case ir.DTypeFollow:
		allowed := distinctCompass(r.Allowed)
		if len(allowed) == 1 {
			break
		}
		set := make([]string, len(allowed))
		for i, d := range allowed {
			set[i] = m.numpy(d)
		}
		x := inputs[r.Input]
		return "(" + x + ".dtype if " + x + ".dtype in " + pyTuple(set) + " else " + set[0] + ")"
	}
	if allowed := distinctCompass(r.Allowed); len(allowed) > 0 {
		return m.numpy(allowed[0])
	}
	return m.numpy(r.DType)
}

// optReserved are the names the OPT plugin template uses.
var optReserved = newNameSet("torch", "self", "args", "OP_TYPE", "Dtype", "OpType", "register_optype", "op_register", "quant_register",
	"dtype2bits", "dtype2range", "dtype2torch_type", "get_linear_quant_params_from_tensor", "is_float", "linear_quantize_clip",
	"out", "shape", "inp", "key", "c", "results", "result")

// newOptModel builds the OPT plugin: the forward binds inputs, params and
// the declared output shapes for the user's code; the defaults produce
// zeros of those shapes and pass quantization through.
func newOptModel(pkg *ir.Package, op *ir.Op, dims []dimSymbol, desc, stem string) *optModel {
	a := OpOptions(op)
	m := &optModel{Name: op.Name, Package: pkg.Name, LayerType: a.LayerType, Description: desc, Override: a.OverrideBuiltin, OPTVersion: optVersion, Stem: stem}
	if a.OverrideBuiltin {
		m.OPTVersion = optOverrideVersion
	}
	s := newScope(optReserved)
	l := newLocals(op, dims)
	forward := newCode(4, len(op.Inputs)+len(op.Params)+len(dims)+len(op.Outputs))
	visible := 0
	for i, in := range op.Inputs {
		l.inputs[i] = s.claim(in.Ident)
		if in.Static {
			forward.line(l.inputs[i], " = self.constants[", pyString(in.Ident), "].betensor")
			continue
		}
		forward.line(l.inputs[i], " = self.inputs[", strconv.Itoa(visible), "].betensor")
		visible++
	}
	for i, p := range op.Params {
		local := s.claim(p.Ident)
		l.params[i] = local
		switch {
		case p.Kind == ir.ParamTensor:
			forward.line(local, " = self.constants[", pyString(p.Ident), "].betensor")
		case p.Default == nil:
			forward.line(local, " = self.get_param(", pyString(p.Ident), ")")
		default:
			forward.line(local, " = self.get_param(", pyString(p.Ident), ", optional=True, default_value=", pyDefault(p), ")")
		}
	}
	l.bindSymbols(s)
	l.readDims(forward)
	shapes := make([]string, len(op.Outputs))
	for i, o := range op.Outputs {
		shapes[i] = s.claim(o.Ident + "_shape")
		forward.line(shapes[i], " = ", l.shapeOf(op, i, o, s, forward, "torch.broadcast_shapes"))
	}
	m.Forward = forward.String()
	// The float forward is the op's reference once the user wrote it; the
	// quantized one, and the float one until then, give zeros.
	args := slices.Clone(l.inputs)
	for i, p := range op.Params {
		v := l.params[i]
		if p.Kind == ir.ParamArray {
			v = "tuple(" + v + ")"
		}
		args = append(args, p.Ident+"="+v)
	}
	def := newCode(4, 6)
	def.line("results = None if self.quantized else _opforge_reference(", strings.Join(args, ", "), ")")
	def.line("if results is None:  # quantized, or no reference written yet: zeros of the declared shapes")
	def.line("    results = [torch.zeros(shape, dtype=dtype2torch_type(out.dtype), device=out.betensor.device)")
	def.line("               for out, shape in zip(self.outputs, ", pyTuple(shapes), ")]")
	def.line("for out, result in zip(self.outputs, results):")
	def.line("    out.betensor = result")
	m.ForwardDef = def.String()
	m.RefModule = pyString(reference.Module(pkg))
	parts := []string{pyString(".."), pyString(".."), pyString("..")}
	for _, part := range strings.Split(reference.Path(pkg), "/") {
		parts = append(parts, pyString(part))
	}
	m.RefPath = strings.Join(parts, ", ")
	m.QuantDef = quantDefault(op)
	return m
}

// quantDefault sets every output's quantization: an output typed like a
// (non-static) input keeps that input's; an integer output is exact
// (scale 1, zero point 0, invariant); a float output of its own is
// quantized as an activation from its calibrated range. The Optimizer
// also requires a dtype for every constant of the layer: float ones are
// quantized as weights, integer ones stay exact (decided by the IR dtype:
// the Optimizer clears the others between its passes).
func quantDefault(op *ir.Op) string {
	c := newCode(4, 7*len(op.Outputs))
	var keys []string
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
		c.lines(
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
	rules := op.Derived().Outputs
	for i, o := range op.Outputs {
		c.line("out = self.outputs[", strconv.Itoa(i), "]  # ", o.Name)
		if r := rules[i]; r.Rule == ir.DTypeParam {
			// The Compass IR reader turns the dtype name into a Dtype.
			c.line("out.dtype = self.get_param(", pyString(op.Params[r.Param].Ident), ")  # chosen by the param")
			c.lines(
				"if is_float(out.dtype):",
				`    out.qbits = self.attrs["q_bits_activation"]`,
				`    out.scale, out.zerop, out.qmin, out.qmax, out.dtype = get_linear_quant_params_from_tensor(out, self.attrs["q_mode_activation"], out.qbits, is_signed=True)`,
				"    out.qinvariant = False",
				"else:",
				"    out.scale, out.zerop, out.qbits, out.qinvariant = 1.0, 0, dtype2bits(out.dtype), True",
				"    out.qmin, out.qmax = dtype2range(out.dtype)")
			continue
		}
		if j, in := sameTypedInput(op, o); in != nil {
			c.line("inp = self.inputs[", strconv.Itoa(j), "]  # ", in.Name, ": the same type")
			c.lines(
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
			c.lines(
				`out.qbits = self.attrs["q_bits_activation"]`,
				`out.scale, out.zerop, out.qmin, out.qmax, out.dtype = get_linear_quant_params_from_tensor(out, self.attrs["q_mode_activation"], out.qbits, is_signed=True)`,
				"out.qinvariant = False")
			continue
		}
		c.line("out.dtype = Dtype.", spellings[d].OPT)
		c.lines("out.scale = 1.0", "out.zerop = 0")
		c.line("out.qbits = ", strconv.Itoa(d.Info().Bits))
		c.lines("out.qinvariant = True", "out.qmin, out.qmax = dtype2range(out.dtype)")
	}
	return c.String()
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

// locals are the names one plugin's Python gives an op's inputs,
// dimension symbols and params, which its shape expressions refer to.
type locals struct {
	op     *ir.Op
	dims   []dimSymbol
	inputs []string // per input
	syms   []string // per dimension symbol
	params []string // per param; "" for a param the plugin does not bind
	// pending are the statements the expressions rendered since need
	// first (reading x.shape[axis]'s axis); checked dedupes them.
	pending []string
	checked map[string]bool
}

func newLocals(op *ir.Op, dims []dimSymbol) *locals {
	return &locals{op: op, dims: dims, inputs: make([]string, len(op.Inputs)), params: make([]string, len(op.Params))}
}

// bindSymbols claims a local for every dimension symbol the inputs bind.
func (l *locals) bindSymbols(s scope) {
	l.syms = make([]string, len(l.dims))
	for i, d := range l.dims {
		l.syms[i] = s.claim(d.name)
	}
}

// readDims writes the lines reading every dimension symbol from its
// input's shape.
func (l *locals) readDims(c *code) {
	for i, d := range l.dims {
		c.line(l.syms[i], " = ", l.inputs[d.index], ".shape[", strconv.Itoa(d.dim), "]")
	}
}

// ref renders the names of a shape expression: symbols and params by
// their locals, shape-tensor elements as ints read from the input.
func (l *locals) ref(e *shapeexpr.Expr) string {
	if e.Kind == shapeexpr.Dim {
		return l.dim(e)
	}
	if e.Kind == shapeexpr.Index {
		if i := slices.IndexFunc(l.op.Inputs, func(in *ir.Tensor) bool { return in.Name == e.Name }); i >= 0 {
			return "int(" + l.inputs[i] + "[" + strconv.Itoa(e.Index) + "])"
		}
	}
	name := ""
	if i := slices.IndexFunc(l.dims, func(d dimSymbol) bool { return d.name == e.Name }); i >= 0 && l.syms != nil {
		name = l.syms[i]
	}
	if i := l.op.ParamIndex(e.Name); i >= 0 && l.params[i] != "" {
		name = l.params[i]
	}
	if name == "" {
		name = names.Ident(e.Name)
	}
	if e.Kind == shapeexpr.Index {
		return name + "[" + strconv.Itoa(e.Index) + "]"
	}
	return name
}

// dim renders x.shape[axis] as an element of the input's shape: a literal
// axis of a fixed rank normalized here, any other axis read, range-checked
// (IndexError) and normalized by statements pending for the caller.
func (l *locals) dim(e *shapeexpr.Expr) string {
	i := slices.IndexFunc(l.op.Inputs, func(in *ir.Tensor) bool { return in.Name == e.Name })
	in, seq := l.op.Inputs[i], l.inputs[i]+".shape"
	if e.Axis == "" && in.Rank != ir.RankAny {
		a, _ := shapeexpr.NormalizeAxis(int64(e.Index), int64(in.Rank))
		return seq + "[" + strconv.FormatInt(a, 10) + "]"
	}
	ident := ""
	pi := l.op.ParamIndex(e.Axis)
	if e.Axis != "" {
		ident = l.params[pi]
		if ident == "" {
			ident = "self.params[" + pyString(l.op.Params[pi].Ident) + "]"
		}
	}
	local, value := shapeexpr.PythonDimAxis(i, pi, e, ident)
	rank := "len(" + seq + ")"
	msg := pyString(l.op.Name+": "+e.String()+" reads axis ") + " + str(" + local + ") + " + pyString(" of input \""+in.Name+"\", which has ") + " + str(" + rank + ") + " + pyString(" dims")
	if l.checked == nil {
		l.checked = map[string]bool{}
	}
	for _, c := range shapeexpr.PythonAxisCheck(local, value, rank, msg) {
		if !l.checked[c] {
			l.checked[c] = true
			l.pending = append(l.pending, c)
		}
	}
	return seq + "[" + local + "]"
}

// shapesRefer reports whether the shape of one of ts refers to name.
func shapesRefer(ts []*ir.Tensor, name string) bool {
	for _, t := range ts {
		if t.Like != nil && t.Like.Replace != nil && refers(t.Like.Replace.Expr, name) {
			return true
		}
		for _, d := range t.Shape {
			if refers(d.Expr, name) {
				return true
			}
		}
	}
	return false
}

// refers reports whether e names name, as a symbol, indexed, or as the
// axis of x.shape[axis].
func refers(e *shapeexpr.Expr, name string) bool {
	if (e.Kind == shapeexpr.Sym || e.Kind == shapeexpr.Index) && e.Name == name || e.Kind == shapeexpr.Dim && e.Axis == name {
		return true
	}
	return slices.ContainsFunc(e.Args, func(a *shapeexpr.Expr) bool { return refers(a, name) })
}

// shapeOf is output i's shape as a Python tuple: its declared dims, or
// the shape of the input it is like (`shape: {like: x}`), whatever its rank.
// With an axis, the statements that read, check and normalize it go to c.
// broadcast is the module function broadcasting shapes (np. or torch.).
func (l *locals) shapeOf(op *ir.Op, i int, o *ir.Tensor, s scope, c *code, broadcast string) string {
	r := op.Derived().Shapes[i]
	if r.Rule == ir.ShapeBroadcastOf {
		shapes := make([]string, len(r.Inputs))
		for k, j := range r.Inputs {
			shapes[k] = "tuple(" + l.inputs[j] + ".shape)"
		}
		return "tuple(" + broadcast + "(" + strings.Join(shapes, ", ") + "))"
	}
	if r.Rule != ir.ShapeSameAs {
		t := shapeTuple(o, l.ref)
		c.lines(l.pending...)
		l.pending = nil
		return t
	}
	in := l.inputs[r.Input]
	lk := o.Like
	if lk.Axis == "" {
		return "tuple(" + in + ".shape)"
	}
	pi := op.ParamIndex(lk.Axis)
	p := op.Params[pi]
	value := l.params[pi]
	if value == "" {
		value = "self.params[" + pyString(p.Ident) + "]"
	}
	local := s.claim("axis_" + o.Ident)
	rank := "len(" + in + ".shape)"
	msg := pyString(op.Name+": param "+p.Name+" is ") + " + str(" + local + ") + " + pyString(", not an axis of input \""+op.Inputs[r.Input].Name+"\" (") + " + str(" + rank + ") + " + pyString(" dims)")
	c.lines(shapeexpr.PythonAxisCheck(local, value, rank, msg)...)
	replace := ""
	if lk.Replace != nil {
		replace = lk.Replace.Expr.Python(l.ref)
		c.lines(l.pending...)
		l.pending = nil
	}
	return shapeexpr.PythonAxisShape(in+".shape", local, replace, "1", lk.Mode == ir.AxisKeep)
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

// newBuilderModel builds the GBuilder plugin from the kernel model, whose
// source is kernelFile and objects the object paths; targets is the
// Python tuple of the Compass targets.
func newBuilderModel(pkg *ir.Package, op *ir.Op, k *kernelModel, kernelFile, objects, targets string) *builderModel {
	a := OpOptions(op)
	m := &builderModel{
		Name:         op.Name,
		Package:      pkg.Name,
		LayerType:    a.LayerType,
		KernelFile:   kernelFile,
		Objects:      objects,
		Targets:      targets,
		Kernel:       k.Base,
		Axes:         len(k.Axes),
		BuilderClass: op.Name + "Plugin",
		Score:        builderScore,
		RankDims:     k.RankDims,
	}
	if a.OverrideBuiltin {
		m.Score = builderOverrideScore
	}
	spec := func(t *ir.Tensor) string {
		axis := "None"
		if i, ok := k.axisOf[t]; ok {
			axis = strconv.Itoa(i)
		}
		allowed := distinctCompass(op.AllowedDTypes(t))
		ds := make([]string, len(allowed))
		for i, d := range allowed {
			ds[i] = pyString(compassName(d))
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
	tables := newCode(0, 1)
	for _, p := range op.Params {
		if p.Kind == ir.ParamEnum && paramPassing(p) == passScalar {
			items := make([]string, len(p.Values))
			for i, v := range p.Values {
				items[i] = pyString(v) + ": " + strconv.Itoa(i)
			}
			tables.line(enumTable(p), " = {", strings.Join(items, ", "), "}")
		}
	}
	m.EnumTables = tables.String()
	params := newCode(8, len(k.Args)+len(op.Params))
	for _, a := range k.Args {
		params.line("ro.append(", a.Python, ")  # ", escape.HashComment(a.Comment))
	}
	for _, p := range op.Params {
		if paramPassing(p) == passNone {
			params.line("# ", p.Name, ": in the IR layer (params[", pyString(p.Ident), "]) only; no kernel argument can hold it")
		}
	}
	m.Params = params.String()
	return m
}

// newCLModel builds the kernel source from the kernel model.
func newCLModel(pkg *ir.Package, op *ir.Op, k *kernelModel, desc string) *clModel {
	m := &clModel{
		Name:         op.Name,
		Package:      pkg.Name,
		LayerType:    OpOptions(op).LayerType,
		Description:  desc,
		FP16:         k.FP16,
		DefaultEntry: k.Variants[0].Entry,
		TypeAxes:     make([]axisModel, len(k.Axes)),
	}
	flags := newCode(0, len(k.Variants))
	flags.sep = "\n//   " // in the header comment
	for _, v := range k.Variants {
		flags.line(v.Flags)
	}
	m.VariantFlags = flags.String()
	for i, ax := range k.Axes {
		vals := make([]string, len(ax.Values))
		for i, v := range ax.Values {
			vals[i] = spellings[v].OpenCL
		}
		m.TypeAxes[i] = axisModel{ax.Typedef, ax.Macro, vals[0], strings.Join(vals, ", ")}
	}
	args := newCode(4, len(k.Args))
	args.sep = ",\n    " // one parameter a line
	for _, arg := range k.Args {
		args.line(arg.Decl)
	}
	m.KernelArgs = args.String()
	ranks := newCode(0, len(k.RankLines))
	ranks.sep = "\n//   "
	for _, l := range k.RankLines {
		ranks.line(escape.CComment(l))
	}
	m.RankArgs = ranks.String()
	return m
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
