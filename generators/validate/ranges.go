package validate

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// rangeEnv gives every name of an op's shape expressions the values it may
// take, from what the opdef declares: input dim symbols are sizes of at
// least 1, integer params lie in their min/max and their dtypes' range,
// shape-tensor values are sizes (at least 0), data-dependent sizes lie in
// [0, upper].
type rangeEnv struct {
	op      *ir.Op
	symbols map[string]bool
	sizes   map[string]*ir.SizeSymbol
	depth   int
}

func (r *rangeEnv) SymbolRange(name string) shapeexpr.Interval {
	if name == shapeexpr.IndexSymbol {
		return indexRange(r.op)
	}
	if r.symbols[name] {
		return shapeexpr.Interval{Lo: 1, Hi: math.Inf(1)}
	}
	if s := r.sizes[name]; s != nil {
		if r.depth > 8 {
			return shapeexpr.Interval{Lo: 0, Hi: math.Inf(1)}
		}
		r.depth++
		up := s.Upper.Range(r)
		r.depth--
		return shapeexpr.Interval{Lo: 0, Hi: math.Max(0, up.Hi)}
	}
	if p := r.op.Param(name); p != nil {
		return paramRange(p)
	}
	return shapeexpr.Unbounded
}

func (r *rangeEnv) ElementRange(name string, _ int) shapeexpr.Interval {
	if p := r.op.Param(name); p != nil {
		return paramRange(p)
	}
	return shapeexpr.Interval{Lo: 0, Hi: math.Inf(1)}
}

// ElemSizeRange bounds elem_size(name) by the sizes of the dtypes the
// tensor may take (at least one byte: 4-bit types round up).
func (r *rangeEnv) ElemSizeRange(name string) shapeexpr.Interval {
	out := shapeexpr.Interval{Lo: math.Inf(1), Hi: math.Inf(-1)}
	for _, t := range r.op.Tensors() {
		if t.Name != name {
			continue
		}
		for _, d := range r.op.AllowedDTypes(t) {
			b := math.Max(1, math.Ceil(float64(d.Bits())/8))
			out.Lo, out.Hi = math.Min(out.Lo, b), math.Max(out.Hi, b)
		}
	}
	if out.Lo > out.Hi {
		return shapeexpr.Interval{Lo: 1, Hi: 8}
	}
	return out
}

func paramRange(p *ir.Param) shapeexpr.Interval {
	if len(p.DTypes) > 0 && p.DTypes[0].IsFloat() {
		// A float param (read inside floor, ceil or round): its bounds,
		// closed (an interval only bounds the values).
		out := shapeexpr.Unbounded
		if p.Min != nil {
			out.Lo = *p.Min
		}
		if p.Max != nil {
			out.Hi = *p.Max
		}
		return out
	}
	out := shapeexpr.Interval{Lo: math.Inf(1), Hi: math.Inf(-1)}
	for _, d := range p.DTypes {
		if !d.IsInteger() {
			continue
		}
		lo, hi := intRange(d)
		out.Lo, out.Hi = math.Min(out.Lo, lo), math.Max(out.Hi, hi)
	}
	if out.Lo > out.Hi {
		out = shapeexpr.Unbounded
	}
	if lo, ok := p.IntMin(); ok {
		out.Lo = math.Max(out.Lo, lo)
	}
	if hi, ok := p.IntMax(); ok {
		out.Hi = math.Min(out.Hi, hi)
	}
	return out
}

// witnessEnv assigns every name one concrete value in its range: the
// sample value clamped to the range, so a result computed with it is a
// real case the opdef allows.
type witnessEnv struct {
	r *rangeEnv
	v int64
}

func clamp(v float64, i shapeexpr.Interval) int64 {
	v = math.Max(i.Lo, math.Min(i.Hi, v))
	if v >= math.MaxInt64 || v <= math.MinInt64 {
		return 0
	}
	return int64(v)
}

