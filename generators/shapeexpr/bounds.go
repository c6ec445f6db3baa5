package shapeexpr

import (
	"fmt"
	"math"
	"math/bits"
)

// OverflowError is an int64 overflow while evaluating Expr.
type OverflowError struct{ Expr *Expr }

func (e *OverflowError) Error() string {
	return fmt.Sprintf("%s overflows a 64-bit integer", e.Expr)
}

// checked applies an arithmetic kind to vals, reporting int64 overflow.
func checked(k Kind, vals []int64) (int64, bool) {
	switch k {
	case Neg:
		if vals[0] == math.MinInt64 {
			return 0, false
		}
		return -vals[0], true
	case Add:
		s := vals[0] + vals[1]
		return s, (s > vals[0]) == (vals[1] > 0) || vals[1] == 0
	case Sub:
		s := vals[0] - vals[1]
		return s, (s < vals[0]) == (vals[1] > 0) || vals[1] == 0
	case Mul:
		a, b := vals[0], vals[1]
		if a == 0 || b == 0 {
			return 0, true
		}
		neg := (a < 0) != (b < 0)
		hi, lo := bits.Mul64(abs64(a), abs64(b))
		if hi != 0 {
			return 0, false
		}
		if neg {
			if lo > 1<<63 {
				return 0, false
			}
			return int64(-lo), true
		}
		if lo > math.MaxInt64 {
			return 0, false
		}
		return int64(lo), true
	}
	return 0, false
}

func abs64(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

// Interval is a closed range of values; Lo may be -Inf and Hi +Inf.
// Bounds are float64 so that unbounded ends and sums of large bounds need
// no special cases; they decide signs and zero, not exact values.
type Interval struct{ Lo, Hi float64 }

// Unbounded is (-inf, +inf).
var Unbounded = Interval{math.Inf(-1), math.Inf(1)}

// Contains reports whether v lies in the interval.
func (i Interval) Contains(v float64) bool { return i.Lo <= v && v <= i.Hi }

// RangeEnv gives the range of each name an expression may use.
type RangeEnv interface {
	SymbolRange(name string) Interval
	ElementRange(name string, index int) Interval
}

// ElemSizeRangeEnv is a RangeEnv that also bounds tensors' element
// sizes (by the dtypes each may take); without it they lie in [1, 8].
type ElemSizeRangeEnv interface {
	ElemSizeRange(name string) Interval
}

// DimRangeEnv is a RangeEnv that also bounds input dims read by axis
// (x.shape[axis]); without it they lie in [0, +inf).
type DimRangeEnv interface {
	DimRange(e *Expr) Interval
}

// LenRangeEnv is a RangeEnv that also bounds array params' lengths;
// without it they lie in [0, +inf).
type LenRangeEnv interface {
	LenRange(name string) Interval
}

// Range bounds every value e can take when each name lies in its range.
func (e *Expr) Range(env RangeEnv) Interval {
	switch e.Kind {
	case Const:
		return Interval{float64(e.Value), float64(e.Value)}
	case Sym:
		return env.SymbolRange(e.Name)
	case Index:
		return env.ElementRange(e.Name, e.Index)
	case ElemSize:
		if es, ok := env.(ElemSizeRangeEnv); ok {
			return es.ElemSizeRange(e.Name)
		}
		return Interval{1, 8}
	case Dim, DimProd:
		if ds, ok := env.(DimRangeEnv); ok {
			return ds.DimRange(e)
		}
		return Interval{0, math.Inf(1)}
	case Rank:
		return Interval{0, 8}
	case Len:
		if le, ok := env.(LenRangeEnv); ok {
			return le.LenRange(e.Name)
		}
		return Interval{0, math.Inf(1)}
	}
	r := make([]Interval, len(e.Args))
	for i, a := range e.Args {
		r[i] = a.Range(env)
	}
	switch e.Kind {
	case Neg:
		return Interval{-r[0].Hi, -r[0].Lo}
	case Add:
		return Interval{r[0].Lo + r[1].Lo, r[0].Hi + r[1].Hi}
	case Sub:
		return Interval{r[0].Lo - r[1].Hi, r[0].Hi - r[1].Lo}
	case Mul:
		return hull(mul(r[0].Lo, r[1].Lo), mul(r[0].Lo, r[1].Hi), mul(r[0].Hi, r[1].Lo), mul(r[0].Hi, r[1].Hi))
	case FloorDiv, CeilDiv:
		if r[1].Contains(0) || math.IsNaN(r[1].Lo) {
			// The quotient's size is bounded only by the dividend's.
			m := math.Max(math.Abs(r[0].Lo), math.Abs(r[0].Hi))
			return Interval{-m, m}
		}
		q := hull(r[0].Lo/r[1].Lo, r[0].Lo/r[1].Hi, r[0].Hi/r[1].Lo, r[0].Hi/r[1].Hi)
		return Interval{math.Floor(q.Lo), math.Ceil(q.Hi)}
	case Div:
		if r[1].Contains(0) || math.IsNaN(r[1].Lo) {
			return Unbounded
		}
		return hull(r[0].Lo/r[1].Lo, r[0].Lo/r[1].Hi, r[0].Hi/r[1].Lo, r[0].Hi/r[1].Hi)
	case Floor, Ceil, Round:
		return Interval{math.Floor(r[0].Lo), math.Ceil(r[0].Hi)}
	case Min, Max:
		out := r[0]
		for _, x := range r[1:] {
			if e.Kind == Min {
				out = Interval{math.Min(out.Lo, x.Lo), math.Min(out.Hi, x.Hi)}
			} else {
				out = Interval{math.Max(out.Lo, x.Lo), math.Max(out.Hi, x.Hi)}
			}
		}
		return out
	}
	return Unbounded
}

// mul is the product of interval ends, with 0 * inf = 0 (a zero factor
// stays zero however large the other one may get).
func mul(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return a * b
}

func hull(vs ...float64) Interval {
	out := Interval{math.Inf(1), math.Inf(-1)}
	for _, v := range vs {
		if math.IsNaN(v) {
			return Unbounded
		}
		out.Lo = math.Min(out.Lo, v)
		out.Hi = math.Max(out.Hi, v)
	}
	return out
}

// Divisors returns the divisor operand of every floor_div, ceil_div and //
// in e, outermost first.
func (e *Expr) Divisors() []*Expr {
	var out []*Expr
	var walk func(*Expr)
	walk = func(x *Expr) {
		if x.Kind == FloorDiv || x.Kind == CeilDiv || x.Kind == Div {
			out = append(out, x.Args[1])
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(e)
	return out
}

// ConstOverflow evaluates every subexpression made of numbers only and
// returns the first (innermost) one whose value overflows int64, or nil.
func (e *Expr) ConstOverflow() *Expr {
	var bad *Expr
	var eval func(*Expr) (int64, bool)
	eval = func(x *Expr) (int64, bool) {
		switch x.Kind {
		case Const:
			return x.Value, true
		case Sym, Index, Dim, DimProd, Len, ElemSize, Rank:
			return 0, false
		}
		vals := make([]int64, len(x.Args))
		all := true
		for i, a := range x.Args {
			v, ok := eval(a)
			vals[i] = v
			all = all && ok
		}
		if !all || bad != nil {
			return 0, false
		}
		v, err := x.Eval(MapEnv{})
		if err != nil {
			if _, ok := err.(*OverflowError); ok {
				bad = x
			}
			return 0, false
		}
		_ = vals
		return v, true
	}
	eval(e)
	return bad
}
