package aipu

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/literal"
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
// what the package files and builds need of the op. The templates range
// over the models' typed rows; what must stay Go-built (an escaped
// literal, a shape expression, a dtype verdict) is a field a named Go
// function fills. text/template finds a field by scanning the fields of
// its struct: small structs print faster.
type opModel struct {
	KernelPath text // the kernel source below the package directory: kernels/<op>.cl
	// Objects are the kernel's objects, every variant for every -mcpu: the
	// op's sections of the package Makefile and README (objects.tmpl), the
	// GBuilder docstring.
	Objects    []objectRow
	Stem       string
	KernelFile string

	parser  *parserModel
	opt     *optModel
	builder *builderModel
	kernel  *clModel
	builds  []KernelBuild // the kernel's objects, for builds without the Makefile
}

// objectRow is one kernel object: its path below the build directory
// (<mcpu>/<entry>.o), the -mcpu it compiles for and its variant's -D flags.
type objectRow struct {
	Path, MCPU, Flags text
}

// text is Python, OpenCL, make or comment text a template prints: an
// identifier, or a literal or expression a named function built. Its
// String method has a pointer receiver on purpose (as the trt target's):
// text/template prints an addressable value whose pointer is a
// fmt.Stringer through that pointer, which spares the copy into an
// interface that printing a plain string field costs, an allocation a
// field. Row fields are addressable (reached through pointers or slices).
type text string

func (t *text) String() string { return string(*t) }

// texts converts strings to texts.
func texts(ss []string) []text {
	out := make([]text, len(ss))
	for i, s := range ss {
		out[i] = text(s)
	}
	return out
}

// parserModel is what parser.py.tmpl prints: __init__ reads Init, and
// infer_shape binds Inputs, Dims and Params, turns Statics into
// constants, checks RankChecks and returns arrays of Outputs.
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
	Init          []initRow
	Inputs        []text // the inputs' locals: input_tensors[i]
	Dims          []dimRow
	Params        []paramRow // the params the output shapes read
	Statics       []staticRow
	RankChecks    []rankCheck
	// Relations are the statements checking the op's requires:
	// (ValueError naming the op), after the axis checks they need.
	Relations []text
	Outputs   []outputRow
}

// initRow is one statement of the Parser's __init__: a tensor param read
// into the layer's constants (Constant), any other param into its params,
// under Key (a Python string), by Read, the helper's call (parserParam).
type initRow struct {
	Key, Read text
	Constant  bool
}

// dimRow binds a dimension symbol's local: Local = Input.shape[Dim].
type dimRow struct {
	Local, Input text
	Dim          int
}

// paramRow binds a param's local from the IR: Local = self.params[Key].
type paramRow struct {
	Local, Key text
}

// staticRow is a static input the Parser turns into a constant of the
// layer and removes from the layer's inputs.
type staticRow struct {
	Key, Local text
	Index      int
}

// rankCheck refuses an input whose rank is outside its rank range; Has
// and Takes are the message's parts around the rank, Python strings.
type rankCheck struct {
	Local      text
	Min, Max   int
	Has, Takes text
}

// outputRow is one output's shape: the statements reading and checking an
// axis it needs first (Checks), its local (the OPT forward's), its shape
// as a Python tuple (shapeOf) and its dtype (the Parser's parserDType).
type outputRow struct {
	Checks              []text
	Local, Shape, DType text
}

// optModel is what opt.py.tmpl prints. The template quotes LayerType (an
// identifier) and OPTVersion itself. The forward binds Inputs, Params,
// Dims and the Outputs' shapes before the user region; its default calls
// the reference with RefArgs; the quantize region's default sets the
// Constants' and the outputs' (Quant) quantization.
type optModel struct {
	Name        string
	Package     string
	LayerType   string
	Description string
	Override    bool
	OPTVersion  string
	Stem        string
	Inputs      []binding
	Params      []binding
	Dims        []dimRow
	Outputs     []outputRow
	OneOutput   bool // the tuple of the output shapes takes a trailing comma
	OneConstant bool // the tuple of Constants takes a trailing comma
	// RefArgs are the forward's call of the reference: the inputs' locals,
	// then the params by keyword (k=k), an array as a tuple.
	RefArgs   []string
	Constants []string // the layer's constants, Python strings
	Quant     []quantRow
	// RefModule is the package's reference module name and RefPath its
	// path from the plugin's directory, Python string arguments of
	// os.path.join (see generators/reference).
	RefModule text
	RefPath   []string
}

