package htp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/literal"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/reference"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/shapeexpr"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
	"github.com/opforge/opforge/generators/workpool"
)

// TorchName is op's torch.library name: the name of the torch op it was
// imported from, else its torch_name, else the op name in snake case.
func TorchName(op *ir.Op) string {
	if op.Torch != nil {
		_, name, _ := strings.Cut(op.Torch.Op, "::")
		return name
	}
	if h := htpopt.OfOp(op); h != nil && h.TorchName != "" {
		return h.TorchName
	}
	return names.Snake(op.Name)
}

// movedEagerRegions: the ExecuTorch module once held each op's eager
// implementation in its own region reference:<Op>; it calls the package's
// reference module now, whose region of the same name takes that code.
func movedEagerRegions(pkg *ir.Package, ops []*ir.Op) map[string]string {
	m := make(map[string]string, len(ops))
	for _, op := range ops {
		key := "reference:" + op.Name
		m[key] = "the eager implementation calls the package's reference module now, whose region " + key + " of out/" + reference.Path(pkg) + " takes this code (with enums by value name, not index, and arrays as tuples)"
	}
	return m
}

// torchNamespace is the torch.library namespace of a package.
func torchNamespace(pkg *ir.Package) string { return names.Snake(pkg.Name) }

// torchQualName is the torch op op registers as, NS::NAME: the op it was
// imported from, else the package's namespace and TorchName.
func torchQualName(pkg *ir.Package, op *ir.Op) string {
	if op.Torch != nil {
		return op.Torch.Op
	}
	return torchNamespace(pkg) + "::" + TorchName(op)
}

// torchModel is the ExecuTorch module of one package.
type torchModel struct {
	Package   string
	Namespace string
	Provider  string
	// Reference is the package's reference module name and ReferencePath
	// the arguments of os.path.join from the ExecuTorch module's directory
	// to its file, all Python string literals: the eager implementations
	// call it.
	Reference     string
	ReferencePath []string
	Ops           []*torchOp
	// OpSections are the module's parts for each op ("executorch-op"),
	// rendered on every core and joined in op order.
	OpSections *render.Joined
	// CallSections are the methods of class ops ("executorch-call"), one
	// per op, joined in op order.
	CallSections *render.Joined
	// AnyImported: some op was imported from a torch.library op.
	AnyImported bool
}

// torchOp is one op's part of the ExecuTorch module: its schemas, its
// Python functions and their fake implementation, as rows the
// executorch-op and executorch-call templates range over.
type torchOp struct {
	Namespace string // the package's
	QNNName   string
	Name      string // torch op name (snake case)
	// Schema, Params and Args are the functional op's arguments in schema
	// order: declared in the schemas ("int k"), as the Python functions'
	// parameters with the defaults they give ("k=2", pythonDefault) and
	// passed on ("k"). The templates join them.
	Schema, Params, Args []string
	// OutNames are the .out variant's outputs, OutSchema their
	// declarations in its schema ("Tensor(a!) y") and OutReturns what it
	// returns ("Tensor(a!)").
	OutNames, OutSchema, OutReturns []string
	// OneOutput: the op returns a tensor, not a tuple. OneInput: the
	// reference call's tuple of inputs takes a trailing comma.
	OneOutput, OneInput bool
	// RefOp is the op's key in the reference module's OPS (a Python string
	// literal); RefInputs and RefParams are the eager implementation's call
	// of it: the inputs positionally, the params by keyword as the
	// reference takes them (enums by value name, arrays as tuples).
	RefOp     text
	RefInputs []string
	RefParams []refParam
	// Fake is the fake (meta) implementation (fakeBody).
	Fake fakeModel
	// assumed are the outputs without a shape whose fake takes the first
	// input's (QNN XML states none); each gets a warning.
	assumed []*ir.Tensor
	// Imported, for an op imported from a torch.library op, is that op:
	// the module defines nothing for it and calls it.
	Imported *importedOp
}

