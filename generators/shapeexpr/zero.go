package shapeexpr

import (
	"math"
	"slices"
	"strings"
)

// maxTerms bounds the polynomial AlwaysZero expands: a product of sums
// grows exponentially, and past this size the answer is "not known zero".
const maxTerms = 256

// AlwaysZero reports whether e is 0 whatever its names stand for: it
// expands sums, differences and products into a polynomial over its
// leaves (and over the subexpressions it cannot expand, taken whole) and
// finds every coefficient 0, as in H - H or 2 * (R - R) + 0 * W. Interval
// arithmetic cannot see this: R - R ranges over [lo - hi, hi - lo].
func (e *Expr) AlwaysZero() bool {
	p, ok := polyOf(e)
	return ok && len(p) == 0
}

// poly maps a monomial (its factors' canonical texts, sorted, joined by
// NUL; "" for the constant term) to its non-zero coefficient.
type poly map[string]int64

func polyOf(e *Expr) (poly, bool) {
	switch e.Kind {
	case Const:
		return constPoly(e.Value), true
	case Add, Sub:
		a, ok1 := polyOf(e.Args[0])
		b, ok2 := polyOf(e.Args[1])
		if !ok1 || !ok2 {
			return nil, false
		}
		sign := int64(1)
		if e.Kind == Sub {
			sign = -1
		}
		return a.add(b, sign)
	case Neg:
		a, ok := polyOf(e.Args[0])
		if !ok {
			return nil, false
		}
		return poly{}.add(a, -1)
	case Mul:
		a, ok1 := polyOf(e.Args[0])
		b, ok2 := polyOf(e.Args[1])
		if !ok1 || !ok2 {
			return nil, false
		}
		return a.mul(b)
	case FloorDiv, CeilDiv:
		// 0 divided by anything non-zero is 0 (a zero divisor is its own
		// error).
		if e.Args[0].AlwaysZero() {
			return poly{}, true
		}
	case Min, Max:
		if !slices.ContainsFunc(e.Args, func(a *Expr) bool { return !a.AlwaysZero() }) {
			return poly{}, true
		}
	}
	// A leaf, or what cannot be expanded: one unknown, named by its text.
	return poly{e.String(): 1}, true
}

func constPoly(v int64) poly {
	if v == 0 {
		return poly{}
	}
	return poly{"": v}
}

// add returns p + sign*q, or false when a coefficient overflows.
func (p poly) add(q poly, sign int64) (poly, bool) {
	out := make(poly, len(p)+len(q))
	for k, v := range p {
		out[k] = v
	}
	for k, v := range q {
		if v == math.MinInt64 {
			return nil, false
		}
		s, ok := addInt(out[k], sign*v)
		if !ok {
			return nil, false
		}
		if s == 0 {
			delete(out, k)
		} else {
			out[k] = s
		}
	}
	return out, len(out) <= maxTerms
}

// mul returns p * q, or false when a coefficient overflows or the product
// has too many terms.
func (p poly) mul(q poly) (poly, bool) {
	if len(p)*len(q) > maxTerms*maxTerms {
		return nil, false
	}
	out := poly{}
	for ka, va := range p {
		for kb, vb := range q {
			c, ok := mulInt(va, vb)
			if !ok {
				return nil, false
			}
			k := monomial(ka, kb)
			s, ok := addInt(out[k], c)
			if !ok {
				return nil, false
			}
			if s == 0 {
				delete(out, k)
			} else {
				out[k] = s
			}
		}
	}
	return out, len(out) <= maxTerms
}

// monomial is the product of two monomials, its factors sorted so that
// a * b and b * a are one term.
func monomial(a, b string) string {
	var fs []string
	for _, m := range []string{a, b} {
		if m != "" {
			fs = append(fs, strings.Split(m, "\x00")...)
		}
	}
	slices.Sort(fs)
	return strings.Join(fs, "\x00")
}

func addInt(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

func mulInt(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	return c, c/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64)
}
