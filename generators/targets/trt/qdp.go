package trt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/literal"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/reference"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/shapeexpr"
	"github.com/opforge/opforge/generators/workpool"
)

// qdpModel is the package's Python plugin module (tensorrt.plugin).
type qdpModel struct {
	Module    string
	Namespace string
	Package   string
	Version   string // the C++ plugins' version, for the docstring
	AOT       bool   // any op with an ahead-of-time Triton implementation
	Attrs     bool   // any op with attributes (the module's check helpers)
	Relations bool   // any op with requires: (the module's _known)
	Ops       []*qdpOp
	ops       []*ir.Op    // the op of each of Ops (render.KeyedSections)
	Frames    []*qdpFrame // each of Ops' part of the docstring
	// OpSections are the ops' sections ("qdp-op"), rendered per op.
	OpSections *render.Joined
	// Reference is the package's reference module (generators/reference)
	// below out/, which JIT implementations run until written: its
	// module name and path parts from the package's trt directory.
	Reference     string
	ReferencePath string // Python string arguments of os.path.join
	RunsReference bool   // some JIT implementation calls it
	// DTypeCodes: some op has a dtype code param, which the module's
	// _code helper checks.
	DTypeCodes bool
}

// qdpOp is one op's Python plugin; the fields qdp.py prints most come
// first (see opModel).
type qdpOp struct {
	ID          string // vision::RoiAlignLite
	dtypeCodes  bool   // a dtype code param (the module's _code helper)
	Snake       string
	Name        string
	Kernel      string // the Triton kernel's name
	AOT         bool
	Relations   bool // the op has requires: (register checks them through _known)
	Description string
	// The parameter lists of the decorated functions, one declaration
	// ("x: trtp.TensorDesc") a parameter, which the template joins:
	// inputs as TensorDesc (or Tensor for impl), then the attributes,
	// then what each adds.
	RegisterArgs []string
	AutotuneArgs []string
	// AutotuneChecks check the params autotune takes (those choosing an
	// output's dtype); ComboKey is the tuple of their values each
	// combination is listed under ("" when there are none).
	AutotuneChecks []string
	ComboKey       string
	// FormatConds: a format rule tests a param, so each combination is
	// listed with the condition (qdpCombo.Cond) autotune filters on.
	FormatConds bool
	AOTArgs     []string
	ImplArgs    []string
	Returns     string // register's return annotation
	// Body is register's body, a statement a line: the shape
	// printer's checks and locals, then the return (qdpBody).
	Body []string
	// Combos are autotune's list items, a line each.
	Combos []qdpCombo
	// KernelInputs and KernelOutputs are the placeholder Triton kernel's
	// tensors (identifiers): its parameters are the inputs' pointers, the
	// outputs' element counts (n_<out>), the outputs' pointers, the
	// Constexprs and BLOCK_SIZE, and its body stores zeros through every
	// output pointer.
	KernelInputs  []string
	KernelOutputs []kernelOutput
	Numels        []string // element count of each output, as ShapeExprs
	// Constexprs are the attributes the kernel receives as tl.constexpr
	// (aot_impl's constexprs entries); ParamDocs says what each is.
	Constexprs []kernelConstexpr
	ParamDocs  []string
	// The op's attribute check (none without params): AttrsFunc(AttrParams)
	// returns AttrValues, the attributes checked as the C++ plugin's
	// createPlugin checks them; Unpack rebinds them in register, impl and
	// aot_impl.
	AttrsFunc  string
	AttrParams []string // the params' identifiers
	AttrValues []string // the checked value of each, a line each
	Unpack     string
	// RefInputs and RefParams are the JIT implementation's call of the
	// op's reference: the inputs as torch tensors, the attributes as the
	// reference takes them ("" RefInputs: not wired, e.g. data-dependent
	// outputs, whose sizes the reference cannot report).
	RefInputs, RefParams string
	// Imported is the kernel opforge import torch brought along, which
	// the Triton region holds instead of the placeholder (nil: none).
	Imported *importedKernel
}

// kernelOutput is an output of the placeholder Triton kernel: its identifier
// and its index among the outputs.
type kernelOutput struct {
	Ident string
	Index int
}

// qdpCombo is one item of autotune's list: the dtypes and the layouts of
// every tensor (inputs, then outputs) as Python string literals, and
// where params choose output dtypes, the values they take for it
// (Python literals; nil otherwise).
type qdpCombo struct {
	Key           []string
	Types, Layout string
	// Cond is the Python condition on the attributes under which format
	// rules admit the combination ("True": always); printed only when the
	// op's FormatConds is set.
	Cond string
}