// importedOp is the torch.library op an op was imported from (opforge
// import torch): the module the user's model imports defines it, with its
// schema, defaults, CPU and fake kernels, so the ExecuTorch module does
// not define it again; it finds it (importing Module, a Python string,
// first when no model did) and registers the op package for it, so a
// model calling torch.ops.NS.NAME delegates as it is. Namespace is a
// Python string; CallArgs pass the wrapper's arguments to the op by the
// schema's names (name=ident).
type importedOp struct {
	Name              string
	Module, Namespace text
	IsFile            bool
	CallArgs          []string
}

// refParam is a param of the eager implementation's call of the
// reference, by Key (a Python string): its Arg (its Ident, an array as a
// tuple), or for an Enum the name of the value whose index Ident holds,
// among Values (Python strings; Name is the param's, a Python string, for
// the message).
type refParam struct {
	Key, Arg, Ident, Name text
	Values                []string
	Enum                  bool
}

// fakeModel is the fake implementation's body: it binds the dim symbols
// from the input shapes, checks rank ranges, makes the data-dependent
// sizes, evaluates every output's shape and allocates the outputs.
type fakeModel struct {
	Bindings   []fakeBinding
	RankChecks []rankCheck
	Ctx        bool // some size is data-dependent: ctx = torch.library.get_ctx()
	Sizes      []dynamicSize
	Outputs    []fakeOutput
	// Checks are the statements of x.shape[axis] checks still pending
	// after the last output's shape.
	Checks []text
	Device text // where the outputs are allocated (deviceOf)
	Tuple  bool // the fake returns a tuple: not one output
}

// fakeBinding binds a dim symbol: Local = Ident.shape[Dim], 0 for an
// Optional input that is None.
type fakeBinding struct {
	Local, Ident text
	Dim          int
	Optional     bool
}

// rankCheck refuses an input whose rank is outside its rank range; Has
// and Takes are the message's parts around the rank, Python strings.
type rankCheck struct {
	Ident      text
	Min, Max   int
	Has, Takes text
}

// dynamicSize is a data-dependent size of at most Max (a Python
// expression of the shape printer).
type dynamicSize struct {
	Local, Max text
}

// fakeOutput is an output: the statements its shape needs first (axis
// checks), its Shape and its DType (outputDType), Python expressions.
type fakeOutput struct {
	Checks       []text
	Shape, DType text
}

var torchScalar = map[ir.DTypeKind]string{ir.KindInt: "int", ir.KindUint: "int", ir.KindFloat: "float", ir.KindBool: "bool"}

// torchDType maps the vocabulary to torch dtypes; quantized dtypes travel
// as their integer storage, the way ExecuTorch's quantized graphs hold them.
func torchDType(d ir.DType) string {
	switch d.Kind() {
	case ir.KindQuant:
		switch {
		case strings.HasPrefix(string(d), "quint"):
			return "torch.uint8"
		case d == ir.QInt16:
			return "torch.int16"
		case d == ir.QInt32:
			return "torch.int32"
		}
		return "torch.int8"
	}
	if t := d.Info().Torch; t != "" {
		return "torch." + t
	}
	return "torch.float32"
}

// newTorchModel builds the module and renders its per-op sections, both
// on every core; the warnings follow in op order.
func newTorchModel(pkg *ir.Package, ops []*ir.Op, pm *packageModel, d *diag.TargetList) *torchModel {
	m := &torchModel{Package: pkg.Name, Namespace: pm.TorchNamespace, Provider: pm.Provider, Ops: make([]*torchOp, len(ops))}
	m.Reference = escape.PyString(reference.Module(pkg))
	// The module lies in out/htp/<Package>/executorch/.
	m.ReferencePath = []string{escape.PyString(".."), escape.PyString(".."), escape.PyString("..")}
	for _, part := range strings.Split(reference.Path(pkg), "/") {
		m.ReferencePath = append(m.ReferencePath, escape.PyString(part))
	}
	workpool.Parallel(len(ops), func(i int) {
		if storedTorchOp(pkg, ops[i]) {
			// Both its sections are taken from the store: the module's
			// top needs its names alone (keptTorchOp).
			m.Ops[i] = keptTorchOp(ops[i], m.Namespace)
		} else {
			m.Ops[i] = newTorchOp(ops[i], m.Namespace)
		}
		m.Ops[i].Imported = importedOf(pkg, ops[i])
	})
	for i, t := range m.Ops {
		m.AnyImported = m.AnyImported || t.Imported != nil
		for _, o := range t.assumed {
			d.Warnf(o.Where.At("name", o.Pos), "executorch-assumed-shape", "output %q of op %s states no shape (QNN XML cannot), so its torch fake implementation assumes the shape of input %q; convert the op to YAML and give the output a shape if that is wrong", o.Name, ops[i].Name, ops[i].Inputs[0].Name)
		}
	}
	var err error
	// A kept op's (keptTorchOp) are both stored, so never made from it.
	if m.OpSections, err = render.KeyedSections(tmpl, pkg, torchSections[0], m.Ops, ops); err != nil {
		d.Errorf(pkg.Pos, "internal", "rendering executorch-op: %v", err)
	}
	if m.CallSections, err = render.KeyedSections(tmpl, pkg, torchSections[1], m.Ops, ops); err != nil {
		d.Errorf(pkg.Pos, "internal", "rendering executorch-call: %v", err)
	}
	return m
}

