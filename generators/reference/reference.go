package reference

import (
	"math"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/literal"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/templates"
)

// Dir is the directory under out/ that holds the reference modules.
const Dir = "reference"

// Generator generates the reference modules. It has the shape of a
// target.Target so the pipeline runs it beside the targets, but it is not
// in the target registry: no opdef names it.
type Generator struct{}

// Name is the directory under out/.
func (Generator) Name() string { return Dir }

// Summary implements target.Target.
func (Generator) Summary() string { return "the ops' Python references" }

// Check has nothing to check: every op has a reference.
func (Generator) Check(*ir.Package, *diag.TargetList) {}

// ONNXFrontEnd is nil: the reference module runs no ONNX.
func (Generator) ONNXFrontEnd() *onnx.FrontEnd { return nil }

var tmpl = render.MustLoad(templates.FS, "reference", nil)

// Module is the Python module name of a package's reference module.
func Module(pkg *ir.Package) string {
	return names.Ident(names.Snake(pkg.Name) + "_reference")
}

// Path is where a package's reference module lies, relative to out/.
func Path(pkg *ir.Package) string {
	return Dir + "/" + pkg.Name + "/" + Module(pkg) + ".py"
}

// Funcs maps each op of pkg to its function name in the reference module:
// the snake-cased op name, made a safe identifier, with a numeric suffix
// where two ops would meet or where it would shadow the module's own names.
func Funcs(pkg *ir.Package) map[string]string {
	taken := map[string]bool{"torch": true, "OPS": true, "_onnx_op": true, "_onnx_model": true, "_onnx_models": true, "_torch_op": true, "_triton_device": true}
	m := make(map[string]string, len(pkg.Ops))
	for _, op := range pkg.Ops {
		base := baseFunc(op.Name)
		name := base
		for i := 2; taken[name]; i++ {
			name = base + "_" + strconv.Itoa(i)
		}
		taken[name] = true
		m[op.Name] = name
	}
	return m
}

// baseFunc is the function name of op, unless another op took it first.
func baseFunc(op string) string { return names.Ident(names.Snake(op)) }

type moduleModel struct {
	Package string
	Module  string
	Path    string
	// Ops are the OPS table's entries; OpSections the ops' functions,
	// rendered per op ("reference-op").
	Ops        []opEntry
	OpSections *render.Joined
	// AnyONNX: some op was imported from ONNX, so the module carries the
	// helper that runs ONNX ops.
	AnyONNX bool
	// AnyTorch: some op was imported from a torch.library op, so the
	// module carries the helper that finds it.
	AnyTorch bool
	// AnyTriton: some such op launches a Triton kernel, so the module
	// carries the helper that runs it where Triton can (_triton_device).
	AnyTriton bool
}

// opEntry is an op's entry of the OPS table.
type opEntry struct{ Func, Name string }

// opModel is an op's function.
type opModel struct {
	Func      string
	Name      string // the op name, as the region key and OPS key
	Signature string // the parameter list, escaped
	Doc       string // the docstring body, escaped, indented
	Message   string // the NotImplementedError text, unescaped
	// ONNX, for an op imported from an ONNX model, is the call of that
	// op the region starts with.
	ONNX *onnxCall
	// Torch, for an op imported from a torch.library op, is the call of
	// that op the region starts with.
	Torch *torchCall
}

// torchCall calls the torch.library op an op was imported from.
type torchCall struct {
	// Module is the module name, or the .py file's path relative to the
	// repository root (or absolute as the opdef wrote it).
	Module string
	IsFile bool
	// Namespace and Name split the op's NS::NAME.
	Namespace, Name string
	// Args are the inputs then the params, each as its schema argument
	// (the op's own names): name=ident.
	Args []string
	// Triton: the op launches a Triton kernel (torch.triton), which runs
	// on CPU tensors only under Triton's interpreter.
	Triton bool
}

// TorchModule is the module of op's torch origin as the generated Python
// finds it (_torch_op of the reference module): a name as written, a .py
// file relative to the repository root (the opdef wrote it relative to
// itself) or absolute.
func TorchModule(pkg *ir.Package, op *ir.Op) string {
	m := op.Torch.Module
	if op.Torch.IsFile() && !path.IsAbs(m) && !filepath.IsAbs(filepath.FromSlash(m)) {
		m = path.Join(path.Dir(pkg.Source), m)
	}
	return m
}