// pyDType is the tensorrt module's name of each dtype.
var pyDType = map[ir.DType]string{
	ir.Float32: "trt.float32", ir.Float16: "trt.float16", ir.BFloat16: "trt.bfloat16", ir.Float8E4: "trt.fp8",
	ir.Int8: "trt.int8", ir.QInt8: "trt.int8", ir.Int32: "trt.int32", ir.Int64: "trt.int64", ir.Bool: "trt.bool", ir.Uint8: "trt.uint8",
}

// qdpModule is the name of pkg's Python plugin module.
func qdpModule(pkg *ir.Package) string { return qdpModuleOf(pkg.Name) }

// qdpModuleOf is the Python plugin module's name of the package named pkg.
func qdpModuleOf(pkg string) string { return names.Snake(pkg) + "_qdp" }

// newQDPModel builds the Python plugins of ops; models are the ops' C++
// plugin models and frames their frames, in the same order. An op with a
// model gets its Python plugin's model and its frame's part of it; a
// kept op (no model) has both in its frame already.
func newQDPModel(pkg *ir.Package, ops []*ir.Op, models []*opModel, frames []*opFrame) *qdpModel {
	m := &qdpModel{Module: qdpModule(pkg), Namespace: pkg.Namespace, Package: pkg.Name, Version: pkg.Version, Reference: reference.Module(pkg)}
	// The module lies in out/trt/<Package>/python/.
	parts := []string{"..", "..", ".."}
	for _, part := range strings.Split(reference.Path(pkg), "/") {
		parts = append(parts, part)
	}
	quoted := make([]string, len(parts))
	for i, part := range parts {
		quoted[i] = escape.PyString(part)
	}
	m.ReferencePath = strings.Join(quoted, ", ")
	qs := make([]*qdpOp, len(ops))
	workpool.Parallel(len(ops), func(i int) {
		if frames[i].QDP == nil && models[i] != nil && OpOptions(ops[i]).QDP != nil {
			qs[i] = newQDPOp(pkg, ops[i], models[i])
		}
	})
	for i, f := range frames {
		if q := qs[i]; q != nil {
			f.QDP = q.frame()
		}
		q := f.QDP
		if q == nil {
			continue
		}
		m.AOT = m.AOT || q.AOT
		m.Attrs = m.Attrs || q.Attrs
		m.Relations = m.Relations || q.Relations
		m.RunsReference = m.RunsReference || q.RunsReference
		m.DTypeCodes = m.DTypeCodes || q.DTCodes
		// A kept op's Python plugin is not modelled (nil); its section
		// comes from the store.
		m.Ops = append(m.Ops, qs[i])
		m.ops = append(m.ops, ops[i])
		m.Frames = append(m.Frames, q)
	}
	if len(m.Ops) == 0 {
		return nil
	}
	return m
}

// frame is q's part of its op's frame (opFrame).
func (q *qdpOp) frame() *qdpFrame {
	return &qdpFrame{ID: q.ID, AOT: q.AOT, Attrs: q.AttrsFunc != "", Relations: q.Relations, RunsReference: !q.AOT && q.RefInputs != "", DTCodes: q.dtypeCodes}
}

// newQDPOp builds the Python plugin of op from its C++ plugin's model m,
// whose tensor layout and param types it shares.
func newQDPOp(pkg *ir.Package, op *ir.Op, m *opModel) *qdpOp {
	b := &qdpBuilder{op: op, m: m, l: m.layout, all: m.layout.All(), py: newPyRefs(op, m.layout)}
	b.q = &qdpOp{
		ID:          PluginID(pkg, op).Namespace + "::" + PluginID(pkg, op).Name,
		Name:        op.Name,
		Snake:       names.Snake(op.Name),
		Description: m.Description,
		AOT:         OpOptions(op).QDP.Impl != "jit",
		Relations:   len(op.Requires) > 0,
	}
	b.q.dtypeCodes = slices.ContainsFunc(op.Params, func(p *ir.Param) bool { return p.DTypeCode != nil })
	typed := b.signatures()
	dims := b.registerBody()
	b.q.RefInputs, b.q.RefParams = referenceCall(op, b.l, m)
	b.q.Combos = b.combos(typed)
	b.q.FormatConds = rulesReadParams(OpOptions(b.op).FormatRules)
	b.kernel(dims)
	importKernel(b.q, op)
	return b.q
}

// qdpBuilder fills one op's qdpOp step by step; py collects the shape
// checks its expressions need, so the steps run in newQDPOp's order.
type qdpBuilder struct {
	q   *qdpOp
	op  *ir.Op
	m   *opModel
	l   *ioLayout
	all []*ioTensor // l.All(): inputs, then outputs
	py  *pyRefs
}

