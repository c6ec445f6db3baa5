package validate

// What opforge verify reads from an opdef beyond the op itself: integer
// inputs' value ranges, computed sizes and extra param sets.

import (
	"sort"
	"strings"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// valueRanges checks the value ranges of integer inputs (`range: [lo,
// hi]`): integer inputs only, not shape tensors (verify makes their values
// from the case's sizes), bounds over shape symbols and integer params
// (known before any input's values), and a range that can hold a value.
func (c *shapeChecker) valueRanges() {
	for _, t := range c.op.Inputs {
		r := t.Range
		if r == nil {
			continue
		}
		pos := t.Where.At("range", t.Pos)
		where := "value range of input " + quote(t.Name)
		if t.ShapeTensor {
			c.l.Errorf(pos, "input-range", "input %q is a shape tensor: its values are sizes, which verify takes from the case's shapes; drop its range", t.Name)
			continue
		}
		ok := true
		for _, d := range c.op.AllowedDTypes(t) {
			if !d.IsInteger() {
				c.l.Errorf(pos, "input-range", "input %q may be %s; a value range is for integer inputs (indices, counts), whose every dtype is an integer one", t.Name, d)
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		bad := false
		for _, d := range []*ir.Dim{r.Lo, r.Hi} {
			for _, s := range d.Expr.Symbols() {
				if s.Kind == shapeexpr.Index && c.op.Input(s.Name) != nil {
					c.l.Errorf(at(d.Pos, s), "input-range", "%s reads the values of input %q; a bound is known before any input's values: use shape symbols and integer params", where, s.Name)
					bad = true
				}
			}
			if !bad {
				mark := c.l.Len()
				c.expr(d.Expr, d.Pos, where, false)
				c.values(d.Expr, d.Pos, where, false)
				bad = c.l.HasErrorsSince(mark)
			}
		}
		if bad {
			continue
		}
		lo, hi := r.Lo.Expr.Range(c.ranges), r.Hi.Expr.Range(c.ranges)
		switch {
		case lo.Lo > hi.Hi:
			c.l.Errorf(pos, "input-range", "%s [%s, %s] is always empty: the low end is at least %s, the high end at most %s", where, r.Lo.Expr, r.Hi.Expr, fmtBound(lo.Lo), fmtBound(hi.Hi))
		default:
			if w := c.ranges.witness([]*shapeexpr.Expr{r.Lo.Expr, r.Hi.Expr}, func(v []int64) bool { return v[1] < v[0] }); w != "" {
				c.l.Warnf(pos, "input-range", "%s [%s, %s] is empty for %s; bound the params it uses with min/max", where, r.Lo.Expr, r.Hi.Expr, w)
			}
		}
	}
}

// verifySizes checks the symbols verify computes (`verify: {sizes: {S:
// expr}}`): each an input shape symbol, given once, its expression over
// the drawn symbols, integer params and the sizes computed above it (verify
// computes them in the order written).
func (c *shapeChecker) verifySizes() {
	v := c.op.Verify
	if v == nil || len(v.Sizes) == 0 {
		return
	}
	computed := map[string]bool{}
	for _, s := range v.Sizes {
		if !c.symbols[s.Symbol] {
			var syms []string
			for name := range c.symbols {
				syms = append(syms, name)
			}
			sort.Strings(syms)
			c.l.Errorf(s.Pos, "verify-sizes", "verify computes size %q, which no input shape binds; the inputs' symbols: %s", s.Symbol, strings.Join(syms, ", "))
			continue
		}
		if computed[s.Symbol] {
			c.l.Errorf(s.Pos, "verify-sizes", "verify computes size %q twice", s.Symbol)
		}
		computed[s.Symbol] = true
	}
	above := map[string]bool{}
	for _, s := range v.Sizes {
		where := "verify's size " + s.Symbol
		bad := false
		for _, sym := range s.Value.Expr.Symbols() {
			if sym.Kind == shapeexpr.Sym && computed[sym.Name] && !above[sym.Name] {
				c.l.Errorf(at(s.Value.Pos, sym), "verify-sizes", "%s uses %q, which verify computes at or below it; sizes are computed in the order written, each over drawn symbols, integer params and the sizes above it", where, sym.Name)
				bad = true
			} else if sym.Kind == shapeexpr.Index && c.op.Input(sym.Name) != nil {
				c.l.Errorf(at(s.Value.Pos, sym), "verify-sizes", "%s reads the values of input %q; sizes are known before any input's values", where, sym.Name)
				bad = true
			}
		}
		above[s.Symbol] = true
		if bad {
			continue
		}
		c.expr(s.Value.Expr, s.Value.Pos, where, false)
		// A case where it is below 1 is left out, with a note: no warning,
		// but one where it always is leaves no case.
		mark := c.l.Len()
		c.values(s.Value.Expr, s.Value.Pos, where, false)
		if c.l.HasErrorsSince(mark) {
			continue
		}
		if r := s.Value.Expr.Range(c.ranges); r.Hi < 1 {
			c.l.Errorf(s.Value.Pos, "verify-sizes", "%s is %s, which is always below 1 (at most %s): every case would be left out", where, s.Value.Expr, fmtBound(r.Hi))
		}
	}
}
