package trt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// qdpModel is the package's Python plugin module (tensorrt.plugin).
type qdpModel struct {
	Module    string
	Namespace string
	Package   string
	Version   string // the C++ plugins' version, for the docstring
	AOT       bool   // any op with an ahead-of-time Triton implementation
	Ops       []*qdpOp
}

type qdpOp struct {
	ID          string // vision::RoiAlignLite
	Name        string
	Snake       string
	Description string
	// The parameter lists of the decorated functions: inputs as TensorDesc
	// (or Tensor for impl), then the attributes, then what each adds.
	RegisterArgs string
	AutotuneArgs string
	AOTArgs      string
	ImplArgs     string
	Returns      string   // register's return annotation
	Body         []string // register's body
	OutDescs     string   // Tuple[trtp.TensorDesc, ...] with one entry per output
	OutTensors   string   // Tuple[trtp.Tensor, ...]
	Combos       []string // AutoTuneCombination arguments
	AOT          bool
	Kernel       string   // the Triton kernel's name
	KernelArgs   string   // its parameter list
	Signature    string   // ASTSource signature entries
	Numels       string   // element count of each output, as ShapeExprs
	Zeros        []string // the placeholder kernel body's stores
}

// pyDType is the tensorrt module's name of each dtype.
var pyDType = map[ir.DType]string{
	ir.Float32: "trt.float32", ir.Float16: "trt.float16", ir.BFloat16: "trt.bfloat16", ir.Float8E4: "trt.fp8",
	ir.Int8: "trt.int8", ir.QInt8: "trt.int8", ir.Int32: "trt.int32", ir.Int64: "trt.int64", ir.Bool: "trt.bool", ir.Uint8: "trt.uint8",
}

// newQDPModel builds the Python plugins of ops; models are the ops' C++
// plugin models, in the same order.
func newQDPModel(pkg *ir.Package, ops []*ir.Op, models []*opModel) *qdpModel {
	m := &qdpModel{Module: names.Snake(pkg.Name) + "_qdp", Namespace: pkg.Namespace, Package: pkg.Name, Version: pkg.Version}
	qs := make([]*qdpOp, len(ops))
	render.Parallel(len(ops), func(i int) {
		if ops[i].Targets.TRT.QDP != nil {
			qs[i] = newQDPOp(pkg, ops[i], models[i])
		}
	})
	for _, q := range qs {
		if q != nil {
			m.AOT = m.AOT || q.AOT
			m.Ops = append(m.Ops, q)
		}
	}
	if len(m.Ops) == 0 {
		return nil
	}
	return m
}

