package htp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/shapeexpr"
	"github.com/opforge/opforge/generators/workpool"
)

// TorchName is op's torch.library name: its torch_name, else the op name
// in snake case.
func TorchName(op *ir.Op) string {
	if op.Targets.HTP != nil && op.Targets.HTP.TorchName != "" {
		return op.Targets.HTP.TorchName
	}
	return names.Snake(op.Name)
}

// torchNamespace is the torch.library namespace of a package.
func torchNamespace(pkg *ir.Package) string { return names.Snake(pkg.Name) }

// torchModel is the ExecuTorch module of one package.
type torchModel struct {
	Package   string
	Namespace string
	Provider  string
	Ops       []*torchOp
	// OpSections are the module's parts for each op ("executorch-op"),
	// rendered on every core and joined in op order.
	OpSections string
}

type torchOp struct {
	Namespace string // the package's
	QNNName   string
	Name      string // torch op name (snake case)
	Schema    string // functional schema, without the name
	OutSchema string // .out variant schema, without the name
	Args      string // Python parameter list of the functional op, schema order
	CallArgs  string // the same names, for calling it
	OutArgs   string // keyword-only output parameters of the .out variant
	// Fake is the body of the fake (meta) implementation, one line each.
	Fake      []string
	OneOutput bool   // the reference returns a tensor, not a tuple
	Region    string // user region key of the eager reference implementation
	// assumed are the outputs without a shape whose fake takes the first
	// input's (QNN XML states none); each gets a warning.
	assumed []*ir.Tensor
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
	workpool.Parallel(len(ops), func(i int) { m.Ops[i] = newTorchOp(ops[i], m.Namespace) })
	for i, t := range m.Ops {
		for _, o := range t.assumed {
			d.Warnf(o.Where.At("name", o.Pos), "executorch-assumed-shape", "output %q of op %s states no shape (QNN XML cannot), so its torch fake implementation assumes the shape of input %q; convert the op to YAML and give the output a shape if that is wrong", o.Name, ops[i].Name, ops[i].Inputs[0].Name)
		}
	}
	var err error
	if m.OpSections, err = render.Sections(tmpl, "executorch-op", m.Ops); err != nil {
		d.Errorf(pkg.Pos, "internal", "rendering executorch-op: %v", err)
	}
	return m
}

func newTorchOp(op *ir.Op, namespace string) *torchOp {
	t := &torchOp{Namespace: namespace, QNNName: op.Name, Name: TorchName(op), Region: "reference:" + op.Name, OneOutput: len(op.Outputs) == 1}
	// torch schemas allow defaults only at the end, so params without a
	// default come first; ExecuTorch passes params to QNN by name and the
	// package's DEF_PACKAGE_PARAM_ORDER fixes the order the kernel sees, so
	// the torch order does not matter to the package. Inputs keep their
	// order (ExecuTorch passes them positionally); an optional input has no
	// default and is passed as None explicitly.
	var schemaArgs, pyArgs, callArgs []string
	for _, in := range op.Inputs {
		typ := "Tensor"
		if in.Optional {
			typ = "Tensor?"
		}
		schemaArgs = append(schemaArgs, typ+" "+in.Ident)
		pyArgs = append(pyArgs, in.Ident)
		callArgs = append(callArgs, in.Ident)
	}
	type schemaParam struct {
		p        *ir.Param
		typ, def string
	}
	var required, defaulted []schemaParam
	for _, p := range op.Params {
		typ, def := torchParam(p)
		if def == "" {
			required = append(required, schemaParam{p, typ, def})
		} else {
			defaulted = append(defaulted, schemaParam{p, typ, def})
		}
	}
	for _, sp := range append(required, defaulted...) {
		p, typ, def := sp.p, sp.typ, sp.def
		arg := typ + " " + p.Ident
		if def != "" {
			arg += "=" + def
		}
		schemaArgs = append(schemaArgs, arg)
		py := p.Ident
		if def != "" {
			py += "=" + pythonDefault(p)
		}
		pyArgs = append(pyArgs, py)
		callArgs = append(callArgs, p.Ident)
	}
	var rets, outArgs, outRets, outputs []string
	for i, o := range op.Outputs {
		alias := string(rune('a' + i%26))
		rets = append(rets, "Tensor")
		outArgs = append(outArgs, "Tensor("+alias+"!) "+o.Ident)
		outRets = append(outRets, "Tensor("+alias+"!)")
		outputs = append(outputs, o.Ident)
	}
	ret := func(list []string) string {
		if len(list) == 1 {
			return list[0]
		}
		return "(" + strings.Join(list, ", ") + ")"
	}
	t.Schema = "(" + strings.Join(schemaArgs, ", ") + ") -> " + ret(rets)
	t.OutSchema = "(" + strings.Join(append(append([]string{}, schemaArgs...), "*", strings.Join(outArgs, ", ")), ", ") + ") -> " + ret(outRets)
	// torch hands Python kernels the arguments as the caller passed them, so
	// the Python functions repeat the schema's defaults.
	t.Args = strings.Join(pyArgs, ", ")
	t.CallArgs = strings.Join(callArgs, ", ")
	t.OutArgs = strings.Join(outputs, ", ")
	t.Fake, t.assumed = fakeBody(op)
	return t
}

