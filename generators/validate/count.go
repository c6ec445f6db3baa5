package validate

import (
	"fmt"
	"math"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// MaxCount bounds the max of a count param: targets size their tensor
// arrays by it, so it must stay small enough to allocate on a stack.
const MaxCount = 1024

// count checks a variadic tensor whose count a param gives (`count: n`):
// the tensor is variadic, the param is an integer scalar of the op, and it
// is bounded (a max, which sizes the generated arrays, and a min of at
// least 0, or 1 when the tensor is the op's only output: a plugin makes at
// least one output).
func (v *validator) count(op *ir.Op, t *ir.Tensor, kind string) {
	if t.Count == "" {
		return
	}
	pos := t.Where.At("count", t.Pos)
	if !t.Variadic {
		v.l.Errorf(pos, "count-variadic", "%s %q of op %s has a count but is not variadic; add variadic: true (count says how many tensors a variadic one stands for)", kind, t.Name, op.Name)
	}
	p := op.Param(t.Count)
	if p == nil {
		v.l.Errorf(pos, "count-param", "%s %q of op %s takes its count from param %q, which the op does not have; %s", kind, t.Name, op.Name, t.Count, countParamHint(op, t.Count))
		return
	}
	if p.Kind != ir.ParamScalar || len(p.DTypes) == 0 || !p.DTypes[0].IsInteger() {
		v.l.Errorf(pos, "count-param", "%s %q of op %s takes its count from param %q, which is not an integer scalar; a count is a number of tensors", kind, t.Name, op.Name, t.Count)
		return
	}
	least := 0.0
	if kind == "output" && len(op.Outputs) == 1 {
		least = 1
	}
	switch {
	case p.Max == nil || *p.Max > MaxCount:
		v.l.Errorf(p.Where.At("max", p.Where.At("name", p.Pos)), "count-bound", "param %q of op %s counts %s %q, so it needs a max of at most %d (the generated code sizes its tensor arrays by it); set max: N, N <= %d", p.Name, op.Name, kind, t.Name, MaxCount, MaxCount)
	case lowestCount(p) < least:
		v.l.Errorf(p.Where.At("min", p.Where.At("name", p.Pos)), "count-bound", "param %q of op %s counts %s %q, so it needs a min of at least %v (%s); add min: %v", p.Name, op.Name, kind, t.Name, least, countFloor(least), least)
	}
}

// lowestCount is the least value an integer param admits (-1 when it has
// no min: any negative stands for "unbounded" here).
func lowestCount(p *ir.Param) float64 {
	switch {
	case p.Min == nil:
		return -1
	case p.MinExclusive:
		return math.Floor(*p.Min) + 1
	}
	return math.Ceil(*p.Min)
}

func countFloor(least float64) string {
	if least > 0 {
		return "an op makes at least one output"
	}
	return "a count cannot be negative"
}

// countParamHint names the integer scalar params a count may read.
func countParamHint(op *ir.Op, name string) string {
	var ints []string
	near, best := "", 3
	for _, q := range op.Params {
		if q.Kind == ir.ParamScalar && len(q.DTypes) > 0 && q.DTypes[0].IsInteger() {
			ints = append(ints, q.Name)
			if d := names.Distance(q.Name, name); d < best {
				near, best = q.Name, d
			}
		}
	}
	switch {
	case near != "":
		return fmt.Sprintf("did you mean %q?", near)
	case len(ints) > 0:
		return "the op's integer params are " + strings.Join(ints, ", ")
	}
	return "declare an integer param with a min and a max"
}

// countedIndex checks a use of the index symbol (# or an array param's
// element at it): it means the position of one tensor among those a
// counted variadic output stands for, so only that output's shape may use
// it. It reports whether the use is allowed.
func (c *shapeChecker) countedIndex(s *shapeexpr.Expr, pos diag.Pos, where string) bool {
	if c.output != nil && c.output.Variadic && c.output.Count != "" {
		return true
	}
	c.l.Errorf(pos, "count-index", "%s uses %s, the position of one of a counted variadic output's tensors; only the shape of an output with variadic: true and count: <param> may use it", where, s)
	return false
}

// countMax is the most tensors counted variadic tensor t stands for: its
// count param's max (0 when unbounded, which count reports).
func countMax(op *ir.Op, t *ir.Tensor) int {
	p := op.Param(t.Count)
	if p == nil || p.Max == nil || *p.Max > MaxCount {
		return 0
	}
	return int(*p.Max)
}

// indexRange is the range of the index symbol in op's counted output
// shapes: 0 to the largest count less one.
func indexRange(op *ir.Op) shapeexpr.Interval {
	hi := 0
	for _, t := range op.Outputs {
		if t.Variadic && t.Count != "" {
			hi = max(hi, countMax(op, t)-1)
		}
	}
	return shapeexpr.Interval{Lo: 0, Hi: float64(hi)}
}