// The names of an op's sections of the ExecuTorch module.
var torchSections = []string{"executorch-op", "executorch-call"}

// storedTorchOp reports whether both of op's sections of the ExecuTorch
// module are in pkg.Reuse's store, so that neither is made.
func storedTorchOp(pkg *ir.Package, op *ir.Op) bool {
	return render.StoredAll(pkg, op, torchSections...)
}

// keptTorchOp is the part of op's torchOp that the module prints outside
// op's sections (its names), and its warnings: an unchanged op's sections
// come from the store. Only an output without a shape can have its shape
// assumed, so only then is the fake implementation made to find out
// which.
func keptTorchOp(op *ir.Op, namespace string) *torchOp {
	t := &torchOp{Namespace: namespace, QNNName: op.Name, Name: TorchName(op)}
	if slices.ContainsFunc(op.Outputs, func(o *ir.Tensor) bool { return o.Shape == nil }) {
		_, t.assumed = fakeBody(op)
	}
	return t
}

func newTorchOp(op *ir.Op, namespace string) *torchOp {
	t := &torchOp{Namespace: namespace, QNNName: op.Name, Name: TorchName(op), RefOp: text(escape.PyString(op.Name)), OneOutput: len(op.Outputs) == 1, OneInput: len(op.Inputs) == 1}
	// The schema declares no defaults: torch.export records a call's
	// arguments without the trailing ones equal to a schema default (even
	// when the caller passed them), and ExecuTorch's Qualcomm custom-op
	// builder refuses a node whose argument count differs from the schema,
	// so with schema defaults a call leaving a param at its default would not
	// be delegated. The generated Python wrapper (ops.<name>) holds the
	// defaults and passes every argument. Python allows defaults only at the
	// end, so params without a default come first; ExecuTorch passes params
	// to QNN by name and the package's DEF_PACKAGE_PARAM_ORDER fixes the
	// order the kernel sees, so this order does not matter to the package.
	// Inputs keep their order (ExecuTorch passes them positionally); an
	// optional input is passed as None explicitly.
	n := len(op.Inputs) + len(op.Params)
	t.Schema, t.Params, t.Args = make([]string, 0, n), make([]string, 0, n), make([]string, 0, n)
	for _, in := range op.Inputs {
		typ := "Tensor"
		if in.Optional {
			typ = "Tensor?"
		}
		t.Schema = append(t.Schema, typ+" "+in.Ident)
		t.Params = append(t.Params, in.Ident)
		t.Args = append(t.Args, in.Ident)
	}
	var required, defaulted []*ir.Param
	for _, p := range op.Params {
		if hasTorchDefault(p) {
			defaulted = append(defaulted, p)
		} else {
			required = append(required, p)
		}
	}
	for _, p := range append(required, defaulted...) {
		t.Schema = append(t.Schema, torchType(p)+" "+p.Ident)
		py := p.Ident
		if hasTorchDefault(p) {
			py += "=" + pythonDefault(p)
		}
		t.Params = append(t.Params, py)
		t.Args = append(t.Args, p.Ident)
	}
	n = len(op.Outputs)
	t.OutNames, t.OutSchema, t.OutReturns = make([]string, n), make([]string, n), make([]string, n)
	for i, o := range op.Outputs {
		ret := "Tensor(" + string(rune('a'+i%26)) + "!)"
		t.OutNames[i], t.OutSchema[i], t.OutReturns[i] = o.Ident, ret+" "+o.Ident, ret
	}
	t.RefInputs, t.RefParams = referenceCall(op)
	t.Fake, t.assumed = fakeBody(op)
	return t
}

