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

// dimProd parses the rest of "prod" "(" NAME "." "shape" "[" [INT] ":" [INT] "]" ")"
// after "prod" (t).
func (p *parser) dimProd(t token) *Expr {
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
	if !p.punct(":") {
		e.Index = p.sliceBound()
	}
	if p.err == nil && !p.punct(":") {
		p.fail(p.tok.col, "prod takes a slice such as x.shape[:-1] or x.shape[1:]; found %s", p.tok)
		return e
	}
	p.next()
	if !p.punct("]") {
		e.End, e.HasEnd = p.sliceBound(), true
	}
	p.expect("]")
	p.expect(")")
	return e
}

// sliceBound parses an optionally negative integer of a slice.
func (p *parser) sliceBound() int {
	neg := p.punct("-")
	if neg {
		p.next()
	}
	at := p.tok
	if at.kind != tInt {
		p.fail(at.col, "a slice bound is an integer, found %s", at)
		return 0
	}
	p.next()
	v, err := strconv.Atoi(at.text)
	if err != nil || v > 1<<20 {
		p.fail(at.col, "slice bound %s is out of range", at.text)
	}
	if neg {
		v = -v
	}
	return v
}

// SliceText is a DimProd's slice as written in canonical form: "lo:hi",
// with lo left out when 0 and hi when the slice runs to the last dim.
func (e *Expr) SliceText() string {
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