// torchCallOf is the call of op's torch origin, or nil.
func torchCallOf(pkg *ir.Package, op *ir.Op) *torchCall {
	t := op.Torch
	if t == nil {
		return nil
	}
	ns, name, _ := strings.Cut(t.Op, "::")
	c := &torchCall{Module: TorchModule(pkg, op), IsFile: t.IsFile(), Namespace: ns, Name: name, Triton: t.Triton != nil}
	for _, in := range op.Inputs {
		c.Args = append(c.Args, in.Name+"="+in.Ident)
	}
	for _, p := range op.Params {
		v := p.Ident
		if p.Kind == ir.ParamArray {
			// The reference takes arrays as tuples; torch's int[] takes lists.
			v = "list(" + v + ")"
		}
		c.Args = append(c.Args, p.Name+"="+v)
	}
	return c
}

// onnxCall runs the ONNX op an op was imported from.
type onnxCall struct {
	// Model is the model's path relative to the repository root (the
	// directory that holds opdefs/), or absolute as the opdef wrote it.
	Model, OpType, Domain string
	// Inputs are the input identifiers, a variadic one starred.
	Inputs []string
	// Attrs map the attribute names (the params' own names) to the
	// params' identifiers.
	Attrs   []onnxAttr
	Outputs int
}

type onnxAttr struct{ Name, Ident string }

// onnxCallOf is the call of op's ONNX origin, or nil.
func onnxCallOf(pkg *ir.Package, op *ir.Op) *onnxCall {
	o := op.ONNX
	if o == nil {
		return nil
	}
	model := o.Model
	if !path.IsAbs(model) && !filepath.IsAbs(filepath.FromSlash(model)) {
		model = path.Join(path.Dir(pkg.Source), model)
	}
	c := &onnxCall{Model: model, OpType: o.OpType, Domain: o.Domain, Outputs: len(op.Outputs)}
	for _, in := range op.Inputs {
		id := in.Ident
		if in.Variadic {
			id = "*" + id
		}
		c.Inputs = append(c.Inputs, id)
	}
	for _, p := range op.Params {
		c.Attrs = append(c.Attrs, onnxAttr{Name: p.Name, Ident: p.Ident})
	}
	return c
}

// Generate renders the package's reference module (paths relative to
// out/reference/).
func (Generator) Generate(pkg *ir.Package, d *diag.TargetList) *fileset.Set {
	if len(pkg.Ops) == 0 {
		return nil
	}
	funcs := Funcs(pkg)
	m := moduleModel{Package: pkg.Name, Module: Module(pkg), Path: "out/" + Path(pkg)}
	// Each op's function is a section kept by the op's key while the op is
	// unchanged (render.KeyedSectionsOf). Its name is the op's unless
	// another op's took it first (Funcs): such an op, which depends on
	// the others, is given no key, so its function is made every time.
	keyed := make([]*ir.Op, len(pkg.Ops))
	for i, op := range pkg.Ops {
		m.Ops = append(m.Ops, opEntry{Func: funcs[op.Name], Name: op.Name})
		if funcs[op.Name] == baseFunc(op.Name) {
			keyed[i] = op
		}
		m.AnyONNX = m.AnyONNX || op.ONNX != nil
		m.AnyTorch = m.AnyTorch || op.Torch != nil
		m.AnyTriton = m.AnyTriton || op.Torch != nil && op.Torch.Triton != nil
	}
	var err error
	m.OpSections, err = render.KeyedSectionsOf(tmpl, pkg, "reference-op", keyed, func(i int) opModel {
		op := pkg.Ops[i]
		return opModel{
			Func:      funcs[op.Name],
			Name:      op.Name,
			Signature: Signature(op),
			Doc:       docstring(op),
			Message: op.Name + " has no reference implementation yet: write it in the region reference:" + op.Name +
				" of " + m.Path + " (opforge verify, calibration and quantization need it)",
			ONNX:  onnxCallOf(pkg, op),
			Torch: torchCallOf(pkg, op),
		}
	})
	if err != nil {
		d.Errorf(pkg.Pos, "internal", "rendering the reference functions: %v", err)
		return nil
	}
	return tmpl.Package(pkg, []render.File{{Path: m.Module + ".py", Tmpl: "reference.py.tmpl", Data: m, Owned: true}}, d)
}