// signatures sets the decorated functions' parameter lists, register's
// return annotation and autotune's checks of the params choosing output
// dtypes; it returns, per such param, the first output it types.
func (b *qdpBuilder) signatures() (typed []*ioTensor) {
	q, op, l := b.q, b.op, b.l
	descArgs := make([]string, len(l.Inputs))
	tensorArgs := make([]string, len(l.Inputs))
	for i, t := range l.Inputs {
		descArgs[i], tensorArgs[i] = t.Ident+": trtp.TensorDesc", t.Ident+": trtp.Tensor"
	}
	attrs := make([]string, len(op.Params))
	for i, p := range op.Params {
		attrs[i] = p.Ident + ": " + b.m.Params[i].PyType
	}
	descs := make([]string, len(l.Outputs))
	tensors := make([]string, len(l.Outputs))
	for i := range l.Outputs {
		descs[i], tensors[i] = "trtp.TensorDesc", "trtp.Tensor"
	}
	// tensorrt.plugin checks outputs' annotations entry by entry, so the
	// tuple names every output (no Tuple[X, ...]).
	outDescs := "outputs: Tuple[" + strings.Join(descs, ", ") + "]"
	outTensors := "outputs: Tuple[" + strings.Join(tensors, ", ") + "]"
	q.RegisterArgs = concat(descArgs, attrs)
	typed, tuneAttrs := b.autotuneParams(attrs)
	q.AutotuneArgs = concat(descArgs, tuneAttrs, []string{outDescs})
	q.AOTArgs = concat(q.RegisterArgs, []string{outDescs, "tactic: int"})
	q.ImplArgs = concat(tensorArgs, attrs, []string{outTensors, "stream: int"})
	q.Returns = "trtp.TensorDesc"
	if len(l.Outputs) > 1 {
		q.Returns = "Tuple[" + strings.Join(descs, ", ") + "]"
	}
	return typed
}

// autotuneParams handles outputs whose dtype a param chooses: autotune
// takes those params (in registration order, as tensorrt.plugin
// requires), checks them as register does, and lists only the
// combinations with the dtypes they choose. attrs are every param's
// declaration; it returns the first output each such param types and
// the params' declarations.
func (b *qdpBuilder) autotuneParams(attrs []string) (typed []*ioTensor, tuneAttrs []string) {
	q, l := b.q, b.l
	var tuneKey []string
	for i, p := range b.op.Params {
		j := slices.IndexFunc(l.All(), func(t *ioTensor) bool { return t.Rule == ruleParam && t.Param == p })
		if j < 0 {
			if formatRuleReads(b.op, p) { // a format rule's condition (formatCond)
				tuneAttrs = append(tuneAttrs, attrs[i])
				if check := qdpAttrCheck(q.ID, p, b.m.Params[i]); check != p.Ident {
					q.AutotuneChecks = append(q.AutotuneChecks, p.Ident+" = "+check)
				}
			}
			continue
		}
		typed = append(typed, l.All()[j])
		tuneAttrs = append(tuneAttrs, attrs[i])
		q.AutotuneChecks = append(q.AutotuneChecks, p.Ident+" = "+qdpAttrCheck(q.ID, p, b.m.Params[i]))
		tuneKey = append(tuneKey, p.Ident)
	}
	if len(tuneKey) > 0 {
		q.ComboKey = "(" + strings.Join(tuneKey, ", ") + ",)"
	}
	return typed, tuneAttrs
}

// registerBody sets register's body: the attribute check, the inputs'
// rank checks, the size tensors, then the outputs' descriptors. It
// returns each output's dims as ShapeExprs (nil for size-tensor outputs).
func (b *qdpBuilder) registerBody() (dims [][]string) {
	body := b.attrUnpack()
	body = append(body, b.paramTypedInputChecks()...)
	body = append(body, b.rankChecks()...)
	body = append(body, b.qdpRelationChecks()...)
	body = append(body, b.sizeTensors()...)
	shapes, results, dims := b.outputDescs()
	body = append(body, shapes...)
	for _, t := range b.l.Outputs {
		if t.Size != nil {
			results = append(results, "_"+t.Size.Name)
		}
	}
	// Checks of the replaced dims of shapes like an input's.
	body = append(body, b.py.takeChecks()...)
	b.q.Body = append(body, "return "+strings.Join(results, ", "))
	return dims
}

// attrUnpack sets the op's attribute check function and the statement
// rebinding the params to its results, which it returns as register's
// first line (none without params).
func (b *qdpBuilder) attrUnpack() []string {
	q, op := b.q, b.op
	if len(op.Params) == 0 {
		return nil
	}
	idents := make([]string, len(op.Params))
	values := make([]string, len(op.Params))
	for i, p := range op.Params {
		idents[i] = p.Ident
		values[i] = qdpAttrCheck(q.ID, p, b.m.Params[i])
	}
	q.AttrsFunc = qdpAttrsFunc(q.Snake)
	q.AttrParams, q.AttrValues = idents, values
	lhs := strings.Join(idents, ", ")
	if len(idents) == 1 {
		lhs += ","
	}
	q.Unpack = lhs + " = " + q.AttrsFunc + "(" + strings.Join(idents, ", ") + ")"
	return []string{q.Unpack}
}

