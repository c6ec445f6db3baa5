package verify

import (
	"fmt"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// brokenRelation refuses a case whose input shapes break one of the op's
// requires: every implementation refuses such shapes (the C++ plugins'
// configurePlugin and onShapeChange, the fakes, the parsers), so
// the case is left out with a note rather than run as a failure. env
// holds the case's symbols, params and the dims of the inputs present.
func brokenRelation(op *ir.Op, env shapeexpr.MapEnv) error {
	for _, r := range op.Requires {
		ok, err := r.Holds(env, env.TensorDims)
		if err != nil {
			return fmt.Errorf("requires %s: %v", r, err)
		}
		if !ok {
			return fmt.Errorf("its shapes break requires %s", r)
		}
	}
	return nil
}

// oneOfShape is the shape a drawn input of no declared shape takes when a
// one_of relation lists its shapes: the one of the drawn rank, else the
// first, its dims evaluated over the case's symbols and params (drawn
// dims would match none).
func oneOfShape(op *ir.Op, in *ir.Tensor, drawn []int64, env shapeexpr.MapEnv) []int64 {
	for _, r := range op.Requires {
		if r.Kind != ir.OneOf || r.Inputs[0] != in.Name {
			continue
		}
		pick := r.Shapes[0]
		for _, s := range r.Shapes {
			if len(s) == len(drawn) {
				pick = s
			}
		}
		dims := make([]int64, len(pick))
		for j, d := range pick {
			v, err := d.Expr.Eval(env)
			if err != nil {
				return drawn
			}
			dims[j] = v
		}
		return dims
	}
	return drawn
}