// binding is a statement of the forward binding a Local: Local = Expr.
// An input's value is its tensor (a static input's from the layer's
// constants, another's from the layer's inputs), a param's its constant
// (a tensor param) or get_param's call, with its default (pyDefault) when
// it has one.
type binding struct {
	Local, Expr text
}

// quantRow is the default quantization of output Index (Name): the dtype
// a param chooses (Param, its key), that of a same-typed input (Input,
// named, at InputIndex among the layer's inputs), a float activation
// (Float), or an exact integer of Compass DType and Bits.
type quantRow struct {
	Index       int
	Name, Param text
	Input       text
	InputIndex  int
	Float       bool
	DType       text
	Bits        int
}

// builderModel is what builder.py.tmpl prints.
type builderModel struct {
	Name       string
	Package    string
	LayerType  string
	KernelFile string
	Objects    []objectRow // the docstring names their paths below the -L directory
	Targets    text        // Python tuple of accepted Compass targets (newCompassTargets)
	Kernel     string      // entry base name
	Axes       int
	// Inputs and Outputs are the layer's tensors' entries of INPUTS and
	// OUTPUTS (newBuilderModel's spec); OneInput and OneOutput: a tuple of
	// one takes a trailing comma.
	Inputs, Outputs     []string
	OneInput, OneOutput bool
	EnumTables          []enumTableRow
	BuilderClass        string
	Score               int
	InLayouts           []string
	OutLayouts          []string
	Args                []kernelArg // generate_params appends their Python
	IROnly              []paramRow  // params no kernel argument can hold (Local is the name)
	RankDims            bool        // some kernel argument is a tensor's dim (_dim)
}

// enumTableRow is a module-level dict from an enum's value names (Keys,
// Python strings) to their indices.
type enumTableRow struct {
	Name text
	Keys []text
}

// clModel is what kernel.cl.tmpl prints.
type clModel struct {
	Name         string
	Package      string
	LayerType    string
	Description  string
	Variants     []variant // each variant's -D flags, one comment line each
	FP16         bool
	DefaultEntry string // the first variant's
	TypeAxes     []axisModel
	Params       []string   // the parameter list, declared (kernelArg.Decl)
	RankLines    []rankLine // the rank and dims arguments of tensors of no declared shape
}

// axisModel is a kernel's typedef of an axis, Default unless the -D
// Macro says otherwise, one of Types (OpenCL types).
type axisModel struct {
	Typedef, Macro, Default text
	Types                   []string
}

// rankLine describes a rank-polymorphic tensor's arguments in the
// kernel's comment: Rank, then its dims First .. Last (Last "" with one
// dim, First "" with none). Tensor is its name as comment text.
type rankLine struct {
	Rank, Tensor, First, Last text
}

// packageFacts are what every op model of a package shares, worked out
// once rather than per op.
type packageFacts struct {
	pkg       *ir.Package
	version   string         // the package version as a Python string
	prefix    string         // the package's snake-case name, which kernel entries start with
	kernelDir string         // <Package>/kernels, where the kernel sources lie below out/aipu/
	known     compassTargets // for ops that name no targets
	refModule text           // the reference module's name, a Python string
	refPath   []string       // its path from a plugin's directory, Python strings
}

func newPackageFacts(pkg *ir.Package, known []string) *packageFacts {
	f := &packageFacts{
		pkg:       pkg,
		version:   escape.PyString(pkg.Version),
		prefix:    names.Snake(pkg.Name),
		kernelDir: path.Join(pkg.Name, KernelDir),
		known:     newCompassTargets(known),
		refModule: text(escape.PyString(reference.Module(pkg))),
	}
	// The plugins lie in out/aipu/<Package>/<stage>/.
	f.refPath = []string{escape.PyString(".."), escape.PyString(".."), escape.PyString("..")}
	for _, part := range strings.Split(reference.Path(pkg), "/") {
		f.refPath = append(f.refPath, escape.PyString(part))
	}
	return f
}