// rankChecks are register's checks of the inputs with a rank range.
func (b *qdpBuilder) rankChecks() []string {
	var body []string
	for _, t := range b.l.Inputs {
		if rr := t.T.RankRange; rr != nil {
			lo, hi := strconv.Itoa(rr.Min), strconv.Itoa(rr.Max)
			body = append(body, "if not "+lo+" <= len("+t.Ident+".shape_expr) <= "+hi+": raise ValueError("+escape.PyString(b.op.Name+`: input "`+t.Name+`" has `)+" + str(len("+t.Ident+".shape_expr)) + "+escape.PyString(" dims; the op takes "+lo+" to "+hi)+")")
		}
	}
	return body
}

// sizeTensors declare the size tensors of the data-dependent outputs.
func (b *qdpBuilder) sizeTensors() []string {
	var body []string
	for _, t := range b.l.Outputs {
		if t.Size == nil {
			continue
		}
		opt := t.Size.OptOrUpper()
		body = append(body, fmt.Sprintf("_%s = trtp.size_tensor(%s, %s)", t.Size.Name, b.py.expr(opt, false), b.py.expr(t.Size.Upper, false)))
	}
	return body
}

// outputDescs are the descriptors register returns for the outputs with
// static shapes (results) and the statements computing them (body); dims
// are each output's dims as ShapeExprs.
func (b *qdpBuilder) outputDescs() (body, results []string, dims [][]string) {
	l := b.l
	aliased := map[string]string{}
	for _, a := range OpOptions(b.op).Aliases {
		aliased[a.Output] = names.Ident(a.Input)
	}
	dims = make([][]string, len(l.Outputs))
	for i, t := range l.Outputs {
		if t.Size != nil {
			continue
		}
		dims[i] = make([]string, len(t.T.Shape))
		for j, d := range t.T.Shape {
			dims[i][j] = b.py.expr(d.Expr, false)
		}
		body = append(body, b.py.takeChecks()...)
		if in, ok := aliased[t.Name]; ok {
			results = append(results, in+".aliased()")
			continue
		}
		tuple := literal.PythonTuple(dims[i]...)
		if ins := l.broadcast(t); ins != nil {
			var lines []string
			tuple, lines = broadcastShape(t, ins)
			body = append(body, lines...)
		}
		if in := l.like(t); in != nil {
			var lines []string
			tuple, lines = b.likeShape(t, in)
			body = append(body, lines...)
		}
		results = append(results, "trtp.from_shape_expr("+tuple+", dtype="+pyTypeExpr(l, b.all, t.Pos)+")")
	}
	return body, results, dims
}

// broadcastShape is output t's shape broadcast from inputs ins (NumPy
// rules: right-aligned, size-1 dims stretch), with the statement
// computing its rank.
func broadcastShape(t *ioTensor, ins []*ioTensor) (tuple string, body []string) {
	local := "_rank_" + t.Ident
	ranks := make([]string, len(ins))
	padded := make([]string, len(ins))
	vars := make([]string, len(ins))
	for k, in := range ins {
		ranks[k] = "len(" + in.Ident + ".shape_expr)"
		padded[k] = "(trtp.ShapeExpr(1),) * (" + local + " - " + ranks[k] + ") + tuple(" + in.Ident + ".shape_expr)"
		vars[k] = "_d" + strconv.Itoa(k)
	}
	body = append(body, local+" = max("+strings.Join(ranks, ", ")+")")
	fold := vars[0]
	for _, v := range vars[1:] {
		fold = "trtp.max(" + fold + ", " + v + ")"
	}
	return "tuple(" + fold + " for " + strings.Join(vars, ", ") + " in zip(" + strings.Join(padded, ", ") + "))", body
}

// likeShape is output t's shape like input in's: in's dims, whatever its
// rank, the axis's changed, with the statements checking the axis.
func (b *qdpBuilder) likeShape(t, in *ioTensor) (tuple string, body []string) {
	tuple = in.Ident + ".shape_expr"
	lk := t.T.Like
	if lk.Axis == "" {
		return tuple, nil
	}
	local, p := "_axis_"+t.Ident, b.op.Param(lk.Axis)
	rank := "len(" + tuple + ")"
	msg := escape.PyString(b.op.Name+": param "+p.Name+" is ") + " + str(" + local + ") + " + escape.PyString(", not an axis of input \""+in.Name+"\" (") + " + str(" + rank + ") + " + escape.PyString(" dims)")
	body = shapeexpr.PythonAxisCheck(local, p.Ident, rank, msg)
	replace := ""
	if lk.Replace != nil {
		replace = b.py.expr(lk.Replace.Expr, false)
	}
	if lk.Mode == ir.AxisKeepIf {
		return shapeexpr.PythonAxisShapeIf(tuple, local, "trtp.ShapeExpr(1)", "bool("+b.op.Param(lk.KeepParam).Ident+")"), body
	}
	return shapeexpr.PythonAxisShape(tuple, local, replace, "trtp.ShapeExpr(1)", lk.Mode == ir.AxisKeep), body
}