// newQDPOp builds the Python plugin of op from its C++ plugin's model m,
// whose tensor layout and param types it shares.
func newQDPOp(pkg *ir.Package, op *ir.Op, m *opModel) *qdpOp {
	l := m.layout
	q := &qdpOp{
		ID:          pkg.Namespace + "::" + op.Name,
		Name:        op.Name,
		Snake:       names.Snake(op.Name),
		Description: oneLine(op.Description),
		AOT:         op.Targets.TRT.QDP.Impl != "jit",
	}
	var descArgs, tensorArgs, attrs []string
	for _, t := range l.Inputs {
		descArgs = append(descArgs, t.Ident+": trtp.TensorDesc")
		tensorArgs = append(tensorArgs, t.Ident+": trtp.Tensor")
	}
	for i, p := range op.Params {
		attrs = append(attrs, p.Ident+": "+m.Params[i].PyType)
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
	args := func(parts ...[]string) string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		return strings.Join(all, ", ")
	}
	q.RegisterArgs = args(descArgs, attrs)
	q.AutotuneArgs = args(descArgs, []string{outDescs})
	q.AOTArgs = args(descArgs, attrs, []string{outDescs, "tactic: int"})
	q.ImplArgs = args(tensorArgs, attrs, []string{outTensors, "stream: int"})
	q.Returns = "trtp.TensorDesc"
	if len(l.Outputs) > 1 {
		q.Returns = "Tuple[" + strings.Join(descs, ", ") + "]"
	}
	py := newPyRefs(op, l)
	var results []string
	for _, t := range l.Outputs {
		if t.Size == nil {
			continue
		}
		opt := t.Size.OptOrUpper()
		q.Body = append(q.Body, fmt.Sprintf("_%s = trtp.size_tensor(%s, %s)", t.Size.Name, py.expr(opt, false), py.expr(t.Size.Upper, false)))
	}
	aliased := map[string]string{}
	for _, a := range op.Targets.TRT.Aliases {
		aliased[a.Output] = names.Ident(a.Input)
	}
	all := l.All()
	for _, t := range l.Outputs {
		if t.Size != nil {
			continue
		}
		if in, ok := aliased[t.Name]; ok {
			results = append(results, in+".aliased()")
			continue
		}
		dims := make([]string, len(t.T.Shape))
		for j, d := range t.T.Shape {
			dims[j] = py.expr(d.Expr, false)
		}
		tuple := "(" + strings.Join(dims, ", ") + map[bool]string{true: ",", false: ""}[len(dims) == 1] + ")"
		results = append(results, fmt.Sprintf("trtp.from_shape_expr(%s, dtype=%s)", tuple, pyTypeExpr(l, all, t.Pos)))
	}
	for _, t := range l.Outputs {
		if t.Size != nil {
			results = append(results, "_"+t.Size.Name)
		}
	}
	q.Body = append(q.Body, "return "+strings.Join(results, ", "))
	formats := op.Targets.TRT.Formats
	for _, c := range l.Combos() {
		types := make([]string, len(all))
		for i, d := range c.DTypes {
			types[i] = strings.TrimPrefix(d.Info().TRT, "k")
		}
		for _, f := range formats {
			layouts := make([]string, len(all))
			for i, t := range all {
				layouts[i] = formatFor(f, t.Rank)
				if t.Rule == ruleSize {
					layouts[i] = "LINEAR"
				}
			}
			q.Combos = append(q.Combos, fmt.Sprintf("%q, %q", strings.Join(types, ", "), strings.Join(layouts, ", ")))
		}
	}
	// The AOT stub: a Triton kernel over (inputs, element counts, outputs).
	q.Kernel = q.Snake + "_kernel"
	var kargs, sig, numels []string
	for _, t := range l.Inputs {
		kargs = append(kargs, t.Ident+"_ptr")
		sig = append(sig, fmt.Sprintf("%q: _pointer(%s)", t.Ident+"_ptr", t.Ident))
	}
	for _, t := range l.Outputs {
		kargs = append(kargs, "n_"+t.Ident)
		sig = append(sig, fmt.Sprintf("%q: \"i32\"", "n_"+t.Ident))
		if t.Size != nil {
			numels = append(numels, "trtp.ShapeExpr(1)")
			continue
		}
		// A data-dependent dim counts with its upper bound: TensorRT
		// allows no arithmetic on size-tensor expressions.
		n := ""
		for _, d := range t.T.Shape {
			e := py.expr(d.Expr, true)
			if n == "" {
				n = e
			} else {
				n = "(" + n + " * " + e + ")"
			}
		}
		if n == "" {
			n = "trtp.ShapeExpr(1)"
		}
		numels = append(numels, n)
	}
	for _, t := range l.Outputs {
		kargs = append(kargs, t.Ident+"_ptr")
		sig = append(sig, fmt.Sprintf("%q: _pointer(outputs[%d])", t.Ident+"_ptr", t.Index))
		q.Zeros = append(q.Zeros, fmt.Sprintf("tl.store(%s_ptr + offsets, tl.zeros([BLOCK_SIZE], dtype=%s_ptr.dtype.element_ty), mask=offsets < n_%s)", t.Ident, t.Ident, t.Ident))
	}
	q.KernelArgs = strings.Join(append(kargs, "BLOCK_SIZE: tl.constexpr"), ", ")
	q.Signature = strings.Join(sig, ", ")
	q.Numels = strings.Join(numels, ", ")
	return q
}

// pyTypeExpr is the dtype of the output at pos in the register function.
func pyTypeExpr(l *ioLayout, all []*ioTensor, pos int) string {
	t := all[pos]
	switch t.Rule {
	case ruleFree:
		return t.Ident + ".dtype"
	case ruleTied:
		return pyTypeExpr(l, all, t.Tie)
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

// pyRefs renders shape expressions over tensorrt.plugin ShapeExprs.
type pyRefs struct {
	op *ir.Op
	l  *ioLayout
}

func newPyRefs(op *ir.Op, l *ioLayout) *pyRefs {
	return &pyRefs{op: op, l: l}
}

// expr renders e; constants and attribute values are wrapped in
// trtp.ShapeExpr so every operation has a ShapeExpr on its left (ShapeExpr
// has no reflected operators). upper replaces data-dependent sizes by their
// upper bounds.
func (r *pyRefs) expr(e *shapeexpr.Expr, upper bool) string {
	return e.Render(shapeexpr.Syntax{
		Const: func(v int64) string { return "trtp.ShapeExpr(" + strconv.FormatInt(v, 10) + ")" },
		Ref: func(s *shapeexpr.Expr) string {
			if s.Kind == shapeexpr.Index {
				return fmt.Sprintf("trtp.ShapeExpr(int(%s[%d]))", identOf(r.op, s.Name), s.Index)
			}
			if d, ok := r.l.InDim[s.Name]; ok {
				return fmt.Sprintf("%s.shape_expr[%d]", r.l.Inputs[d[0]].Ident, d[1])
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
		},
		Op: opSyntax(map[shapeexpr.Kind]string{shapeexpr.CeilDiv: "trtp.cdiv", shapeexpr.Min: "trtp.min", shapeexpr.Max: "trtp.max"}),
	})
}