// compassTargets are the Compass targets of an op: the Python tuple its
// GBuilder plugin accepts and the -mcpu values its kernel compiles for.
type compassTargets struct {
	tuple text
	mcpus []string
}

// newCompassTargets builds the targets' tuple once per package (or op
// naming its own): a literal of escaped strings, which stays Go-built
// (literal.Python) rather than a range every op's template would step
// through.
func newCompassTargets(targets []string) compassTargets {
	return compassTargets{tuple: text(literal.Python(literal.Tuple(literal.Strings(targets...)...))), mcpus: mcpus(targets)}
}

func newOpModel(f *packageFacts, op *ir.Op) *opModel {
	a := OpOptions(op)
	dims := dimSymbols(op)
	k := newKernelModel(f.prefix, op, dims)
	m := &opModel{Stem: stem(op)}
	m.KernelFile = kernelFile(m.Stem)
	targets := f.known
	if len(a.Targets) > 0 {
		targets = newCompassTargets(a.Targets)
	}
	m.kernelBuilds(path.Join(f.kernelDir, m.KernelFile), targets.mcpus, k.Variants)
	desc := oneLine(op.Description)
	m.parser = newParserModel(f, op, dims, desc)
	m.opt = newOptModel(f, op, dims, desc, m.Stem)
	m.builder = newBuilderModel(f.pkg, op, k, m.KernelFile, m.Objects, targets.tuple)
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
		OpType:        escape.PyString(a.FrameworkOp),
		Alias:         a.LayerType != a.FrameworkOp,
		Init:          make([]initRow, len(op.Params)),
	}
	for i, p := range op.Params {
		r := &m.Init[i]
		r.Key = text(escape.PyString(p.Ident))
		if p.Kind == ir.ParamTensor {
			r.Constant, r.Read = true, text("_tensor(attrs, "+escape.PyString(p.Name)+", "+m.numpy(p.DTypes[0])+")")
			continue
		}
		r.Read = text(parserParam(p))
	}
	s := newScope(parserReserved)
	l := newLocals(op, dims)
	m.Inputs = make([]text, len(op.Inputs))
	for i, in := range op.Inputs {
		l.inputs[i] = s.claim(in.Ident)
		m.Inputs[i] = text(l.inputs[i])
	}
	l.bindSymbols(s)
	m.Dims = l.dimRows()
	for i, p := range op.Params {
		if shapesRefer(op.Outputs, p.Name) || relationsRefer(op, p.Name) {
			l.params[i] = s.claim(p.Ident)
			m.Params = append(m.Params, paramRow{Local: text(l.params[i]), Key: text(escape.PyString(p.Ident))})
		}
	}
	for i, in := range op.Inputs {
		if in.Static {
			m.Statics = append(m.Statics, staticRow{Key: text(escape.PyString(in.Ident)), Local: text(l.inputs[i]), Index: i})
		}
	}
	for i, in := range op.Inputs {
		if rr := in.RankRange; rr != nil {
			lo, hi := strconv.Itoa(rr.Min), strconv.Itoa(rr.Max)
			m.RankChecks = append(m.RankChecks, rankCheck{
				Local: text(l.inputs[i]), Min: rr.Min, Max: rr.Max,
				Has:   text(escape.PyString(op.Name + `: input "` + in.Name + `" has `)),
				Takes: text(escape.PyString(" dims; the op takes " + lo + " to " + hi)),
			})
		}
	}
	m.Relations = l.relationChecks(op)
	m.Outputs = make([]outputRow, len(op.Outputs))
	rules := op.Derived().Outputs
	for i, o := range op.Outputs {
		r := &m.Outputs[i]
		r.Shape = text(l.shapeOf(op, i, o, s, &r.Checks, "np.broadcast_shapes"))
	}
	for i := range op.Outputs {
		m.Outputs[i].DType = text(m.parserDType(op, rules[i], l.inputs))
	}
	return m
}