// combos are autotune's list: every dtype combination in every format,
// keyed by the values the dtype params take (typed: the first output
// each types).
func (b *qdpBuilder) combos(typed []*ioTensor) []qdpCombo {
	layouts := b.formatLayouts()
	combos := b.l.Combos()
	out := make([]qdpCombo, 0, len(combos)*len(layouts))
	types := make([]string, len(b.all))
	for _, c := range combos {
		for i, d := range c.DTypes {
			types[i] = strings.TrimPrefix(TensorDType(d), "k")
		}
		quoted := strconv.Quote(strings.Join(types, ", "))
		// The values the dtype params take for this combination.
		var key []string
		if len(typed) > 0 {
			key = make([]string, len(typed))
			for k, t := range typed {
				key[k] = pyParamValue(t, slices.Index(t.Allowed, c.DTypes[t.Pos]))
			}
		}
		for fi, layout := range layouts {
			if cond, ok := b.formatCond(fi, c.DTypes[0]); ok {
				out = append(out, qdpCombo{Key: key, Types: quoted, Layout: layout, Cond: cond})
			}
		}
	}
	return out
}

// formatLayouts are each format's layouts of every tensor, as a Python
// string: the same in every dtype combination.
func (b *qdpBuilder) formatLayouts() []string {
	formats := OpOptions(b.op).Formats
	layouts := make([]string, len(formats))
	for fi, f := range formats {
		each := make([]string, len(b.all))
		for i, t := range b.all {
			each[i] = formatFor(f, t.Rank)
			if t.Rule == ruleSize {
				each[i] = "LINEAR"
			}
		}
		layouts[fi] = strconv.Quote(strings.Join(each, ", "))
	}
	return layouts
}

// kernel sets the AOT stub: a Triton kernel over (inputs, element counts,
// outputs). Its parameter names are identifiers: quoted, they need no
// escapes. dims are each output's dims as ShapeExprs.
func (b *qdpBuilder) kernel(dims [][]string) {
	q, l := b.q, b.l
	q.Kernel = q.Snake + "_kernel"
	var kargs, numels []string
	for _, t := range l.Inputs {
		kargs = append(kargs, t.Ident+"_ptr")
		q.KernelInputs = append(q.KernelInputs, t.Ident)
	}
	for i, t := range l.Outputs {
		kargs = append(kargs, "n_"+t.Ident)
		q.KernelOutputs = append(q.KernelOutputs, kernelOutput{Ident: t.Ident, Index: t.Index})
		numels = append(numels, b.numel(t, dims[i]))
	}
	for _, t := range l.Outputs {
		kargs = append(kargs, t.Ident+"_ptr")
	}
	// kargs: the names the constexprs must not take.
	q.Constexprs, q.ParamDocs = kernelParams(b.op, kargs)
	q.Numels = numels
}

// numel is output t's element count as a ShapeExpr, from its dims.
func (b *qdpBuilder) numel(t *ioTensor, dims []string) string {
	if t.Size != nil {
		return "trtp.ShapeExpr(1)"
	}
	// A data-dependent dim counts with its upper bound: TensorRT
	// allows no arithmetic on size-tensor expressions. A dim reading
	// x.shape[axis] is the output's own (the register function's
	// normalized axes are not in scope here), so a size-tensor dim
	// beside it is never multiplied through numel().
	n := ""
	for j, d := range t.T.Shape {
		e := dims[j]
		switch {
		case d.Expr.UsesDims():
			e = "outputs[" + strconv.Itoa(t.Index) + "].shape_expr[" + strconv.Itoa(j) + "]"
		case len(b.op.DataDependent) > 0:
			e = b.py.expr(d.Expr, true)
		}
		if n == "" {
			n = e
		} else {
			n = "(" + n + " * " + e + ")"
		}
	}
	if b.l.like(t) != nil || b.l.broadcast(t) != nil {
		// Shaped like inputs: the output's own dims, whatever the rank.
		n = "outputs[" + strconv.Itoa(t.Index) + "].shape_expr.numel()"
	}
	if n == "" {
		n = "trtp.ShapeExpr(1)"
	}
	return n
}

