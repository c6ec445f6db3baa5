package validate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

// like checks an output whose shape is written relative to an input
// (`shape: {like: x}`) and gives the output that input's rank.
func (v *validator) like(op *ir.Op, t *ir.Tensor) {
	if t.Like == nil {
		return
	}
	in := v.shapeSource(op, t, t.Like.Input, t.Like.Pos)
	if in == nil {
		return
	}
	rank := in.Rank
	if in.Shape != nil {
		rank = len(in.Shape)
	}
	if pos, given := t.Where.Lookup("rank"); given && (t.Rank != rank || t.Scalar != in.Scalar) && t.Like.Axis == "" {
		v.l.Errorf(pos, "shape-like", "output %q of op %s has the shape of input %q, whose rank is %s; drop the output's rank or make it the same", t.Name, op.Name, in.Name, rankText(in))
		return
	}
	if t.Like.Axis != "" && !v.likeAxis(op, t, in, rank) {
		return
	}
	if t.Like.Mode == ir.AxisKeepIf && !v.likeKeepParam(op, t) {
		return
	}
	r := in.RankRange
	switch {
	case t.Like.Mode == ir.AxisKeepIf && rank != ir.RankAny:
		// The rank is the input's or one less, so the output has no
		// fixed rank but the range of both.
		r, rank = &ir.RankRange{Min: rank, Max: rank}, ir.RankAny
	case t.Like.Mode == ir.AxisRemove && rank != ir.RankAny:
		rank--
	}
	if r != nil {
		t.RankRange = t.Like.RankRange(r)
	}
	t.Rank, t.Scalar = rank, in.Scalar && t.Like.Axis == ""
}

// likeKeepParam checks the param of `keep: <param>`: a bool scalar of
// the op, and no fixed rank declared on the output, whose rank it
// decides.
func (v *validator) likeKeepParam(op *ir.Op, t *ir.Tensor) bool {
	l := t.Like
	p := op.Param(l.KeepParam)
	switch {
	case p == nil:
		var bools []string
		for _, c := range op.Params {
			if c.Kind == ir.ParamBool {
				bools = append(bools, c.Name)
			}
		}
		hint := "the op has no bool params; declare one (e.g. {name: keepdim, type: bool, default: false}) or write keep: true"
		if len(bools) > 0 {
			hint = "its bool params are " + strings.Join(bools, ", ")
		}
		v.l.Errorf(l.ModePos, "shape-like", "output %q of op %s keeps the dim at axis param %q when %q is true, but %q is not a param of the op; %s", t.Name, op.Name, l.Axis, l.KeepParam, l.KeepParam, hint)
		return false
	case p.Kind != ir.ParamBool:
		v.l.Errorf(l.ModePos, "shape-like", "output %q of op %s keeps the dim at axis param %q when param %q is true, but %q is not a bool param; keep: takes true or the name of a bool param", t.Name, op.Name, l.Axis, p.Name, p.Name)
		return false
	}
	if pos, given := t.Where.Lookup("rank"); given {
		v.l.Errorf(pos, "shape-like", "output %q of op %s has the rank of %q or one less, as bool param %q says; drop the output's rank", t.Name, op.Name, l.Input, p.Name)
		return false
	}
	return true
}

// broadcast checks an output shaped as the broadcast of inputs
// (`shape: {broadcast: [a, b]}`) and gives it the largest of their ranks
// (any when one of them has no fixed rank).
func (v *validator) broadcast(op *ir.Op, t *ir.Tensor) {
	b := t.Broadcast
	if b == nil {
		return
	}
	rank := 0
	seen := map[string]bool{}
	for i, name := range b.Inputs {
		if seen[name] {
			v.l.Errorf(b.Pos[i], "shape-like", "output %q of op %s broadcasts input %q twice", t.Name, op.Name, name)
			return
		}
		seen[name] = true
		in := v.shapeSource(op, t, name, b.Pos[i])
		if in == nil {
			return
		}
		r := in.Rank
		if in.Shape != nil {
			r = len(in.Shape)
		}
		if r == ir.RankAny || rank == ir.RankAny {
			rank = ir.RankAny
		} else {
			rank = max(rank, r)
		}
	}
	if pos, given := t.Where.Lookup("rank"); given && t.Rank != rank {
		v.l.Errorf(pos, "shape-like", "output %q of op %s has the broadcast shape of %s, whose rank is not %d; drop the output's rank", t.Name, op.Name, strings.Join(b.Inputs, ", "), t.Rank)
		return
	}
	t.Rank, t.Scalar = rank, false
}