// importedOf is op's torch origin as the ExecuTorch module calls it, or
// nil. The wrapper passes every argument by the schema's names, as the
// reference does, so its parameter order (the opdef's) need not be the
// schema's.
func importedOf(pkg *ir.Package, op *ir.Op) *importedOp {
	if op.Torch == nil {
		return nil
	}
	ns, _, _ := strings.Cut(op.Torch.Op, "::")
	im := &importedOp{Name: TorchName(op), Module: text(escape.PyString(reference.TorchModule(pkg, op))), Namespace: text(escape.PyString(ns)), IsFile: op.Torch.IsFile()}
	for _, in := range op.Inputs {
		im.CallArgs = append(im.CallArgs, in.Name+"="+in.Ident)
	}
	for _, p := range op.Params {
		v := p.Ident
		if p.Kind == ir.ParamArray {
			v = "list(" + v + ")" // torch's int[] takes lists
		}
		im.CallArgs = append(im.CallArgs, p.Name+"="+v)
	}
	return im
}

// referenceCall is the eager implementation's call of the op's reference:
// the inputs positionally, the params by keyword. torch hands the
// implementation an enum as its value's index (the schema's int), an
// array as a list; the reference takes the value's name and a tuple.
func referenceCall(op *ir.Op) (inputs []string, params []refParam) {
	inputs = make([]string, len(op.Inputs))
	for i, in := range op.Inputs {
		inputs[i] = in.Ident
	}
	params = make([]refParam, len(op.Params))
	for i, p := range op.Params {
		r := refParam{Key: text(escape.PyString(p.Ident)), Arg: text(p.Ident), Ident: text(p.Ident)}
		if p.Kind == ir.ParamArray {
			r.Arg = text("tuple(" + p.Ident + ")")
		}
		if p.Kind == ir.ParamEnum {
			r.Enum, r.Name = true, text(escape.PyString(p.Name))
			r.Values = make([]string, len(p.Values))
			for i, name := range p.Values {
				r.Values[i] = escape.PyString(name)
			}
		}
		params[i] = r
	}
	return inputs, params
}

// hasTorchDefault reports whether the Python functions give p a default (a
// tensor param is a tensor argument and has none).
func hasTorchDefault(p *ir.Param) bool { return p.Default != nil && p.Kind != ir.ParamTensor }

// torchType returns a param's schema type, the vocabulary of torch's
// schema language for the param's kind and dtype (torchArg.Schema).
func torchType(p *ir.Param) (typ string) {
	elem := "int"
	if len(p.DTypes) > 0 {
		if s, ok := torchScalar[p.DTypes[0].Kind()]; ok {
			elem = s
		}
	}
	switch p.Kind {
	case ir.ParamBool:
		typ = "bool"
	case ir.ParamString:
		typ = "str"
	case ir.ParamEnum:
		typ = "int" // the value's index: ExecuTorch cannot pass strings
	case ir.ParamArray:
		typ = elem + "[]"
		if p.Length > 0 {
			typ = elem + "[" + strconv.Itoa(p.Length) + "]"
		}
	case ir.ParamTensor:
		typ = "Tensor"
	default:
		typ = elem
	}
	return typ
}

// pythonDefault is a param's default as a Python expression, the default
// of the Python functions' parameter (torchArg.Param): the value the
// schema's argument takes, an enum's index (ExecuTorch cannot pass
// strings) and an array as a tuple.
func pythonDefault(p *ir.Param) string {
	return literal.Python(literal.OfIndexed(p, p.Default).AsTuple())
}