// kernelConstexpr is one attribute value handed to the Triton kernel as a
// tl.constexpr: Name in the kernel, Expr the aot_impl expression.
// Param is the param's identifier where the constexpr holds the whole
// param (scalars, bools, enums), else "".
type kernelConstexpr struct{ Name, Expr, Param string }

// kernelParams gives the op's attributes to the placeholder Triton kernel
// as compile-time constants (aot_impl compiles the kernel for one plugin
// instance, whose attributes are fixed): scalars and bools as themselves,
// enums as their index, fixed-length arrays one constant per element.
// Strings, variable-length arrays and tensors are not passed (docs says
// so). Names are the attributes' upper-cased, made unique against the
// kernel's other arguments, BLOCK_SIZE and each other.
func kernelParams(op *ir.Op, taken []string) (consts []kernelConstexpr, docs []string) {
	used := map[string]bool{"BLOCK_SIZE": true, "offsets": true}
	for _, t := range taken {
		used[t] = true
	}
	name := func(base string) string {
		n := base
		for used[n] {
			n += "_"
		}
		used[n] = true
		return n
	}
	for _, p := range op.Params {
		base := strings.ToUpper(p.Ident)
		switch p.Kind {
		case ir.ParamScalar:
			conv := "int"
			if p.DTypes[0].IsFloat() {
				conv = "float"
			}
			n := name(base)
			consts = append(consts, kernelConstexpr{n, conv + "(" + p.Ident + ")", p.Ident})
			docs = append(docs, n+": "+p.Ident)
		case ir.ParamBool:
			n := name(base)
			consts = append(consts, kernelConstexpr{n, "bool(" + p.Ident + ")", p.Ident})
			docs = append(docs, n+": "+p.Ident)
		case ir.ParamEnum:
			n := name(base)
			tuple := literal.Python(literal.Tuple(literal.Strings(p.Values...)...))
			consts = append(consts, kernelConstexpr{n, tuple + ".index(" + p.Ident + ")", p.Ident})
			idx := make([]string, len(p.Values))
			for i, v := range p.Values {
				idx[i] = strconv.Itoa(i) + " " + v
			}
			docs = append(docs, n+": "+p.Ident+" as its index ("+strings.Join(idx, ", ")+")")
		case ir.ParamArray:
			if p.Length <= 0 {
				docs = append(docs, p.Ident+" (variable length) is not passed: add it to extra_args or compile it in")
				continue
			}
			conv := "int"
			if p.DTypes[0].IsFloat() {
				conv = "float"
			}
			var ns []string
			for i := 0; i < p.Length; i++ {
				n := name(base + "_" + strconv.Itoa(i))
				consts = append(consts, kernelConstexpr{n, conv + "(" + p.Ident + "[" + strconv.Itoa(i) + "])", ""})
				ns = append(ns, n)
			}
			docs = append(docs, strings.Join(ns, ", ")+": "+p.Ident+"[0.."+strconv.Itoa(p.Length-1)+"]")
		default:
			docs = append(docs, p.Ident+" ("+string(p.Kind)+") is not passed: add it to extra_args or compile it in")
		}
	}
	return consts, docs
}

// qdpAttrsFunc is the name of the function that checks an op's attributes.
func qdpAttrsFunc(snake string) string { return "_" + snake + "_attrs" }

// qdpAttrCheck is the Python expression that checks attribute p (its
// value in the variable p.Ident) as the C++ plugin's createPlugin does
// (same ranges, enum values and array lengths) and yields the value the
// module's functions work with: strings without the ONNX parser's
// trailing NUL, float16 arrays as float16.
func qdpAttrCheck(id string, p *ir.Param, m *paramModel) string {
	args := escape.PyString(id) + ", " + escape.PyString(p.Name) + ", " + p.Ident
	if p.DTypeCode != nil {
		return "_code(" + args + ", " + pyCodes(p) + ")"
	}
	switch p.Kind {
	case ir.ParamBool:
		return p.Ident
	case ir.ParamString:
		return "_text(" + args + ")"
	case ir.ParamEnum:
		vals := make([]string, len(p.Values))
		for i, v := range p.Values {
			vals[i] = escape.PyString(v)
		}
		tuple := strings.Join(vals, ", ")
		if len(vals) == 1 {
			tuple += ","
		}
		return "_choice(" + args + ", (" + tuple + "))"
	case ir.ParamScalar:
		if m.elem.IsFloat() {
			if p.Min == nil && p.Max == nil {
				return p.Ident
			}
			lo, hi := pyFloatBounds(p)
			return "_number(" + args + ", " + lo + ", " + hi + pyOpenEnds(p) + ")"
		}
		lo, hi := intLimits(p, m.elem)
		return "_number(" + args + ", " + strconv.FormatInt(lo, 10) + ", " + strconv.FormatInt(hi, 10) + ")"
	}
	// Arrays (and flattened tensors): the length of a fixed array, and the
	// opdef's range of every element (their dtype holds them already).
	length := "None"
	if p.Kind == ir.ParamArray && p.Length > 0 {
		length = strconv.Itoa(p.Length)
	}
	lo, hi, open := "None", "None", ""
	switch {
	case m.elem.IsFloat():
		lo, hi = pyFloatBounds(p)
		open = pyOpenEnds(p)
	case m.elem != ir.Bool && p.Kind != ir.ParamBool:
		if least, ok := p.IntMin(); ok {
			lo = strconv.FormatFloat(least, 'f', 0, 64)
		}
		if most, ok := p.IntMax(); ok {
			hi = strconv.FormatFloat(most, 'f', 0, 64)
		}
	}
	return "_array(" + args + ", " + qdpArrayDType(m.elem) + ", " + length + ", " + lo + ", " + hi + open + ")"
}

