package shapeexpr

import (
	"fmt"
	"strconv"
)

// prod(x.shape[lo:hi]) is the product of a slice of input x's dims, as a
// Python slice: lo and hi are literal integers, negative counting from the
// last dim, either may be left out (from the first dim, to the last), and
// an empty slice is 1. It is what a size over "every dim but the last"
// needs at any rank (ScatterND's count of index tuples:
// prod(indices.shape[:-1])), which x.shape[i] products cannot say for an
// input whose rank is known only at run time.

// dimProd parses the rest of "prod" "(" NAME "." "shape" "[" [BOUND] ":" [BOUND] "]" ")"
// after "prod" (t). A bound is an integer literal, kept in Index and End;
// any other expression (rank(x) - 1, x.shape[-1]: a relation's) makes
// Args the two bounds, lo (0 when left out) and, with HasEnd, hi.
func (p *parser) dimProd(t token, depth int) *Expr {
	p.next() // (
	nt := p.tok
	e := &Expr{Kind: DimProd, Col: t.col}
	if nt.kind != tName {
		p.fail(nt.col, "prod takes a slice of an input's dims, prod(x.shape[lo:hi]); found %s", nt)
		return e
	}
	e.Name = nt.text
	p.next()
	p.expect(".")
	if p.err == nil && (p.tok.kind != tName || p.tok.text != "shape") {
		p.fail(p.tok.col, "expected \"shape\" after %q, found %s; prod(x.shape[lo:hi]) is the product of input x's dims lo to hi", nt.text, p.tok)
	}
	p.next()
	p.expect("[")
	lo := &Expr{Kind: Const, Col: p.tok.col}
	if !p.punct(":") && p.err == nil {
		lo = p.expr(depth + 1)
	}
	if p.err == nil && !p.punct(":") {
		p.fail(p.tok.col, "prod takes a slice such as x.shape[:-1] or x.shape[1:]; found %s", p.tok)
		return e
	}
	p.next()
	var hi *Expr
	if !p.punct("]") && p.err == nil {
		hi, e.HasEnd = p.expr(depth+1), true
	}
	p.expect("]")
	p.expect(")")
	if v, ok := literalInt(lo); ok && (hi == nil || isLiteralInt(hi)) {
		e.Index = v
		if hi != nil {
			e.End, _ = literalInt(hi)
		}
		return e
	}
	if hi == nil {
		e.Args = []*Expr{lo}
	} else {
		e.Args = []*Expr{lo, hi}
	}
	return e
}

// literalInt reads an integer literal, negated or not.
func literalInt(e *Expr) (int, bool) {
	switch {
	case e.Kind == Const && e.Value <= 1<<20:
		return int(e.Value), true
	case e.Kind == Neg && e.Args[0].Kind == Const && e.Args[0].Value <= 1<<20:
		return -int(e.Args[0].Value), true
	}
	return 0, false
}

func isLiteralInt(e *Expr) bool { _, ok := literalInt(e); return ok }

// SliceBounds are a DimProd's bounds when an expression gives one (a
// relation's slice): lo, and hi (nil when the slice runs to the end).
func (e *Expr) SliceBounds() (lo, hi *Expr) {
	if len(e.Args) == 0 {
		return nil, nil
	}
	if len(e.Args) > 1 {
		hi = e.Args[1]
	}
	return e.Args[0], hi
}

// SliceText is a DimProd's slice as written in canonical form: "lo:hi",
// with lo left out when 0 and hi when the slice runs to the last dim.
func (e *Expr) SliceText() string {
	if lo, hi := e.SliceBounds(); lo != nil {
		s := ""
		if !lo.IsConst() || lo.Value != 0 {
			s = lo.String()
		}
		s += ":"
		if hi != nil {
			s += hi.String()
		}
		return s
	}
	s := ""
	if e.Index != 0 {
		s = strconv.Itoa(e.Index)
	}
	s += ":"
	if e.HasEnd {
		s += strconv.Itoa(e.End)
	}
	return s
}

// SliceOf resolves a DimProd's slice against a rank as Python does: each
// bound normalized (negative counts from the end) and clamped to
// 0..rank; lo >= hi is the empty slice, whose product is 1.
func (e *Expr) SliceOf(rank int64) (lo, hi int64) {
	clamp := func(v int64) int64 {
		if v < 0 {
			v += rank
		}
		return min(max(v, 0), rank)
	}
	lo, hi = clamp(int64(e.Index)), rank
	if e.HasEnd {
		hi = clamp(int64(e.End))
	}
	return lo, max(lo, hi)
}

// SliceProdEnv is an Env that gives some products of dim slices itself
// (ok false: multiply the dims DimsEnv gives), such as a validator's
// sample values, where a sample dim at each of eight axes would overflow
// a product no real tensor reaches.
type SliceProdEnv interface {
	SliceProd(e *Expr) (int64, bool)
}

// evalDimProd multiplies the dims of the slice, refusing an int64 overflow.
func (e *Expr) evalDimProd(env Env) (int64, error) {
	if se, ok := env.(SliceProdEnv); ok {
		if v, ok := se.SliceProd(e); ok {
			return v, nil
		}
	}
	ds, ok := env.(DimsEnv)
	var dims []int64
	if ok {
		dims, ok = ds.Dims(e.Name)
	}
	if !ok {
		return 0, fmt.Errorf("no dims for %q", e.Name)
	}
	lo, hi := e.SliceOf(int64(len(dims)))
	if blo, bhi := e.SliceBounds(); blo != nil {
		l, err := blo.Eval(env)
		if err != nil {
			return 0, err
		}
		end := &Expr{Kind: DimProd, Index: int(max(min(l, 1<<20), -(1 << 20)))}
		if bhi != nil {
			h, err := bhi.Eval(env)
			if err != nil {
				return 0, err
			}
			end.End, end.HasEnd = int(max(min(h, 1<<20), -(1<<20))), true
		}
		lo, hi = end.SliceOf(int64(len(dims)))
	}
	acc := int64(1)
	for _, d := range dims[lo:hi] {
		v, ok := checked(Mul, []int64{acc, d})
		if !ok {
			return 0, &OverflowError{Expr: e}
		}
		acc = v
	}
	return acc, nil
}

// PythonSliceProd is the Python product of a slice of seq (a sequence of
// dims) as a DimProd e reads it, starting from one (the value of an empty
// slice: "1", or a target's one such as a ShapeExpr constant, so the
// product multiplies the target's own dim type). math is imported in the
// expression itself: every target's module imports other things, and the
// printers place expressions, not imports.
func PythonSliceProd(seq string, e *Expr, one string) string {
	return `__import__("math").prod(` + seq + "[" + e.SliceText() + "], start=" + one + ")"
}

// evalRank is rank(x): the number of x's dims.
func (e *Expr) evalRank(env Env) (int64, error) {
	if ds, ok := env.(DimsEnv); ok {
		if dims, ok := ds.Dims(e.Name); ok {
			return int64(len(dims)), nil
		}
	}
	return 0, fmt.Errorf("no dims for %q", e.Name)
}

// PythonSliceProdOf is PythonSliceProd for any DimProd: a slice whose
// bounds are expressions prints them through ref, as ints.
func PythonSliceProdOf(seq string, e *Expr, one string, ref func(*Expr) string) string {
	lo, hi := e.SliceBounds()
	if lo == nil {
		return PythonSliceProd(seq, e, one)
	}
	s := "int(" + lo.Python(ref) + "):"
	if hi != nil {
		s += "int(" + hi.Python(ref) + ")"
	}
	return `__import__("math").prod(` + seq + "[" + s + "], start=" + one + ")"
}