// parserParam is the helper call reading one param from the node's
// attributes (by its original name) for the IR (under its identifier). It
// is Go because its arguments are literals whose form the param's kind
// and dtype decide: the escaped name, the default (pyDefault), the number
// kind, the length and the bounds (pyBound).
func parserParam(p *ir.Param) string {
	args := "attrs, " + escape.PyString(p.Name) + ", " + pyDefault(p)
	switch p.Kind {
	case ir.ParamBool:
		return "_bool(" + args + ")"
	case ir.ParamString:
		return "_string(" + args + ")"
	case ir.ParamEnum:
		return "_enum(" + args + ", " + literal.Python(literal.Tuple(literal.Strings(p.Values...)...)) + ")"
	}
	kind := "int"
	if elemFloat(p) {
		kind = "float"
	}
	bounds := paramBounds(p)
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
// (ir.OutputDType) says, in Compass's dtypes: a Python expression (a
// verdict over the inputs' dtypes at run time where the rule leaves a
// choice), which stays Go-built as the rule's cases decide its form.
// inputs are the inputs' locals.
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
			entries[i] = escape.PyString(string(d)) + ": " + m.numpy(d)
		}
		return "{" + strings.Join(entries, ", ") + "}[self.params[" + escape.PyString(op.Params[r.Param].Ident) + "]]"
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
		return "(" + x + ".dtype if " + x + ".dtype in " + literal.PythonTuple(set...) + " else " + set[0] + ")"
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
func newOptModel(f *packageFacts, op *ir.Op, dims []dimSymbol, desc, stem string) *optModel {
	a := OpOptions(op)
	m := &optModel{
		Name: op.Name, Package: f.pkg.Name, LayerType: a.LayerType, Description: desc, Override: a.OverrideBuiltin, OPTVersion: optVersion, Stem: stem,
		Inputs: make([]binding, len(op.Inputs)), Params: make([]binding, len(op.Params)), Outputs: make([]outputRow, len(op.Outputs)),
		OneOutput: len(op.Outputs) == 1, RefModule: f.refModule, RefPath: f.refPath,
	}
	if a.OverrideBuiltin {
		m.OPTVersion = optOverrideVersion
	}
	s := newScope(optReserved)
	l := newLocals(op, dims)
	visible := 0
	for i, in := range op.Inputs {
		l.inputs[i] = s.claim(in.Ident)
		m.Inputs[i] = binding{Local: text(l.inputs[i]), Expr: text(forwardInput(in, visible))}
		if !in.Static {
			visible++
		}
	}
	for i, p := range op.Params {
		local := s.claim(p.Ident)
		l.params[i] = local
		m.Params[i] = binding{Local: text(local), Expr: text(forwardParam(p))}
	}
	l.bindSymbols(s)
	m.Dims = l.dimRows()
	for i, o := range op.Outputs {
		r := &m.Outputs[i]
		r.Local = text(s.claim(o.Ident + "_shape"))
		r.Shape = text(l.shapeOf(op, i, o, s, &r.Checks, "torch.broadcast_shapes"))
	}
	// The float forward is the op's reference once the user wrote it; the
	// quantized one, and the float one until then, give zeros.
	m.RefArgs = make([]string, 0, len(op.Inputs)+len(op.Params))
	m.RefArgs = append(m.RefArgs, l.inputs...)
	for i, p := range op.Params {
		v := l.params[i]
		if p.Kind == ir.ParamArray {
			v = "tuple(" + v + ")"
		}
		m.RefArgs = append(m.RefArgs, p.Ident+"="+v)
	}
	m.quantDefault(op)
	m.OneConstant = len(m.Constants) == 1
	return m
}

// forwardInput is how the OPT forward reads an input's tensor, the
// visible-th of the layer's inputs: a static input is a constant of the
// layer, under its identifier as a Python string (escaped here).
func forwardInput(in *ir.Tensor, visible int) string {
	if in.Static {
		return "self.constants[" + escape.PyString(in.Ident) + "].betensor"
	}
	return "self.inputs[" + strconv.Itoa(visible) + "].betensor"
}