// torchParam returns a param's schema type and schema default.
func torchParam(p *ir.Param) (typ, def string) {
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
	if p.Default == nil || p.Kind == ir.ParamTensor {
		return typ, ""
	}
	return typ, schemaLiteral(p, p.Default)
}

func enumIndex(p *ir.Param, v string) string {
	for i, name := range p.Values {
		if name == v {
			return strconv.Itoa(i)
		}
	}
	return "0"
}

// schemaLiteral writes a default in torch schema syntax.
func schemaLiteral(p *ir.Param, l *ir.Literal) string {
	switch {
	case p.Kind == ir.ParamEnum:
		return enumIndex(p, l.Text)
	case l.Kind == ir.LitList:
		parts := make([]string, len(l.List))
		for i, e := range l.List {
			parts[i] = schemaLiteral(p, e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case l.Kind == ir.LitBool:
		return map[bool]string{true: "True", false: "False"}[l.Text == "true"]
	case l.Kind == ir.LitString:
		return strconv.Quote(l.Text)
	case len(p.DTypes) > 0 && p.DTypes[0].IsFloat():
		return withPoint(l.Text)
	}
	return l.Text
}

// pythonDefault is a param's default as a Python expression.
func pythonDefault(p *ir.Param) string {
	s := schemaLiteral(p, p.Default)
	if p.Kind == ir.ParamArray {
		return "(" + strings.Trim(s, "[]") + map[bool]string{true: ",", false: ""}[len(p.Default.List) == 1] + ")"
	}
	return s
}

// fakeBody computes the fake (meta) implementation: bind the dim symbols
// from the input shapes, evaluate every output shape expression, allocate.
// It also returns the outputs without a shape that take the first input's.
func fakeBody(op *ir.Op) (lines []string, assumed []*ir.Tensor) {
	bound := map[string]string{}
	facts := op.Derived()
	for _, b := range facts.Bindings {
		in := op.Inputs[b.Input]
		local := "_" + b.Symbol
		bound[b.Symbol] = local
		guard := ""
		if in.Optional {
			guard = " if " + in.Ident + " is not None else 0"
		}
		lines = append(lines, fmt.Sprintf("%s = %s.shape[%d]%s", local, in.Ident, b.Dim, guard))
	}
	for _, in := range op.Inputs {
		if rr := in.RankRange; rr != nil && !in.Optional {
			lo, hi := strconv.Itoa(rr.Min), strconv.Itoa(rr.Max)
			lines = append(lines, "if not "+lo+" <= "+in.Ident+".dim() <= "+hi+": raise ValueError("+escape.PyString(op.Name+`: input "`+in.Name+`" has `)+" + str("+in.Ident+".dim()) + "+escape.PyString(" dims; the op takes "+lo+" to "+hi)+")")
		}
	}
	if len(op.DataDependent) > 0 {
		lines = append(lines, "ctx = torch.library.get_ctx()")
	}
	ref := func(e *shapeexpr.Expr) string {
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
		lines = append(lines, fmt.Sprintf("%s = ctx.new_dynamic_size(max=%s)", local, s.Upper.Python(ref)))
	}
	first := ""
	if len(op.Inputs) > 0 {
		first = op.Inputs[0].Ident
	}
	var results []string
	for i, o := range op.Outputs {
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
			}
		case o.Shape != nil:
			dims := make([]string, len(o.Shape))
			for i, dim := range o.Shape {
				dims[i] = dim.Expr.Python(ref)
			}
			shape = "(" + strings.Join(dims, ", ") + map[bool]string{true: ",", false: ""}[len(dims) == 1] + ")"
		case first != "":
			assumed = append(assumed, o)
			shape = first + ".shape"
		default:
			shape = "()"
		}
		results = append(results, fmt.Sprintf("torch.empty(%s, dtype=%s, device=%s)", shape, dtype, deviceOf(first)))
	}
	if len(results) == 1 {
		lines = append(lines, "return "+results[0])
	} else {
		lines = append(lines, "return ("+strings.Join(results, ", ")+")")
	}
	return lines, assumed
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
// (ir.OutputDType) says.
func outputDType(op *ir.Op, r ir.OutputDType) string {
	switch r.Rule {
	case ir.DTypeSameAs:
		in := op.Inputs[r.Input]
		if in.Optional {
			return fmt.Sprintf("(%s.dtype if %s is not None else %s)", in.Ident, in.Ident, torchDType(r.DType))
		}
		return in.Ident + ".dtype"
	case ir.DTypeParam:
		// The enum travels as its value's index (torchParam).
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