func (w witnessEnv) Symbol(name string) (int64, bool) {
	if s := w.r.sizes[name]; s != nil {
		up, err := s.Upper.Eval(w)
		if err != nil {
			return 0, false
		}
		return max(0, min(w.v, up)), true
	}
	return clamp(float64(w.v), w.r.SymbolRange(name)), true
}

func (w witnessEnv) Element(name string, i int) (int64, bool) {
	return clamp(float64(w.v), w.r.ElementRange(name, i)), true
}

// Float is a float param's sample: the sample value clamped into its
// range, and inside an exclusive bound.
func (w witnessEnv) Float(name string) (float64, bool) {
	p := w.r.op.Param(name)
	if p == nil || len(p.DTypes) == 0 || !p.DTypes[0].IsFloat() {
		return 0, false
	}
	i := paramRange(p)
	v := math.Max(i.Lo, math.Min(i.Hi, float64(w.v)))
	if !p.Admits(v) { // v is at an exclusive bound: step inside it
		step := math.Min(0.5, (i.Hi-i.Lo)/2)
		if v == i.Lo {
			v += step
		} else {
			v -= step
		}
	}
	return v, true
}

func (w witnessEnv) FloatElement(name string, _ int) (float64, bool) { return w.Float(name) }

// LenRange bounds len(p): a fixed array's length, else any.
func (r *rangeEnv) LenRange(name string) shapeexpr.Interval {
	if p := r.op.Param(name); p != nil && p.Length > 0 {
		return shapeexpr.Interval{Lo: float64(p.Length), Hi: float64(p.Length)}
	}
	return shapeexpr.Interval{Lo: 0, Hi: math.Inf(1)}
}

var witnessValues = []int64{1, 2, 3, 8, 64, 1024}

// witness returns the first sample assignment for which e's value
// satisfies bad, described for a message, or "".
func (r *rangeEnv) witness(exprs []*shapeexpr.Expr, bad func(vals []int64) bool) string {
	for _, v := range witnessValues {
		w := witnessEnv{r, v}
		vals := make([]int64, len(exprs))
		ok := true
		for i, e := range exprs {
			x, err := e.Eval(w)
			if err != nil {
				ok = false
				break
			}
			vals[i] = x
		}
		if ok && bad(vals) {
			return r.describe(w, exprs)
		}
	}
	return ""
}

// overflowWitness describes the first sample assignment for which
// evaluating e overflows int64, or returns "".
func (r *rangeEnv) overflowWitness(e *shapeexpr.Expr) string {
	for _, v := range witnessValues {
		w := witnessEnv{r, v}
		if _, err := e.Eval(w); err != nil {
			var oe *shapeexpr.OverflowError
			if errors.As(err, &oe) {
				return r.describe(w, []*shapeexpr.Expr{e})
			}
		}
	}
	return ""
}

