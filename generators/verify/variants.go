package verify

import (
	"math"
	"regexp"
	"slices"
	"sync"

	"github.com/opforge/opforge/generators/ir"
)

// A param tried only at its default lets a kernel that ignores it pass:
// a number param that lacks a bound on either side is also tried away from
// its default, above it and, where every dtype it may have is signed, below
// zero (1.0 gives 2.25 and -1.5; 0 gives 3 and -2), within the bound it has.
// An array param moves every element, each by a different amount, so
// swapped elements show too.

// axisLikeName matches params that name an axis although no output shape
// says which input's (a softmax's axis): their values stay axes of the base
// case's inputs.
var axisLikeName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(axis|axes|dim|dims)$|_(axis|axes|dim|dims)$|^(axis|dim)_`)
})

// awayVariants are param p's values away from base (its value in the base
// case): nil when p is bounded on both sides (min and max are tried), an
// axis the axis sweep tries, or not a number.
func awayVariants(op *ir.Op, p *ir.Param, base Param) []Param {
	if p.Min != nil && p.Max != nil || axisInput(op, p) != nil || !numberParam(p) {
		return nil
	}
	lo, hi := innerBounds(p)
	if axisLikeName().MatchString(p.Name) {
		r := baseRank(op)
		if r == 0 {
			return nil
		}
		// Axes of every input of the base case: -r to r-1.
		l, h := float64(-r), float64(r-1)
		lo, hi = maxBound(lo, l), minBound(hi, h)
	}
	signed := signedParam(p)
	var out []Param
	for _, dir := range []int{1, -1} {
		if dir < 0 && !signed {
			continue // an unsigned dtype holds no negative value
		}
		val, ok := awayValue(base.Value, 0, dir, lo, hi)
		if !ok || show(val) == show(base.Value) {
			continue
		}
		v := Param{Name: p.Ident, Kind: string(p.Kind), Array: p.Kind == ir.ParamArray, Value: val}
		if !slices.ContainsFunc(out, func(q Param) bool { return show(q.Value) == show(val) }) {
			out = append(out, v)
		}
	}
	return out
}

// awayValue moves x (a number, or a list of them) away from itself: up
// (dir 1) or below zero (dir -1), element i of a list by a further i steps,
// clamped into [lo, hi].
func awayValue(x any, i, dir int, lo, hi *float64) (any, bool) {
	switch v := x.(type) {
	case []any:
		out := make([]any, len(v))
		for j, e := range v {
			m, ok := awayValue(e, j, dir, lo, hi)
			if !ok {
				return nil, false
			}
			out[j] = m
		}
		return out, true
	case float64:
		step := 0.5 * float64(i)
		m := math.Abs(v) + 1.25 + step
		if dir < 0 {
			m = -(math.Abs(v) + 0.5 + step)
		}
		return clampFloat(m, lo, hi), true
	case int64:
		m := abs64(v) + 3 + int64(i)
		if dir < 0 {
			m = -(abs64(v) + 2 + int64(i))
		}
		return clampInt(m, lo, hi), true
	}
	return nil, false
}

// innerBounds are the least and greatest values the cases give param p:
// an inclusive bound itself, and inside an exclusive one, which the
// plugins refuse: the next integer for an integer param; for a float one a
// quarter of the way to the other bound, or 0.5 in when there is none (a
// value far enough from the bound to be a plain case, not a rounding
// probe).
func innerBounds(p *ir.Param) (lo, hi *float64) {
	float := len(p.DTypes) > 0 && p.DTypes[0].IsFloat()
	inside := func(b, other *float64, exclusive bool, dir float64, least func() (float64, bool)) *float64 {
		switch {
		case b == nil || !exclusive:
			return b
		case !float:
			v, _ := least()
			return &v
		case other != nil:
			v := *b + (*other-*b)/4
			return &v
		}
		v := *b + dir*0.5
		return &v
	}
	return inside(p.Min, p.Max, p.MinExclusive, 1, p.IntMin), inside(p.Max, p.Min, p.MaxExclusive, -1, p.IntMax)
}

func clampFloat(x float64, lo, hi *float64) float64 {
	if lo != nil && x < *lo {
		x = *lo
	}
	if hi != nil && x > *hi {
		x = *hi
	}
	return x
}

func clampInt(x int64, lo, hi *float64) int64 {
	if lo != nil && float64(x) < *lo {
		x = int64(math.Ceil(*lo))
	}
	if hi != nil && float64(x) > *hi {
		x = int64(math.Floor(*hi))
	}
	return x
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func maxBound(b *float64, x float64) *float64 {
	if b != nil && *b > x {
		return b
	}
	return &x
}

func minBound(b *float64, x float64) *float64 {
	if b != nil && *b < x {
		return b
	}
	return &x
}

// numberParam reports a scalar or array param of numbers.
func numberParam(p *ir.Param) bool {
	if p.Kind != ir.ParamScalar && p.Kind != ir.ParamArray {
		return false
	}
	for _, d := range p.DTypes {
		if !d.IsFloat() && !d.IsInteger() {
			return false
		}
	}
	return true
}

// signedParam reports a param whose every dtype holds negative values.
func signedParam(p *ir.Param) bool {
	if len(p.DTypes) == 0 {
		return false
	}
	for _, d := range p.DTypes {
		if d.Kind() != ir.KindFloat && d.Kind() != ir.KindInt {
			return false
		}
	}
	return true
}

// baseRank is the smallest rank of the op's data inputs in the base case
// (an input of rank any has rank 4 there); 0 when it has none.
func baseRank(op *ir.Op) int {
	r := 0
	for _, in := range op.Inputs {
		if in.Scalar || in.ShapeTensor {
			continue
		}
		n := len(in.Shape)
		switch {
		case in.Shape != nil:
		case in.Rank == ir.RankAny:
			n = 4
		default:
			n = in.Rank
		}
		if n > 0 && (r == 0 || n < r) {
			r = n
		}
	}
	return r
}