// shapeSource is the input an output's shape is written relative to, or
// nil after reporting why it cannot be.
func (v *validator) shapeSource(op *ir.Op, t *ir.Tensor, name string, pos diag.Pos) *ir.Tensor {
	var in *ir.Tensor
	for _, c := range op.Inputs {
		if c.Name == name {
			in = c
		}
	}
	switch {
	case in == nil:
		names := make([]string, 0, len(op.Inputs))
		for _, c := range op.Inputs {
			if !c.ShapeTensor {
				names = append(names, strconv.Quote(c.Name))
			}
		}
		hint := "the op has no data inputs"
		if len(names) > 0 {
			hint = "its data inputs are " + strings.Join(names, ", ")
		}
		v.l.Errorf(pos, "shape-like", "output %q of op %s takes the shape of %q, which is not an input of the op; %s", t.Name, op.Name, name, hint)
		return nil
	case in.ShapeTensor:
		v.l.Errorf(pos, "shape-like", "output %q of op %s takes the shape of %q, a shape tensor; its values are sizes, so write the output's dims from them (e.g. shape: [%s[0]])", t.Name, op.Name, in.Name, in.Name)
		return nil
	case in.Variadic:
		v.l.Errorf(pos, "shape-like", "output %q of op %s takes the shape of variadic input %q, which is several tensors; name a single input", t.Name, op.Name, in.Name)
		return nil
	case in.Optional:
		v.l.Errorf(pos, "shape-like", "output %q of op %s takes the shape of optional input %q, which may be absent; name a required input", t.Name, op.Name, in.Name)
		return nil
	}
	return in
}

// likeAxis checks the axis param of a shape written relative to input in,
// of rank rank (ir.RankAny when not fixed): an integer scalar param whose
// declared range and default can be an axis of in (-rank to rank-1).
func (v *validator) likeAxis(op *ir.Op, t, in *ir.Tensor, rank int) bool {
	l := t.Like
	p := op.Param(l.Axis)
	switch {
	case p == nil:
		var ints []string
		for _, c := range op.Params {
			if c.Kind == ir.ParamScalar && len(c.DTypes) > 0 && c.DTypes[0].IsInteger() {
				ints = append(ints, c.Name)
			}
		}
		hint := "the op has no integer params; declare one (e.g. {name: axis, type: int32, default: -1})"
		if len(ints) > 0 {
			hint = "its integer params are " + strings.Join(ints, ", ")
		}
		v.l.Errorf(l.AxisPos, "shape-like", "output %q of op %s takes its axis from %q, which is not a param of the op; %s", t.Name, op.Name, l.Axis, hint)
		return false
	case p.Kind != ir.ParamScalar || len(p.DTypes) == 0 || !p.DTypes[0].IsInteger():
		v.l.Errorf(l.AxisPos, "shape-like", "output %q of op %s takes its axis from param %q, which is not an integer scalar; an axis is one integer", t.Name, op.Name, l.Axis)
		return false
	case rank == 0 || in.Scalar:
		v.l.Errorf(l.AxisPos, "shape-like", "output %q of op %s changes the dim at axis param %q of %q, which has no dims", t.Name, op.Name, l.Axis, in.Name)
		return false
	}
	// The axis must be able to lie in [-rank, rank-1] of the largest rank.
	most, fixed := mostRank(in, rank)
	ranks := fmt.Sprintf("rank %d", most)
	if !fixed {
		ranks = fmt.Sprintf("rank at most %d", most)
	}
	lo, hi := float64(-most), float64(most-1)
	if (p.Min != nil && *p.Min > hi) || (p.Max != nil && *p.Max < lo) {
		v.l.Errorf(l.AxisPos, "shape-like", "output %q of op %s takes its axis from param %q, whose range %s is never an axis of %q (%s: -%d to %d)", t.Name, op.Name, p.Name, rangeOf(p), in.Name, ranks, most, most-1)
		return false
	}
	if p.Default != nil {
		if d, err := strconv.ParseFloat(p.Default.Text, 64); err == nil && (d < lo || d > hi) {
			v.l.Errorf(p.Where.At("default", p.Pos), "shape-like", "param %q of op %s is the axis of output %q, but its default %s is not an axis of %q (%s: -%d to %d)", p.Name, op.Name, t.Name, p.Default.Text, in.Name, ranks, most, most-1)
			return false
		}
	}
	return true
}

func rangeOf(p *ir.Param) string {
	b := func(f *float64, inf string) string {
		if f == nil {
			return inf
		}
		return strconv.FormatFloat(*f, 'g', -1, 64)
	}
	open, shut := "[", "]"
	if p.MinExclusive {
		open = "("
	}
	if p.MaxExclusive {
		shut = ")"
	}
	return open + b(p.Min, "-inf") + ", " + b(p.Max, "inf") + shut
}

func rankText(t *ir.Tensor) string {
	switch {
	case t.Scalar:
		return "scalar"
	case t.Shape != nil:
		return strconv.Itoa(len(t.Shape))
	case t.Rank == ir.RankAny:
		return "any"
	}
	return strconv.Itoa(t.Rank)
}