// fakeBody computes the fake (meta) implementation: bind the dim symbols
// from the input shapes, evaluate every output shape expression, allocate.
// The shapes and the statements checking an axis stay Go-built: they are
// the shape expressions' Python printer's output (shapeexpr). It also
// returns the outputs without a shape that take the first input's.
func fakeBody(op *ir.Op) (f fakeModel, assumed []*ir.Tensor) {
	bound := map[string]string{}
	facts := op.Derived()
	f.Bindings = make([]fakeBinding, len(facts.Bindings))
	for i, b := range facts.Bindings {
		in := op.Inputs[b.Input]
		local := "_" + b.Symbol
		bound[b.Symbol] = local
		f.Bindings[i] = fakeBinding{Local: text(local), Ident: text(in.Ident), Dim: b.Dim, Optional: in.Optional}
	}
	for _, in := range op.Inputs {
		if rr := in.RankRange; rr != nil && !in.Optional {
			lo, hi := strconv.Itoa(rr.Min), strconv.Itoa(rr.Max)
			f.RankChecks = append(f.RankChecks, rankCheck{
				Ident: text(in.Ident), Min: rr.Min, Max: rr.Max,
				Has:   text(escape.PyString(op.Name + `: input "` + in.Name + `" has `)),
				Takes: text(escape.PyString(" dims; the op takes " + lo + " to " + hi)),
			})
		}
	}
	f.Ctx = len(op.DataDependent) > 0
	// x.shape[axis] reads its axis with a check before the output's shape
	// (pending), once per op (checked).
	var pending []string
	checked := map[string]bool{}
	var ref func(e *shapeexpr.Expr) string
	ref = func(e *shapeexpr.Expr) string {
		if e.Kind == shapeexpr.Rank {
			return op.Input(e.Name).Ident + ".dim()"
		}
		if e.Kind == shapeexpr.DimProd {
			return shapeexpr.PythonSliceProdOf(op.Input(e.Name).Ident+".shape", e, "1", ref)
		}
		if e.Kind == shapeexpr.Dim {
			in := op.Input(e.Name)
			if e.Axis == "" && in.Rank != ir.RankAny {
				a, _ := shapeexpr.NormalizeAxis(int64(e.Index), int64(in.Rank))
				return fmt.Sprintf("%s.shape[%d]", in.Ident, a)
			}
			local, value := shapeexpr.PythonDimAxis(slices.Index(op.Inputs, in), op.ParamIndex(e.Axis), e, identOf(op, e.Axis))
			msg := escape.PyString(op.Name+": "+e.String()+" reads axis ") + " + str(" + local + ") + " + escape.PyString(" of input \""+in.Name+"\", which has ") + " + str(" + in.Ident + ".dim()) + " + escape.PyString(" dims")
			for _, c := range shapeexpr.PythonAxisCheck(local, value, in.Ident+".dim()", msg) {
				if !checked[c] {
					checked[c] = true
					pending = append(pending, c)
				}
			}
			return in.Ident + ".shape[" + local + "]"
		}
		if e.Kind == shapeexpr.Index {
			if op.Input(e.Name) != nil {
				return "ctx.new_dynamic_size()"
			}
			return fmt.Sprintf("%s[%d]", identOf(op, e.Name), e.Index)
		}
		if local, ok := bound[e.Name]; ok {
			return local
		}
		return identOf(op, e.Name)
	}
	for _, s := range op.DataDependent {
		local := "_" + s.Name
		bound[s.Name] = local
		f.Sizes = append(f.Sizes, dynamicSize{Local: text(local), Max: text(s.Upper.Python(ref))})
	}
	first := ""
	if len(op.Inputs) > 0 {
		first = op.Inputs[0].Ident
	}
	f.Outputs = make([]fakeOutput, len(op.Outputs))
	for i, o := range op.Outputs {
		var lines []string
		dtype := outputDType(op, facts.Outputs[i])
		var shape string
		switch {
		case facts.Shapes[i].Rule == ir.ShapeBroadcastOf:
			shapes := make([]string, len(facts.Shapes[i].Inputs))
			for k, j := range facts.Shapes[i].Inputs {
				shapes[k] = op.Inputs[j].Ident + ".shape"
			}
			shape = "torch.broadcast_shapes(" + strings.Join(shapes, ", ") + ")"
		case facts.Shapes[i].Rule == ir.ShapeSameAs:
			in := op.Inputs[facts.Shapes[i].Input]
			shape = in.Ident + ".shape"
			if lk := o.Like; lk.Axis != "" {
				local, p := "_axis_"+o.Ident, op.Param(lk.Axis)
				msg := escape.PyString(op.Name+": param "+p.Name+" is ") + " + str(" + local + ") + " + escape.PyString(", not an axis of input \""+in.Name+"\" (") + " + str(" + in.Ident + ".dim()) + " + escape.PyString(" dims)")
				lines = append(lines, shapeexpr.PythonAxisCheck(local, p.Ident, in.Ident+".dim()", msg)...)
				replace := ""
				if lk.Replace != nil {
					replace = lk.Replace.Expr.Python(ref)
				}
				shape = shapeexpr.PythonAxisShape(shape, local, replace, "1", lk.Mode == ir.AxisKeep)
				if lk.Mode == ir.AxisKeepIf {
					shape = shapeexpr.PythonAxisShapeIf(in.Ident+".shape", local, "1", "bool("+op.Param(lk.KeepParam).Ident+")")
				}
			}
		case o.Shape != nil:
			dims := make([]string, len(o.Shape))
			for i, dim := range o.Shape {
				dims[i] = dim.Expr.Python(ref)
			}
			lines, pending = append(lines, pending...), nil
			shape = literal.PythonTuple(dims...)
		case first != "":
			assumed = append(assumed, o)
			shape = first + ".shape"
		default:
			shape = "()"
		}
		f.Outputs[i] = fakeOutput{Checks: texts(lines), Shape: text(shape), DType: text(dtype)}
	}
	// The relations between the inputs (requires:), after the axis
	// checks of what they read.
	var relations []string
	for _, r := range op.Requires {
		cond := r.Python(ref, func(in string) string { return op.Input(in).Ident + ".shape" })
		relations = append(relations, "torch._check("+cond+", lambda: "+escape.PyString(op.Name+": requires "+r.String())+")")
	}
	// Checks of the replaced dims of shapes like an input's.
	f.Checks = texts(append(pending, relations...))
	f.Device = text(deviceOf(first))
	f.Tuple = len(op.Outputs) != 1
	return f, assumed
}