// pyFloatBounds are a float param's min and max as Python literals (None
// where the opdef gives none).
func pyFloatBounds(p *ir.Param) (string, string) {
	lo, hi := "None", "None"
	if p.Min != nil {
		lo = literal.Python(literal.Float(*p.Min))
	}
	if p.Max != nil {
		hi = literal.Python(literal.Float(*p.Max))
	}
	return lo, hi
}

// pyOpenEnds is the exclusive argument of _number and _array for a float
// param with an exclusive bound (", open=(True, False)"), "" for closed
// bounds.
func pyOpenEnds(p *ir.Param) string {
	if !p.MinExclusive && !p.MaxExclusive {
		return ""
	}
	return ", exclusive=" + literal.PythonTuple(literal.Python(literal.Bool(p.MinExclusive)), literal.Python(literal.Bool(p.MaxExclusive)))
}

// concat joins parameter lists, some of them empty, into one.
func concat(lists ...[]string) []string {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	all := make([]string, 0, n)
	for _, l := range lists {
		all = append(all, l...)
	}
	return all
}

// pyTypeExpr is the dtype of the output at pos in the register function.
func pyTypeExpr(l *ioLayout, all []*ioTensor, pos int) string {
	t := all[pos]
	switch t.Rule {
	case ruleFree:
		return t.Ident + ".dtype"
	case ruleTied:
		return pyTypeExpr(l, all, t.Tie)
	case ruleParam:
		// The param's value (checked by the attrs function) names it.
		pairs := make([]string, len(t.Allowed))
		for i, d := range t.Allowed {
			pairs[i] = pyParamValue(t, i) + ": " + pyDType[d]
		}
		return "{" + strings.Join(pairs, ", ") + "}[" + t.Param.Ident + "]"
	case ruleFollowFirst:
		first := all[0].Ident + ".dtype"
		set := make([]string, len(t.Allowed))
		for i, d := range t.Allowed {
			set[i] = pyDType[d]
		}
		return fmt.Sprintf("(%s if %s in (%s,) else %s)", first, first, strings.Join(set, ", "), set[0])
	}
	return pyDType[t.Fixed]
}

var qdpShapeOp = opSyntax(map[shapeexpr.Kind]string{shapeexpr.CeilDiv: "trtp.cdiv", shapeexpr.Min: "trtp.min", shapeexpr.Max: "trtp.max"})

// pyRefs renders shape expressions over tensorrt.plugin ShapeExprs.
type pyRefs struct {
	op *ir.Op
	l  *ioLayout
	// syntax[upper] renders references with data-dependent sizes as their
	// size tensors' expressions, or at their upper bounds.
	syntax [2]shapeexpr.Syntax
	// checks are the statements the expressions rendered since the last
	// takeChecks need first (reading and range-checking x.shape[axis]'s
	// axis); done dedupes them over the whole function.
	checks []string
	done   map[string]bool
}

// takeChecks returns the pending checks and clears them.
func (r *pyRefs) takeChecks() []string {
	out := r.checks
	r.checks = nil
	return out
}

func newPyRefs(op *ir.Op, l *ioLayout) *pyRefs {
	r := &pyRefs{op: op, l: l}
	for i, upper := range []bool{false, true} {
		r.syntax[i] = shapeexpr.Syntax{Const: pyConst, Ref: func(s *shapeexpr.Expr) string { return r.ref(s, upper) }, Op: qdpShapeOp, Ratio: r.ratio}
	}
	return r
}

// expr renders e; constants and attribute values are wrapped in
// trtp.ShapeExpr so every operation has a ShapeExpr on its left (ShapeExpr
// has no reflected operators). upper replaces data-dependent sizes by their
// upper bounds.
func (r *pyRefs) expr(e *shapeexpr.Expr, upper bool) string {
	if upper {
		return e.Render(r.syntax[1])
	}
	return e.Render(r.syntax[0])
}

