package validate

import (
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// shapeChecker resolves every name used in a dimension expression. Input
// shapes bind symbols (a bare name as an input dim); output shapes, size
// bounds and workspace sizes may then use those symbols, integer params,
// elements of integer array params and shape-tensor values, and (outputs
// only) data-dependent sizes.
type shapeChecker struct {
	l       *diag.List
	op      *ir.Op
	symbols map[string]bool
	sizes   map[string]bool
	ranges  *rangeEnv
	// elemSizes: the expression being checked may use elem_size (a
	// target's workspace size, computed where the tensors' dtypes are
	// known).
	elemSizes bool
	// dims: the expression being checked may use x.shape[axis] and
	// prod(x.shape[lo:hi]) (output shapes and a target's workspace,
	// computed where the inputs' dims are known).
	dims bool
	// relation: the expression is a side of a relation (requires:), which
	// may also use rank(x) and slice bounds that are expressions.
	relation bool
	// output is the output whose declared shape is being checked (nil
	// elsewhere), which `like: x` could shape instead.
	output *ir.Tensor
}

// Reporter receives diagnostics: the list itself, or a target's view of
// it (diag.TargetList).
type Reporter interface {
	Errorf(pos diag.Pos, code, format string, args ...any)
	Warnf(pos diag.Pos, code, format string, args ...any)
}

// TargetExpr checks an expression a target computes from op's shapes
// where the tensors' run-time dtypes are known (a workspace size:
// elem_size may be used): every name it uses must be an input dim
// symbol, an integer param or a shape-tensor value, never a data-dependent
// size, and its values must stay within 64 bits. where names it in
// messages.
func TargetExpr(op *ir.Op, e *shapeexpr.Expr, pos diag.Pos, where string, r Reporter) {
	// The op's own checks bind the symbols and ranges; they were reported
	// when the package was validated.
	c := newShapeChecker(&diag.List{}, op)
	c.check()
	var l diag.List
	c.l = &l
	c.elemSizes, c.dims = true, true
	c.expr(e, pos, where, false)
	c.elemSizes, c.dims = false, false
	c.values(e, pos, where, true)
	for _, d := range l.Sorted() {
		if d.Severity == diag.Error {
			r.Errorf(d.Pos, d.Code, "%s", d.Message)
		} else {
			r.Warnf(d.Pos, d.Code, "%s", d.Message)
		}
	}
}

func newShapeChecker(l *diag.List, op *ir.Op) *shapeChecker {
	return &shapeChecker{l: l, op: op, symbols: map[string]bool{}, sizes: map[string]bool{}}
}

func (c *shapeChecker) check() {
	for _, t := range c.op.Inputs {
		for _, d := range t.Shape {
			switch {
			case d.Expr.IsSymbol():
				if c.op.Param(d.Expr.Name) != nil || c.op.Input(d.Expr.Name) != nil {
					c.l.Errorf(d.Pos, "shape-symbol-clash", "input %q uses %q as a dim symbol, but that is also a param or input name", t.Name, d.Expr.Name)
				}
				if why := names.Reserved(d.Expr.Name); why != "" {
					// Symbols become locals in Python and kernel arguments
					// in OpenCL and C++.
					c.l.Errorf(d.Pos, "reserved-identifier", "input %q uses dim symbol %q, which is %s; rename it", t.Name, d.Expr.Name, why)
				}
				c.symbols[d.Expr.Name] = true
			case d.Expr.IsConst():
			default:
				c.l.Errorf(d.Pos, "input-dim-expr", "input %q dim %q: input dims are a number or a symbol; compute derived sizes in output shapes", t.Name, d.Expr.String())
			}
		}
	}
	// Sizes are known before the bounds are checked, so a bound that uses
	// one is reported as such (size-in-bound), not as an unknown symbol.
	c.ranges = &rangeEnv{op: c.op, symbols: c.symbols, sizes: map[string]*ir.SizeSymbol{}}
	for _, s := range c.op.DataDependent {
		c.sizes[s.Name] = true
		c.ranges.sizes[s.Name] = s
	}
	for _, s := range c.op.DataDependent {
		if why := names.Reserved(s.Name); why != "" {
			c.l.Errorf(s.Pos, "reserved-identifier", "data-dependent size %q is %s; rename it", s.Name, why)
		}
		if c.symbols[s.Name] || c.op.Param(s.Name) != nil {
			c.l.Errorf(s.Pos, "shape-symbol-clash", "data-dependent size %q has the name of an input dim symbol or param", s.Name)
		}
		c.expr(s.Upper, s.Where.At("upper", s.Pos), "upper bound of "+s.Name, false)
		c.values(s.Upper, s.Where.At("upper", s.Pos), "upper bound of "+s.Name, false)
		if s.Opt != nil {
			c.expr(s.Opt, s.Where.At("opt", s.Pos), "opt value of "+s.Name, false)
			c.values(s.Opt, s.Where.At("opt", s.Pos), "opt value of "+s.Name, false)
		}
		c.sizeOrder(s)
	}
	used := map[string]bool{}
	c.dims = true
	for _, t := range c.op.Outputs {
		c.output = t
		for _, d := range t.Shape {
			c.expr(d.Expr, d.Pos, "output "+quote(t.Name), true)
			c.values(d.Expr, d.Pos, "output "+quote(t.Name)+" dim", true)
			for _, s := range d.Expr.Symbols() {
				used[s.Name] = true
			}
		}
	}
	c.output = nil
	for _, t := range c.op.Outputs {
		if t.Like != nil && t.Like.Replace != nil {
			d := t.Like.Replace
			where := "output " + quote(t.Name) + " replaced dim"
			c.expr(d.Expr, d.Pos, where, false)
			c.values(d.Expr, d.Pos, where, false)
		}
	}
	c.dims = false
	for _, s := range c.op.DataDependent {
		if !used[s.Name] {
			c.l.Warnf(s.Pos, "unused-size", "data-dependent size %q is not used by any output shape", s.Name)
		}
	}
	c.valueRanges()
	c.verifySizes()
}

func (c *shapeChecker) expr(e *shapeexpr.Expr, pos diag.Pos, where string, allowSizes bool) {
	// Float params may be read inside floor, ceil and round only.
	real := map[*shapeexpr.Expr]bool{}
	for _, r := range e.Rounded() {
		for _, s := range r.Args[0].Symbols() {
			real[s] = true
		}
	}
	for _, s := range e.Symbols() {
		p := pos
		if e.Col > 0 && s.Col > 1 && pos.Col > 0 {
			p.Col = pos.Col + s.Col - 1
		}
		c.symbol(s, p, where, allowSizes, real[s])
	}
}

func (c *shapeChecker) symbol(s *shapeexpr.Expr, pos diag.Pos, where string, allowSizes, real bool) {
	name := s.Name
	if s.Kind == shapeexpr.Len {
		c.length(s, pos, where)
		return
	}
	if s.Kind == shapeexpr.ElemSize {
		c.elemSize(s, pos, where)
		return
	}
	if s.Kind == shapeexpr.Dim {
		c.dim(s, pos, where)
		return
	}
	if s.Kind == shapeexpr.DimProd || s.Kind == shapeexpr.Rank {
		c.relationOnly(s, pos, where)
		return
	}
	if s.Kind == shapeexpr.Sym && name == shapeexpr.IndexSymbol || s.At != "" {
		if !c.countedIndex(s, pos, where) {
			return
		}
		if s.Kind == shapeexpr.Sym {
			return
		}
	}
	if s.Kind == shapeexpr.Sym {
		if c.symbols[name] {
			return
		}
		if c.sizes[name] {
			if !allowSizes {
				c.l.Errorf(pos, "size-in-bound", "%s uses data-dependent size %q; bounds must be computable before the kernel runs", where, name)
			}
			return
		}
	}
	if p := c.op.Param(name); p != nil {
		c.paramUse(s, p, pos, where, real)
		return
	}
	if in := c.op.Input(name); in != nil && s.Kind == shapeexpr.Index {
		if !in.ShapeTensor {
			c.l.Errorf(pos, "not-shape-tensor", "%s reads the values of input %q, which is not marked shape_tensor: true", where, name)
		}
		return
	}
	c.l.Errorf(pos, "unknown-symbol", "%s uses unknown symbol %q; %s", where, describeRef(s), c.suggestDims(s, allowSizes))
}

// elemSize checks elem_size(x): allowed where the dtypes are known at run
// time (TargetExpr: a target's workspace size), of a tensor of the op.
func (c *shapeChecker) elemSize(s *shapeexpr.Expr, pos diag.Pos, where string) {
	if !c.elemSizes {
		c.l.Errorf(pos, "elem-size", "%s uses %s; the element size of a tensor is known only where its run-time dtype is: a size a target computes when the plugin runs (a workspace) may use it, a shape may not", where, s)
		return
	}
	var tensors []string
	for _, t := range c.op.Tensors() {
		if t.Name == s.Name {
			return
		}
		tensors = append(tensors, t.Name)
	}
	c.l.Errorf(pos, "elem-size", "%s uses %s, but op %s has no tensor %q; its tensors are %s", where, s, c.op.Name, s.Name, strings.Join(tensors, ", "))
}

func describeRef(s *shapeexpr.Expr) string {
	switch s.Kind {
	case shapeexpr.Index:
		if s.At != "" {
			return s.String()
		}
		return s.Name + "[" + strconv.Itoa(s.Index) + "]"
	case shapeexpr.Dim:
		return s.String()
	}
	return s.Name
}

// length checks len(p): p is an array param (a tensor param's length
// is no dim of anything the targets read).
func (c *shapeChecker) length(s *shapeexpr.Expr, pos diag.Pos, where string) {
	p := c.op.Param(s.Name)
	if p != nil && p.Kind == ir.ParamArray {
		return
	}
	var arrays []string
	for _, q := range c.op.Params {
		if q.Kind == ir.ParamArray {
			arrays = append(arrays, q.Name)
		}
	}
	hint := "the op has no array param"
	if len(arrays) > 0 {
		hint = "its array params are " + strings.Join(arrays, ", ")
	}
	what := "no param"
	if p != nil {
		what = "a " + string(p.Kind) + " param"
	}
	c.l.Errorf(pos, "len-param", "%s uses %s, but %q is %s; len takes an array param (%s)", where, s, s.Name, what, hint)
}

func (c *shapeChecker) paramUse(s *shapeexpr.Expr, p *ir.Param, pos diag.Pos, where string, real bool) {
	intDType := len(p.DTypes) > 0 && p.DTypes[0].IsInteger()
	floatDType := len(p.DTypes) > 0 && p.DTypes[0].IsFloat()
	switch {
	case p.Kind == ir.ParamScalar && s.Kind == shapeexpr.Index:
		c.l.Errorf(pos, "not-indexable", "%s indexes param %q, which is a scalar", where, p.Name)
	case p.Kind == ir.ParamArray && s.Kind == shapeexpr.Sym:
		c.l.Errorf(pos, "array-needs-index", "%s uses array param %q as a whole; pick an element such as %s[0]", where, p.Name, p.Name)
	case (p.Kind == ir.ParamScalar || p.Kind == ir.ParamArray) && floatDType && !real:
		c.l.Errorf(pos, "non-integer-dim", "%s uses param %q of dtype %s outside floor, ceil or round; a dim is an integer: round the real value, e.g. floor(H * %s), ceil(...) or round(...) (half up)", where, p.Name, p.DTypes[0], describeRef(s))
	case (p.Kind == ir.ParamScalar || p.Kind == ir.ParamArray) && !intDType && !floatDType:
		c.l.Errorf(pos, "non-integer-dim", "%s uses param %q of dtype %s; dims need an integer param", where, p.Name, p.DTypes[0])
	case p.Kind != ir.ParamScalar && p.Kind != ir.ParamArray:
		c.l.Errorf(pos, "non-integer-dim", "%s uses %s param %q; dims need an integer param", where, p.Kind, p.Name)
	case p.Kind == ir.ParamArray && p.Length > 0 && s.At != "" && c.output != nil && countMax(c.op, c.output) > p.Length:
		c.l.Errorf(pos, "index-out-of-range", "%s reads %s[%s], but %q has %d elements and %q counts up to %d tensors", where, p.Name, s.At, p.Name, p.Length, c.output.Name, countMax(c.op, c.output))
	case p.Kind == ir.ParamArray && p.Length > 0 && s.At == "" && s.Index >= p.Length:
		c.l.Errorf(pos, "index-out-of-range", "%s reads %s[%d], but %q has %d elements", where, p.Name, s.Index, p.Name, p.Length)
	}
}