// forwardParam is how the OPT forward reads a param: a tensor param's
// constant, else get_param's call, with the opdef default (pyDefault,
// whose literal form depends on the param's kind and dtype) when it has
// one.
func forwardParam(p *ir.Param) string {
	switch {
	case p.Kind == ir.ParamTensor:
		return "self.constants[" + escape.PyString(p.Ident) + "].betensor"
	case p.Default == nil:
		return "self.get_param(" + escape.PyString(p.Ident) + ")"
	}
	return "self.get_param(" + escape.PyString(p.Ident) + ", optional=True, default_value=" + pyDefault(p) + ")"
}

// quantDefault sets every output's quantization: an output typed like a
// (non-static) input keeps that input's; an integer output is exact
// (scale 1, zero point 0, invariant); a float output of its own is
// quantized as an activation from its calibrated range. The Optimizer
// also requires a dtype for every constant of the layer: float ones are
// quantized as weights, integer ones stay exact (decided by the IR dtype:
// the Optimizer clears the others between its passes).
func (m *optModel) quantDefault(op *ir.Op) {
	for _, in := range op.Inputs {
		if in.Static {
			m.Constants = append(m.Constants, escape.PyString(in.Ident))
		}
	}
	for _, p := range op.Params {
		if p.Kind == ir.ParamTensor {
			m.Constants = append(m.Constants, escape.PyString(p.Ident))
		}
	}
	rules := op.Derived().Outputs
	m.Quant = make([]quantRow, len(op.Outputs))
	for i, o := range op.Outputs {
		q := &m.Quant[i]
		q.Index, q.Name = i, text(o.Name)
		if r := rules[i]; r.Rule == ir.DTypeParam {
			// The Compass IR reader turns the dtype name into a Dtype.
			q.Param = text(escape.PyString(op.Params[r.Param].Ident))
			continue
		}
		if j, in := sameTypedInput(op, o); in != nil {
			q.Input, q.InputIndex = text(in.Name), j
			continue
		}
		d := distinctCompass(op.AllowedDTypes(o))[0]
		if d.IsFloat() {
			q.Float = true
			continue
		}
		q.DType, q.Bits = text(spellings[d].OPT), d.Info().Bits
	}
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

// dimRows reads every dimension symbol from its input's shape.
func (l *locals) dimRows() []dimRow {
	rows := make([]dimRow, len(l.dims))
	for i, d := range l.dims {
		rows[i] = dimRow{Local: text(l.syms[i]), Input: text(l.inputs[d.index]), Dim: d.dim}
	}
	return rows
}

// ref renders the names of a shape expression: symbols and params by
// their locals, shape-tensor elements as ints read from the input.
func (l *locals) ref(e *shapeexpr.Expr) string {
	if e.Kind == shapeexpr.Dim {
		return l.dim(e)
	}
	if e.Kind == shapeexpr.DimProd || e.Kind == shapeexpr.Rank {
		i := slices.IndexFunc(l.op.Inputs, func(in *ir.Tensor) bool { return in.Name == e.Name })
		if e.Kind == shapeexpr.Rank {
			return "len(" + l.inputs[i] + ".shape)"
		}
		return shapeexpr.PythonSliceProdOf(l.inputs[i]+".shape", e, "1", l.ref)
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
			ident = "self.params[" + escape.PyString(l.op.Params[pi].Ident) + "]"
		}
	}
	local, value := shapeexpr.PythonDimAxis(i, pi, e, ident)
	rank := "len(" + seq + ")"
	msg := escape.PyString(l.op.Name+": "+e.String()+" reads axis ") + " + str(" + local + ") + " + escape.PyString(" of input \""+in.Name+"\", which has ") + " + str(" + rank + ") + " + escape.PyString(" dims")
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
// With an axis, the statements that read, check and normalize it go to
// checks. broadcast is the module function broadcasting shapes (np. or
// torch.). The tuple and the checks stay Go-built: they are the shape
// expressions' Python printer's output (shapeexpr).
func (l *locals) shapeOf(op *ir.Op, i int, o *ir.Tensor, s scope, checks *[]text, broadcast string) string {
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
		*checks = append(*checks, texts(l.pending)...)
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
	value := l.paramValue(op, pi)
	local := s.claim("axis_" + o.Ident)
	rank := "len(" + in + ".shape)"
	msg := escape.PyString(op.Name+": param "+p.Name+" is ") + " + str(" + local + ") + " + escape.PyString(", not an axis of input \""+op.Inputs[r.Input].Name+"\" (") + " + str(" + rank + ") + " + escape.PyString(" dims)")
	*checks = append(*checks, texts(shapeexpr.PythonAxisCheck(local, value, rank, msg))...)
	replace := ""
	if lk.Replace != nil {
		replace = lk.Replace.Expr.Python(l.ref)
		*checks = append(*checks, texts(l.pending)...)
		l.pending = nil
	}
	if lk.Mode == ir.AxisKeepIf {
		return shapeexpr.PythonAxisShapeIf(in+".shape", local, "1", pyTruth(l.paramValue(op, op.ParamIndex(lk.KeepParam))))
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
	return literal.PythonTuple(dims...)
}

// newBuilderModel builds the GBuilder plugin from the kernel model, whose
// source is kernelFile and objects the objects; targets is the Python
// tuple of the Compass targets.
func newBuilderModel(pkg *ir.Package, op *ir.Op, k *kernelModel, kernelFile string, objects []objectRow, targets text) *builderModel {
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
		Args:         k.Args,
	}
	if a.OverrideBuiltin {
		m.Score = builderOverrideScore
	}
	// spec is a tensor's entry: the axis whose dtype it has (None: fixed)
	// and its Compass dtypes, a Python tuple of literals.
	spec := func(t *ir.Tensor) string {
		axis := "None"
		if i, ok := k.axisOf[t]; ok {
			axis = strconv.Itoa(i)
		}
		allowed := distinctCompass(op.AllowedDTypes(t))
		ds := make([]string, len(allowed))
		for i, d := range allowed {
			ds[i] = escape.PyString(compassName(d))
		}
		return "(" + axis + ", " + literal.PythonTuple(ds...) + ")"
	}
	for _, in := range op.Inputs {
		if !in.Static {
			m.Inputs = append(m.Inputs, spec(in))
			m.InLayouts = append(m.InLayouts, layout(in))
		}
	}
	m.Outputs = make([]string, len(op.Outputs))
	m.OutLayouts = make([]string, len(op.Outputs))
	for i, o := range op.Outputs {
		m.Outputs[i], m.OutLayouts[i] = spec(o), layout(o)
	}
	m.OneInput, m.OneOutput = len(m.Inputs) == 1, len(m.Outputs) == 1
	for _, p := range op.Params {
		switch paramPassing(p) {
		case passScalar:
			if p.Kind == ir.ParamEnum {
				keys := make([]text, len(p.Values))
				for i, v := range p.Values {
					keys[i] = text(escape.PyString(v))
				}
				m.EnumTables = append(m.EnumTables, enumTableRow{Name: text(enumTable(p)), Keys: keys})
			}
		case passNone:
			m.IROnly = append(m.IROnly, paramRow{Local: text(p.Name), Key: text(escape.PyString(p.Ident))})
		}
	}
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
		Variants:     k.Variants,
		TypeAxes:     make([]axisModel, len(k.Axes)),
		Params:       make([]string, len(k.Args)),
		RankLines:    k.RankLines,
	}
	for i, a := range k.Args {
		m.Params[i] = string(a.Decl)
	}
	for i, ax := range k.Axes {
		types := make([]string, len(ax.Values))
		for i, v := range ax.Values {
			types[i] = spellings[v].OpenCL
		}
		m.TypeAxes[i] = axisModel{Typedef: text(ax.Typedef), Macro: text(ax.Macro), Default: text(types[0]), Types: types}
	}
	return m
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

// paramValue is the Python value of param number i: its local where the
// code bound one, else read from the layer's params.
func (l *locals) paramValue(op *ir.Op, i int) string {
	if l.params[i] != "" {
		return l.params[i]
	}
	return "self.params[" + escape.PyString(op.Params[i].Ident) + "]"
}

// pyTruth is the Python test of a bool param's value v: Compass IR spells
// booleans true and false (the parser stores the text), and the Optimizer
// may hand back the text or a Python bool.
func pyTruth(v string) string {
	return "str(" + v + ").strip().lower() in (\"true\", \"1\")"
}
