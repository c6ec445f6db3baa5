package validate

import (
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/ir"
)

// like checks an output whose shape is written relative to an input
// (`shape: {like: x}`) and gives the output that input's rank.
func (v *validator) like(op *ir.Op, t *ir.Tensor) {
	if t.Like == nil {
		return
	}
	var in *ir.Tensor
	for _, c := range op.Inputs {
		if c.Name == t.Like.Input {
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
		v.l.Errorf(t.Like.Pos, "shape-like", "output %q of op %s takes the shape of %q, which is not an input of the op; %s", t.Name, op.Name, t.Like.Input, hint)
		return
	case in.ShapeTensor:
		v.l.Errorf(t.Like.Pos, "shape-like", "output %q of op %s takes the shape of %q, a shape tensor; its values are sizes, so write the output's dims from them (e.g. shape: [%s[0]])", t.Name, op.Name, in.Name, in.Name)
		return
	case in.Variadic:
		v.l.Errorf(t.Like.Pos, "shape-like", "output %q of op %s takes the shape of variadic input %q, which is several tensors; name a single input", t.Name, op.Name, in.Name)
		return
	case in.Optional:
		v.l.Errorf(t.Like.Pos, "shape-like", "output %q of op %s takes the shape of optional input %q, which may be absent; name a required input", t.Name, op.Name, in.Name)
		return
	}
	rank := in.Rank
	if in.Shape != nil {
		rank = len(in.Shape)
	}
	if pos, given := t.Where["rank"]; given && (t.Rank != rank || t.Scalar != in.Scalar) {
		v.l.Errorf(pos, "shape-like", "output %q of op %s has the shape of input %q, whose rank is %s; drop the output's rank or make it the same", t.Name, op.Name, in.Name, rankText(in))
		return
	}
	t.Rank, t.Scalar = rank, in.Scalar
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
