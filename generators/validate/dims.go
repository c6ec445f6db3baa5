package validate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// fixedRank is t's rank when the opdef fixes it, or ir.RankAny.
func fixedRank(t *ir.Tensor) int {
	switch {
	case t.Scalar:
		return 0
	case t.Shape != nil:
		return len(t.Shape)
	}
	return t.Rank
}

// mostRank is the largest rank tensor t of fixed rank rank (fixedRank) can
// have: that rank, else its range's top, else the most any target admits;
// fixed says it is the rank itself. An axis param is checked against it
// (an axis past a smaller rank fails at run time, with the op's name, in
// every target).
func mostRank(t *ir.Tensor, rank int) (most int, fixed bool) {
	switch {
	case rank != ir.RankAny:
		return rank, true
	case t.RankRange != nil:
		return t.RankRange.Max, false
	}
	return ir.MaxRank, false
}

// dim checks x.shape[axis]: allowed in output shapes and workspaces only
// (the dims of the inputs are known where those are computed), of a
// required data input,
// with an axis that can be one of its axes: a literal checked against a
// fixed rank (or the least rank of a rank range), or an integer scalar
// param whose range and default can be. Axes that only the run time can
// check are checked by the generated code.
func (c *shapeChecker) dim(s *shapeexpr.Expr, pos diag.Pos, where string) {
	in := c.dimInput(s, pos, where)
	if in == nil {
		return
	}
	rank, least := fixedRank(in), fixedRank(in)
	if rank == ir.RankAny && in.RankRange != nil {
		least = in.RankRange.Min
	}
	if rank == 0 || least == 0 && rank != ir.RankAny {
		c.l.Errorf(pos, "shape-dim", "%s uses %s, but input %q has no dims", where, s, s.Name)
		return
	}
	if s.Axis == "" {
		if least == ir.RankAny {
			// Any rank: the axis fails on inputs with too few dims at
			// run time; say so where more than one is needed.
			if need := max(s.Index+1, -s.Index); need > 1 {
				c.l.Warnf(pos, "shape-dim", "%s uses %s, which needs input %q to have at least %d dims, but it may have any rank; give it rank: [%d, %d]", where, s, s.Name, need, need, ir.MaxRank)
			}
			return
		}
		if _, ok := shapeexpr.NormalizeAxis(int64(s.Index), int64(least)); !ok {
			switch {
			case rank == ir.RankAny && least == 0:
				c.l.Errorf(pos, "shape-dim", "%s uses %s, but input %q may have no dims; raise its least rank", where, s, s.Name)
			case rank == ir.RankAny:
				c.l.Errorf(pos, "shape-dim", "%s uses %s, but input %q may have as few as %d dims (axes -%d to %d); raise its least rank or use another axis", where, s, s.Name, least, least, least-1)
			default:
				c.l.Errorf(pos, "shape-dim", "%s uses %s, but input %q has %d dims (axes -%d to %d)", where, s, s.Name, rank, rank, rank-1)
			}
		}
		return
	}
	p := c.op.Param(s.Axis)
	if p == nil || p.Kind != ir.ParamScalar || len(p.DTypes) == 0 || !p.DTypes[0].IsInteger() {
		var ints []string
		for _, q := range c.op.Params {
			if q.Kind == ir.ParamScalar && len(q.DTypes) > 0 && q.DTypes[0].IsInteger() {
				ints = append(ints, q.Name)
			}
		}
		hint := "the op has no integer scalar params; declare one (e.g. {name: axis, type: int32, default: -1})"
		if len(ints) > 0 {
			hint = "its integer scalar params are " + strings.Join(ints, ", ")
		}
		c.l.Errorf(pos, "shape-dim", "%s uses %s, but %q is not an integer scalar param of op %s; %s", where, s, s.Axis, c.op.Name, hint)
		return
	}
	most, fixed := mostRank(in, rank)
	dims := fmt.Sprintf("%d dims", most)
	if !fixed {
		dims = "at most " + dims
	}
	lo, hi := float64(-most), float64(most-1)
	r := paramRange(p)
	if r.Hi < lo || r.Lo > hi {
		c.l.Errorf(pos, "shape-dim", "%s uses %s, but param %q ranges over %s, never an axis of %q (%s: -%d to %d)", where, s, p.Name, rangeOf(p), s.Name, dims, most, most-1)
		return
	}
	if p.Default != nil {
		if d, err := strconv.ParseFloat(p.Default.Text, 64); err == nil && (d < lo || d > hi) {
			c.l.Errorf(p.Where.At("default", p.Pos), "shape-dim", "param %q of op %s is an axis of input %q in %s, but its default %s is not (%s: -%d to %d)", p.Name, c.op.Name, s.Name, where, p.Default.Text, dims, most, most-1)
		}
	}
}

// DimRange bounds x.shape[axis]: the range of the dim the opdef writes
// there when the axis is a literal of a tensor with a fixed shape, else a
// size of at least 1 as every input dim symbol.
func (r *rangeEnv) DimRange(e *shapeexpr.Expr) shapeexpr.Interval {
	if e.Kind == shapeexpr.DimProd {
		return r.dimProdRange(e)
	}
	if in := r.op.Input(e.Name); in != nil && e.Axis == "" && in.Shape != nil {
		if a, ok := shapeexpr.NormalizeAxis(int64(e.Index), int64(len(in.Shape))); ok && r.depth <= 8 {
			r.depth++
			defer func() { r.depth-- }()
			return in.Shape[a].Expr.Range(r)
		}
	}
	return shapeexpr.Interval{Lo: 1, Hi: math.Inf(1)}
}

// Dims gives each input the witness value in every dim, at its fixed
// rank or the largest rank a target admits.
func (w witnessEnv) Dims(name string) ([]int64, bool) {
	in := w.r.op.Input(name)
	if in == nil {
		return nil, false
	}
	rank := fixedRank(in)
	if rank == ir.RankAny {
		rank = ir.MaxRank
	}
	dims := make([]int64, rank)
	for i := range dims {
		dims[i] = max(1, w.v)
	}
	return dims, true
}