// texts converts strings to texts.
func texts(ss []string) []text {
	if len(ss) == 0 {
		return nil
	}
	out := make([]text, len(ss))
	for i, s := range ss {
		out[i] = text(s)
	}
	return out
}

func deviceOf(first string) string {
	if first == "" {
		return "\"meta\""
	}
	return first + ".device"
}

func identOf(op *ir.Op, name string) string {
	if p := op.Param(name); p != nil {
		return p.Ident
	}
	if in := op.Input(name); in != nil {
		return in.Ident
	}
	return name
}

// outputDType is an output's dtype at trace time, as the op's dtype rule
// (ir.OutputDType) says: a Python expression (a verdict over the inputs'
// dtypes where the rule leaves a choice), which stays Go-built as the
// rule's cases decide its form.
func outputDType(op *ir.Op, r ir.OutputDType) string {
	switch r.Rule {
	case ir.DTypeSameAs:
		in := op.Inputs[r.Input]
		if in.Optional {
			return fmt.Sprintf("(%s.dtype if %s is not None else %s)", in.Ident, in.Ident, torchDType(r.DType))
		}
		return in.Ident + ".dtype"
	case ir.DTypeParam:
		// The enum travels as its value's index (torchType).
		set := make([]string, len(r.Allowed))
		for i, d := range r.Allowed {
			set[i] = torchDType(d)
		}
		return fmt.Sprintf("(%s,)[%s]", strings.Join(set, ", "), op.Params[r.Param].Ident)
	case ir.DTypeFollow:
		set := make([]string, 0, len(r.Allowed))
		seen := map[string]bool{}
		for _, d := range r.Allowed {
			if t := torchDType(d); !seen[t] {
				seen[t] = true
				set = append(set, t)
			}
		}
		if len(set) == 1 {
			return set[0]
		}
		x := op.Inputs[r.Input].Ident
		return fmt.Sprintf("(%s.dtype if %s.dtype in (%s,) else %s)", x, x, strings.Join(set, ", "), set[0])
	}
	return torchDType(r.DType)
}