func (r *rangeEnv) describe(w witnessEnv, exprs []*shapeexpr.Expr) string {
	seen := map[string]bool{}
	var parts []string
	for _, e := range exprs {
		for _, s := range e.Symbols() {
			ref := describeRef(s)
			if seen[ref] {
				continue
			}
			seen[ref] = true
			var x int64
			switch s.Kind {
			case shapeexpr.Index:
				x, _ = w.Element(s.Name, s.Index)
			case shapeexpr.Dim, shapeexpr.DimProd:
				x, _ = s.Eval(w)
			default:
				x, _ = w.Symbol(s.Name)
			}
			parts = append(parts, ref+" = "+strconv.FormatInt(x, 10))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// at places a diagnostic on the subexpression sub of an expression
// written at pos.
func at(pos diag.Pos, sub *shapeexpr.Expr) diag.Pos {
	if sub != nil && sub.Col > 1 && pos.Col > 0 {
		pos.Col += sub.Col - 1
	}
	return pos
}

// values checks what an expression can evaluate to: int64 overflow among
// its numbers, divisors that are or may be zero, and (for dims) values
// that are or may be negative.
func (c *shapeChecker) values(e *shapeexpr.Expr, pos diag.Pos, where string, dim bool) {
	if e == nil {
		return
	}
	if bad := e.ConstOverflow(); bad != nil {
		c.l.Errorf(at(pos, bad), "shape-overflow", "%s: %s overflows a 64-bit integer", where, bad)
		return
	}
	r := c.ranges
	for _, d := range e.Divisors() {
		rng := d.Range(r)
		switch {
		case d.IsConst() && d.Value == 0:
			c.l.Errorf(at(pos, d), "division-by-zero", "%s divides by zero", where)
		case rng.Lo == 0 && rng.Hi == 0, d.AlwaysZero():
			c.l.Errorf(at(pos, d), "division-by-zero", "%s divides by %s, which is always 0", where, d)
		case rng.Contains(0):
			why := "its range " + intervalText(rng) + " includes 0"
			c.l.Warnf(at(pos, d), "division-by-zero", "%s divides by %s, which may be 0 (%s); declare a min of at least 1 on the params it uses", where, d, why)
		}
	}
	rng := e.Range(r)
	if rng.Lo > math.MaxInt64 || rng.Hi < math.MinInt64 {
		c.l.Errorf(pos, "shape-overflow", "%s: %s overflows a 64-bit integer for every allowed value (at least %s)", where, e, fmtBound(rng.Lo))
		return
	}
	if w := r.overflowWitness(e); w != "" {
		c.l.Warnf(pos, "shape-overflow", "%s: %s overflows a 64-bit integer for %s; use smaller factors, or bound the params it uses with min/max", where, e, w)
		return
	}
	if !dim {
		return
	}
	if rng.Hi < 0 {
		c.l.Errorf(pos, "negative-dim", "%s is %s, which is always negative (at most %s)", where, e, fmtBound(rng.Hi))
		return
	}
	if rng.Lo < 0 {
		if w := r.witness([]*shapeexpr.Expr{e}, func(v []int64) bool { return v[0] < 0 }); w != "" {
			c.l.Warnf(pos, "negative-dim", "%s is %s, which is negative for %s; bound the params it uses with min/max", where, e, w)
		}
	}
}

// sizeOrder checks a data-dependent size's bounds: upper and opt are
// sizes (never negative) and opt is at most upper.
func (c *shapeChecker) sizeOrder(s *ir.SizeSymbol) {
	r := c.ranges
	upPos, optPos := s.Where.At("upper", s.Pos), s.Where.At("opt", s.Pos)
	up := s.Upper.Range(r)
	if up.Hi < 0 {
		c.l.Errorf(upPos, "size-bound-order", "upper bound %s of size %q is always negative", s.Upper, s.Name)
		return
	}
	if s.Opt == nil {
		return
	}
	opt := s.Opt.Range(r)
	if opt.Hi < 0 {
		c.l.Errorf(optPos, "size-bound-order", "opt value %s of size %q is always negative", s.Opt, s.Name)
		return
	}
	if opt.Lo > up.Hi {
		c.l.Errorf(optPos, "size-bound-order", "opt value %s of size %q is above its upper bound %s (at least %s > at most %s)", s.Opt, s.Name, s.Upper, fmtBound(opt.Lo), fmtBound(up.Hi))
		return
	}
	if w := r.witness([]*shapeexpr.Expr{s.Opt, s.Upper}, func(v []int64) bool { return v[0] > v[1] }); w != "" {
		c.l.Errorf(optPos, "size-bound-order", "opt value %s of size %q is above its upper bound %s for %s; opt must lie in [0, upper]", s.Opt, s.Name, s.Upper, w)
	}
}

func fmtBound(v float64) string {
	if math.IsInf(v, 0) {
		if v > 0 {
			return "+inf"
		}
		return "-inf"
	}
	if math.Abs(v) >= 1e15 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func intervalText(i shapeexpr.Interval) string {
	return fmt.Sprintf("[%s, %s]", fmtBound(i.Lo), fmtBound(i.Hi))
}
