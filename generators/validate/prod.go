package validate

import (
	"math"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// dimInput checks what x.shape[axis] and prod(x.shape[lo:hi]) (s) read:
// allowed where the inputs' dims are known (output shapes, a target's
// workspace), of a required input that is no shape tensor. It returns the
// input, or nil after reporting why not. A prod slice needs no other
// check: it takes Python's slice semantics at whatever rank the input has
// (an empty slice is 1).
func (c *shapeChecker) dimInput(s *shapeexpr.Expr, pos diag.Pos, where string) *ir.Tensor {
	if !c.dims {
		c.l.Errorf(pos, "shape-dim", "%s uses %s; the dims of an input by axis may be used in output shapes and workspaces only", where, s)
		return nil
	}
	in := c.op.Input(s.Name)
	switch {
	case in == nil:
		var ins []string
		for _, t := range c.op.Inputs {
			ins = append(ins, t.Name)
		}
		c.l.Errorf(pos, "shape-dim", "%s uses %s, but op %s has no input %q; its inputs are %s", where, s, c.op.Name, s.Name, strings.Join(ins, ", "))
		return nil
	case in.ShapeTensor:
		c.l.Errorf(pos, "shape-dim", "%s uses %s, but %q is a shape tensor; read its values as %s[i]", where, s, s.Name, s.Name)
		return nil
	case in.Optional:
		c.l.Errorf(pos, "shape-dim", "%s uses %s, but input %q is optional and may be absent; name a required input", where, s, s.Name)
		return nil
	}
	return in
}

// dimProdRange bounds prod(x.shape[lo:hi]): the product of the ranges of
// the dims the slice takes of a tensor with a fixed shape, else at least
// 1 (every dim is at least 1; an empty slice is 1).
func (r *rangeEnv) dimProdRange(e *shapeexpr.Expr) shapeexpr.Interval {
	in := r.op.Input(e.Name)
	if in == nil || in.Shape == nil || r.depth > 8 {
		return shapeexpr.Interval{Lo: 1, Hi: math.Inf(1)}
	}
	r.depth++
	defer func() { r.depth-- }()
	lo, hi := e.SliceOf(int64(len(in.Shape)))
	acc := shapeexpr.Interval{Lo: 1, Hi: 1}
	for _, d := range in.Shape[lo:hi] {
		x := d.Expr.Range(r)
		acc = shapeexpr.Interval{Lo: acc.Lo * x.Lo, Hi: acc.Hi * x.Hi}
	}
	return acc
}

// SliceProd samples prod(x.shape[lo:hi]) of an input whose rank is not
// fixed as one dim of the sample value: the sample's eight dims of 1024
// would overflow where no real tensor does.
func (w witnessEnv) SliceProd(e *shapeexpr.Expr) (int64, bool) {
	in := w.r.op.Input(e.Name)
	if in == nil || fixedRank(in) != ir.RankAny {
		return 0, false
	}
	return max(1, w.v), true
}

// relationOnly checks prod(x.shape[lo:hi]) and rank(x): of an input whose
// dims are known where the expression is computed (dimInput); rank(x)
// and a slice bound other than an integer only in a relation (requires:),
// which every target checks over concrete dims, where output shapes and
// workspaces need the slice at build time.
func (c *shapeChecker) relationOnly(s *shapeexpr.Expr, pos diag.Pos, where string) {
	if c.dimInput(s, pos, where) == nil || c.relation {
		return
	}
	if s.Kind == shapeexpr.Rank {
		c.l.Errorf(pos, "shape-dim", "%s uses %s; the rank of an input may be used in requires only (an output of another rank is shaped {like: x})", where, s)
		return
	}
	if lo, _ := s.SliceBounds(); lo != nil {
		c.l.Errorf(pos, "shape-dim", "%s uses %s, whose slice bounds are not integers; such slices may be used in requires only", where, s)
	}
}