func pyConst(v int64) string { return "trtp.ShapeExpr(" + strconv.FormatInt(v, 10) + ")" }

func (r *pyRefs) ref(s *shapeexpr.Expr, upper bool) string {
	if s.Kind == shapeexpr.Dim {
		return r.dim(s)
	}
	if s.Kind == shapeexpr.DimProd {
		return shapeexpr.PythonSliceProd(r.l.Inputs[slices.IndexFunc(r.l.Inputs, func(t *ioTensor) bool { return t.Name == s.Name })].Ident+".shape_expr", s, pyConst(1))
	}
	if s.Kind == shapeexpr.Len {
		return "trtp.ShapeExpr(len(" + identOf(r.op, s.Name) + "))"
	}
	if s.Kind == shapeexpr.Index {
		return "trtp.ShapeExpr(int(" + identOf(r.op, s.Name) + "[" + strconv.Itoa(s.Index) + "]))"
	}
	if d, ok := r.l.InDim[s.Name]; ok {
		return r.l.Inputs[d[0]].Ident + ".shape_expr[" + strconv.Itoa(d[1]) + "]"
	}
	for _, z := range r.op.DataDependent {
		if z.Name == s.Name {
			if upper {
				return r.expr(z.Upper, true)
			}
			return "_" + z.Name + ".expr()"
		}
	}
	return "trtp.ShapeExpr(int(" + identOf(r.op, s.Name) + "))"
}

// ratio renders a float attribute (or a float array's element) as the
// numerator and the power-of-two denominator of its exact value
// (float.as_integer_ratio), for roundings as ShapeExpr floor divisions;
// ok is false for an integer reference.
func (r *pyRefs) ratio(s *shapeexpr.Expr) (num, den string, ok bool) {
	if !isFloatParam(r.op.Param(s.Name)) {
		return "", "", false
	}
	value := identOf(r.op, s.Name)
	if s.Kind == shapeexpr.Index {
		value += "[" + strconv.Itoa(s.Index) + "]"
	}
	pair := "float(" + value + ").as_integer_ratio()"
	return "trtp.ShapeExpr(" + pair + "[0])", "trtp.ShapeExpr(" + pair + "[1])", true
}

// dim renders x.shape[axis] as an element of x's shape_expr: a literal
// axis of a fixed rank normalized here, any other axis read, range-checked
// (IndexError) and normalized by checks.
func (r *pyRefs) dim(s *shapeexpr.Expr) string {
	var in *ioTensor
	for _, t := range r.l.Inputs {
		if t.Name == s.Name {
			in = t
		}
	}
	seq := in.Ident + ".shape_expr"
	if s.Axis == "" && in.Rank != ir.RankAny {
		a, _ := shapeexpr.NormalizeAxis(int64(s.Index), int64(in.Rank))
		return seq + "[" + strconv.FormatInt(a, 10) + "]"
	}
	local, value := shapeexpr.PythonDimAxis(in.Index, r.op.ParamIndex(s.Axis), s, identOf(r.op, s.Axis))
	rank := "len(" + seq + ")"
	msg := escape.PyString(r.op.Name+": "+s.String()+" reads axis ") + " + str(" + local + ") + " + escape.PyString(" of input \""+in.Name+"\", which has ") + " + str(" + rank + ") + " + escape.PyString(" dims")
	for _, c := range shapeexpr.PythonAxisCheck(local, value, rank, msg) {
		if r.done == nil {
			r.done = map[string]bool{}
		}
		if !r.done[c] {
			r.done[c] = true
			r.checks = append(r.checks, c)
		}
	}
	return seq + "[" + local + "]"
}

// referenceCall is how a JIT implementation calls the op's reference: the
// inputs as torch tensors on the GPU and the attributes converted to what
// the reference takes (arrays as tuples, tensor params as tensors). It is
// "" for ops whose outputs the reference cannot fill alone: data-dependent
// sizes (the size tensors) and shape-tensor inputs (not among impl's).
func referenceCall(op *ir.Op, l *ioLayout, m *opModel) (inputs, params string) {
	if len(op.DataDependent) > 0 || len(l.ShapeInputs) > 0 {
		return "", ""
	}
	ins := make([]string, len(l.Inputs))
	for i, t := range l.Inputs {
		ins[i] = "torch.as_tensor(" + t.Ident + ", device=\"cuda\")"
	}
	kw := make([]string, len(op.Params))
	for i, p := range op.Params {
		v := p.Ident
		switch p.Kind {
		case ir.ParamArray:
			v = "tuple(" + v + ".tolist())"
		case ir.ParamTensor:
			v = "torch.as_tensor(" + v + ", device=\"cuda\")"
		}
		kw[i] = p.Ident + "=" + v
	}
	return strings.Join(ins, ", "), strings.Join(kw, ", ")
}