// Signature is the reference function's parameter list: the inputs
// positionally (an optional input defaults to None when every input after
// it is optional too), then the params keyword-only with their defaults.
func Signature(op *ir.Op) string {
	var parts []string
	for i, in := range op.Inputs {
		p := in.Ident
		if in.Optional && allOptional(op.Inputs[i+1:]) {
			p += "=None"
		}
		parts = append(parts, p)
	}
	if len(op.Params) > 0 {
		parts = append(parts, "*")
	}
	for _, p := range op.Params {
		s := p.Ident
		if p.Default != nil {
			s += "=" + defaultValue(p)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func allOptional(ts []*ir.Tensor) bool {
	for _, t := range ts {
		if !t.Optional {
			return false
		}
	}
	return true
}

// defaultValue is a param's default as the Python value the reference
// receives: enums and strings as str, bools as bool, integers as int,
// floats as float, arrays as tuples.
func defaultValue(p *ir.Param) string {
	v, _ := literal.Default(p)
	return literal.Python(v.AsTuple())
}

// docstring lists what the function receives and returns, from the opdef;
// every opdef text is escaped for the docstring.
func docstring(op *ir.Op) string {
	var b strings.Builder
	line := func(indent int, parts ...string) {
		b.WriteString("\n")
		if len(parts) > 0 {
			b.WriteString(strings.Repeat("    ", indent))
		}
		for _, s := range parts {
			b.WriteString(s)
		}
	}
	b.WriteString(escape.PyDoc(op.Name))
	if op.Description != "" {
		b.WriteString(": " + escape.PyDoc(op.Description))
	}
	if len(op.TypeVars) > 0 {
		line(1)
		for _, tv := range op.TypeVars {
			line(1, "Type ", escape.PyDoc(tv.Name), " is one of ", dtypeList(tv.Allowed), ".")
		}
	}
	if len(op.Inputs) > 0 {
		line(1)
		line(1, "Inputs (torch tensors):")
		for _, in := range op.Inputs {
			s := tensorDoc(op, in)
			if in.Optional {
				s += "; optional: None when absent"
			}
			if in.Variadic {
				s += "; variadic: a list of tensors"
			}
			line(2, escape.PyDoc(in.Ident), ": ", s)
		}
	}
	if len(op.Params) > 0 {
		line(1)
		line(1, "Params (keyword-only Python values):")
		for _, p := range op.Params {
			line(2, escape.PyDoc(p.Ident), ": ", paramDoc(p))
		}
	}
	line(1)
	if len(op.Outputs) == 1 {
		o := op.Outputs[0]
		line(1, "Returns ", escape.PyDoc(o.Ident), ": ", tensorDoc(op, o), ".")
	} else {
		line(1, "Returns a tuple, in this order:")
		for _, o := range op.Outputs {
			line(2, escape.PyDoc(o.Ident), ": ", tensorDoc(op, o))
		}
	}
	if len(op.DataDependent) > 0 {
		line(1)
		for _, s := range op.DataDependent {
			line(1, "Size ", escape.PyDoc(s.Name), " is known only from the data: at most ", escape.PyDoc(s.Upper.String()), ".")
		}
	}
	line(1)
	b.WriteString("    ")
	return b.String()
}

func dtypeList(ds []ir.DType) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = escape.PyDoc(string(d))
	}
	return strings.Join(s, ", ")
}

// tensorDoc is "<dtype or type variable> [dims]" and the description.
func tensorDoc(op *ir.Op, t *ir.Tensor) string {
	var b strings.Builder
	if t.Type.Var != "" {
		b.WriteString(escape.PyDoc(t.Type.Var))
	} else {
		b.WriteString(strings.ReplaceAll(dtypeList(t.Type.DTypes), ", ", " or "))
	}
	switch {
	case t.Broadcast != nil:
		b.WriteString(" shaped as the broadcast of " + escape.PyDoc(strings.Join(t.Broadcast.Inputs, ", ")))
	case t.Like != nil:
		b.WriteString(" shaped like " + escape.PyDoc(t.Like.Input))
		switch t.Like.Mode {
		case ir.AxisReplace:
			b.WriteString(" with the dim at " + escape.PyDoc(t.Like.Axis) + " replaced by " + escape.PyDoc(t.Like.Replace.Expr.String()))
		case ir.AxisRemove:
			b.WriteString(" without the dim at " + escape.PyDoc(t.Like.Axis))
		case ir.AxisKeep:
			b.WriteString(" with the dim at " + escape.PyDoc(t.Like.Axis) + " kept as 1")
		case ir.AxisKeepIf:
			b.WriteString(" with the dim at " + escape.PyDoc(t.Like.Axis) + " kept as 1 when " + escape.PyDoc(t.Like.KeepParam) + ", else removed")
		}
	case t.Shape != nil:
		dims := make([]string, len(t.Shape))
		for i, d := range t.Shape {
			if d.Expr != nil {
				dims[i] = d.Expr.String()
			} else {
				dims[i] = "?"
			}
		}
		b.WriteString(" [" + escape.PyDoc(strings.Join(dims, ", ")) + "]")
	case t.Rank == ir.RankAny:
		b.WriteString(" of any rank")
	default:
		b.WriteString(" of rank " + strconv.Itoa(t.Rank))
	}
	if t.Layout != ir.LayoutNone {
		b.WriteString(", " + escape.PyDoc(string(t.Layout)))
	}
	if t.ShapeTensor {
		b.WriteString(", a shape tensor (its values are sizes)")
	}
	if r := t.Range; r != nil {
		b.WriteString(", values in [" + escape.PyDoc(r.Lo.Expr.String()) + ", " + escape.PyDoc(r.Hi.Expr.String()) + "]")
	}
	if t.Description != "" {
		b.WriteString(": " + escape.PyDoc(t.Description))
	}
	return b.String()
}

// paramDoc is a param's type, range and default, and its description.
func paramDoc(p *ir.Param) string {
	var b strings.Builder
	switch p.Kind {
	case ir.ParamEnum:
		vals := make([]string, len(p.Values))
		for i, v := range p.Values {
			vals[i] = escape.PyDoc(v)
		}
		b.WriteString("str, one of " + strings.Join(vals, ", "))
	case ir.ParamBool:
		b.WriteString("bool")
	case ir.ParamString:
		b.WriteString("str")
	case ir.ParamArray:
		b.WriteString("tuple of ")
		if p.Length > 0 {
			b.WriteString(strconv.Itoa(p.Length) + " ")
		}
		b.WriteString(strings.ReplaceAll(dtypeList(p.DTypes), ", ", " or "))
	case ir.ParamTensor:
		b.WriteString("torch tensor of " + strings.ReplaceAll(dtypeList(p.DTypes), ", ", " or "))
	default:
		b.WriteString(strings.ReplaceAll(dtypeList(p.DTypes), ", ", " or "))
	}
	float := len(p.DTypes) > 0 && p.DTypes[0].IsFloat()
	if p.Min != nil {
		b.WriteString(map[bool]string{false: ", min ", true: ", above "}[p.MinExclusive] + bound(*p.Min, float))
	}
	if p.Max != nil {
		b.WriteString(map[bool]string{false: ", max ", true: ", below "}[p.MaxExclusive] + bound(*p.Max, float))
	}
	switch {
	case p.Default != nil && (p.Kind == ir.ParamEnum || p.Kind == ir.ParamString):
		b.WriteString(", default " + escape.PyDoc(p.Default.Text))
	case p.Default != nil:
		b.WriteString(", default " + escape.PyDoc(defaultValue(p)))
	default:
		b.WriteString(", required")
	}
	if p.Description != "" {
		b.WriteString(": " + escape.PyDoc(p.Description))
	}
	return b.String()
}

func bound(v float64, float bool) string {
	if !float && v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
