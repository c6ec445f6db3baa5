package validate

import (
	"fmt"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// relations checks an op's `requires:`: every input a relation names is a
// required data input (requires-input), every expression reads what a
// target sees when the shapes are known (input dim symbols, integer
// params, x.shape[axis], prod(x.shape[lo:hi]); not shape-tensor values,
// data-dependent sizes or element sizes), a one_of input has no declared
// shape and its shapes fit its rank range (requires-one-of), and no
// relation is false whatever the shapes (requires-never).
func relations(l *diag.List, op *ir.Op) {
	if len(op.Requires) == 0 {
		return
	}
	// The op's own checks bind the symbols; they were reported already.
	c := newShapeChecker(&diag.List{}, op)
	c.check()
	c.l, c.dims, c.relation = l, true, true
	for i, r := range op.Requires {
		where := fmt.Sprintf("requires[%d] (%s)", i, r)
		if !relationInputs(l, op, r, where) {
			continue
		}
		for _, d := range relationDims(r) {
			c.relationExpr(d, where)
		}
		switch r.Kind {
		case ir.SameRank, ir.SameShape:
			sameNever(l, op, r, where)
		case ir.Equal, ir.Divisible:
			valueNever(l, c, r, where)
		case ir.OneOf:
			oneOfShapes(l, op, r, where)
		}
	}
}

// relationDims are the dim expressions a relation reads.
func relationDims(r *ir.Relation) []*ir.Dim {
	dims := append([]*ir.Dim{}, r.Dims...)
	for _, s := range r.Shapes {
		dims = append(dims, s...)
	}
	return dims
}

// relationInputs checks the inputs a relation names: inputs of the op,
// present whenever the op runs and no shape tensors (whose dims the
// targets' shape checks do not see).
func relationInputs(l *diag.List, op *ir.Op, r *ir.Relation, where string) bool {
	ok := true
	for i, name := range r.Inputs {
		in := op.Input(name)
		switch {
		case in == nil:
			var ins []string
			for _, t := range op.Inputs {
				ins = append(ins, t.Name)
			}
			l.Errorf(r.InputPos[i], "requires-input", "%s names %q, which is no input of op %s; its inputs are %s", where, name, op.Name, strings.Join(ins, ", "))
			ok = false
		case in.ShapeTensor:
			l.Errorf(r.InputPos[i], "requires-input", "%s names shape tensor %q, whose values are dims; relate the dims it gives instead", where, name)
			ok = false
		case in.Optional:
			l.Errorf(r.InputPos[i], "requires-input", "%s names optional input %q, which may be absent; relations hold between required inputs", where, name)
			ok = false
		}
	}
	return ok
}

// relationExpr checks one side of a relation with the shape checker (dims
// by axis and slices allowed), then refuses what the targets' checks do
// not see: shape-tensor values (requires-input).
func (c *shapeChecker) relationExpr(d *ir.Dim, where string) {
	c.expr(d.Expr, d.Pos, where, false)
	c.values(d.Expr, d.Pos, where, false)
	for _, s := range d.Expr.Symbols() {
		if in := c.op.Input(s.Name); in != nil && in.ShapeTensor && s.Kind == shapeexpr.Index {
			c.l.Errorf(at(d.Pos, s), "requires-input", "%s reads %s, a value of shape tensor %q; relations read dims and params", where, s, s.Name)
		}
	}
}

// sameNever refuses same_rank and same_shape between inputs whose
// declared ranks (or rank ranges) never meet, or whose declared shapes
// differ in a constant dim.
func sameNever(l *diag.List, op *ir.Op, r *ir.Relation, where string) {
	first := op.Input(r.Inputs[0])
	lo0, hi0 := rankBounds(first)
	for i, name := range r.Inputs[1:] {
		in := op.Input(name)
		lo, hi := rankBounds(in)
		if hi < lo0 || lo > hi0 {
			l.Errorf(r.InputPos[i+1], "requires-never", "%s never holds: input %q has %s and input %q has %s", where, first.Name, rankSpan(first), in.Name, rankSpan(in))
			continue
		}
		if r.Kind != ir.SameShape || first.Shape == nil || in.Shape == nil {
			continue
		}
		for j, d := range in.Shape {
			if a, b := first.Shape[j].Expr, d.Expr; a.IsConst() && b.IsConst() && a.Value != b.Value {
				l.Errorf(r.InputPos[i+1], "requires-never", "%s never holds: dim %d is %d in input %q and %d in input %q", where, j, a.Value, first.Name, b.Value, in.Name)
				break
			}
		}
	}
}

// rankBounds are the least and largest rank t may have.
func rankBounds(t *ir.Tensor) (lo, hi int) {
	rank := fixedRank(t)
	switch {
	case rank != ir.RankAny:
		return rank, rank
	case t.RankRange != nil:
		return t.RankRange.Min, t.RankRange.Max
	}
	return 0, ir.MaxRank
}

func rankSpan(t *ir.Tensor) string {
	lo, hi := rankBounds(t)
	if lo == hi {
		return fmt.Sprintf("rank %d", lo)
	}
	return fmt.Sprintf("rank %d to %d", lo, hi)
}

// valueNever refuses equal and divisible relations that the sides'
// ranges make false for every shape: two sides whose ranges never meet,
// or a divisor that is never positive.
func valueNever(l *diag.List, c *shapeChecker, r *ir.Relation, where string) {
	a, b := r.Dims[0].Expr.Range(c.ranges), r.Dims[1].Expr.Range(c.ranges)
	switch {
	case r.Kind == ir.Equal && (a.Hi < b.Lo || b.Hi < a.Lo):
		l.Errorf(r.Pos, "requires-never", "%s never holds: %s ranges over %s and %s over %s", where, r.Dims[0].Expr, intervalText(a), r.Dims[1].Expr, intervalText(b))
	case r.Kind == ir.Divisible && b.Hi < 1:
		l.Errorf(r.Dims[1].Pos, "requires-never", "%s never holds: the divisor %s ranges over %s, never positive", where, r.Dims[1].Expr, intervalText(b))
	case r.Kind == ir.Divisible && a.Lo == a.Hi && b.Lo == b.Hi && int64(b.Lo) != 0 && int64(a.Lo)%int64(b.Lo) != 0:
		l.Errorf(r.Pos, "requires-never", "%s never holds: %s %% %s is always %d", where, r.Dims[0].Expr, r.Dims[1].Expr, int64(a.Lo)%int64(b.Lo))
	case r.Kind == ir.Divisible && b.Lo < 1:
		l.Warnf(r.Dims[1].Pos, "requires-never", "%s fails whenever the divisor %s is not positive (its range is %s); declare a min of at least 1 on the params it uses", where, r.Dims[1].Expr, intervalText(b))
	}
}

// oneOfShapes holds a one_of relation to an input whose shape the opdef
// leaves open (rank any or a rank range), with shapes of ranks it admits.
func oneOfShapes(l *diag.List, op *ir.Op, r *ir.Relation, where string) {
	in := op.Input(r.Inputs[0])
	if in.Shape != nil || in.Scalar || in.Rank != ir.RankAny {
		l.Errorf(r.InputPos[0], "requires-one-of", "%s: input %q has %s already; one_of gives the shapes of an input of rank any or a rank range", where, in.Name, rankSpan(in))
		return
	}
	lo, hi := rankBounds(in)
	for _, s := range r.Shapes {
		if len(s) < lo || len(s) > hi {
			pos := r.Pos
			if len(s) > 0 {
				pos = s[0].Pos
			}
			l.Errorf(pos, "requires-one-of", "%s: shape %s has rank %d, which input %q (%s) never has", where, ir.ShapeText(s), len(s), in.Name, rankSpan(in))
		}
	}
}
