package trt

import (
	"fmt"
	"slices"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// The driver's cases for an op's requires: the dims of a case made to
// satisfy every relation (the plugin must accept them), and for each
// relation, dims that break it (configurePlugin and onShapeChange must
// refuse them with the op's name: the driver's "violate" lines).

// satisfyRelations changes the case's input dims (inDims, bound in env)
// until every relation of op holds: a symbol or a rank-any input's dim a
// relation fixes takes its value, a divisible symbol the next multiple,
// a rank-any input of same_shape the first's dims, of one_of the shape of
// its rank. It panics (a test bug) when they still do not hold.
func satisfyRelations(op *ir.Op, l *ioLayout, inDims [][]int64, env shapeexpr.MapEnv) {
	for range 4 {
		for _, r := range op.Requires {
			satisfy(op, l, r, inDims, env)
		}
	}
	if brokenRelation(op, l, inDims, env) != nil {
		useCaseShapes(op, l, inDims, env)
	}
	if bad := brokenRelation(op, l, inDims, env); bad != nil {
		panic(fmt.Sprintf("%s: the driver's case %v breaks requires %s", op.Name, inDims, bad))
	}
}

// useCaseShapes takes the input shapes of the first of the opdef's own
// verify cases that satisfies the relations, where changing drawn dims
// cannot (ScatterND's updates, shaped by indices' last dim): the symbols
// of a declared shape bound to its dims.
func useCaseShapes(op *ir.Op, l *ioLayout, inDims [][]int64, env shapeexpr.MapEnv) {
	if op.Verify == nil {
		return
	}
	for _, vc := range op.Verify.Cases {
		try := make([][]int64, len(inDims))
		copy(try, inDims)
		for _, s := range vc.Shapes {
			if i := slices.IndexFunc(l.Inputs, func(t *ioTensor) bool { return t.Name == s.Input }); i >= 0 {
				try[i] = slices.Clone(s.Dims)
			}
		}
		if brokenRelation(op, l, try, env) == nil {
			for i, t := range l.Inputs {
				inDims[i] = try[i]
				env.TensorDims[t.Name] = try[i]
				for j, d := range t.T.Shape {
					if d.Expr.IsSymbol() && j < len(try[i]) {
						env.Symbols[d.Expr.Name] = try[i][j]
					}
				}
			}
			return
		}
	}
}

func satisfy(op *ir.Op, l *ioLayout, r *ir.Relation, inDims [][]int64, env shapeexpr.MapEnv) {
	index := func(name string) int { return relationInput(l, name) }
	switch r.Kind {
	case ir.Equal, ir.Divisible:
		lhs, rhs := r.Dims[0].Expr, r.Dims[1].Expr
		want, err := rhs.Eval(env)
		if err != nil {
			return
		}
		have, _ := lhs.Eval(env)
		if r.Kind == ir.Divisible && want > 0 {
			want *= max(1, (have+want-1)/want)
		}
		setValue(op, l, lhs, want, inDims, env)
	case ir.SameShape, ir.SameRank:
		first := inDims[index(r.Inputs[0])]
		for _, name := range r.Inputs[1:] {
			i := index(name)
			if op.Input(name).Shape != nil {
				continue
			}
			if r.Kind == ir.SameShape {
				inDims[i] = slices.Clone(first)
			} else {
				for len(inDims[i]) < len(first) {
					inDims[i] = append(inDims[i], 3)
				}
				inDims[i] = inDims[i][:len(first)]
			}
			env.TensorDims[name] = inDims[i]
		}
	case ir.OneOf:
		i := index(r.Inputs[0])
		pick := r.Shapes[0]
		for _, s := range r.Shapes {
			if len(s) == len(inDims[i]) {
				pick = s
			}
		}
		dims := make([]int64, len(pick))
		for j, d := range pick {
			dims[j], _ = d.Expr.Eval(env)
		}
		inDims[i] = dims
		env.TensorDims[r.Inputs[0]] = dims
	}
}

// setValue makes e (a dim symbol, or a rank-any input's dim at a literal
// axis) equal to v: a symbol in every input it shapes.
func setValue(op *ir.Op, l *ioLayout, e *shapeexpr.Expr, v int64, inDims [][]int64, env shapeexpr.MapEnv) {
	switch {
	case e.IsSymbol() && op.Param(e.Name) == nil:
		env.Symbols[e.Name] = v
		for i, t := range l.Inputs {
			if t.T.Shape == nil {
				continue
			}
			for j, d := range t.T.Shape {
				if d.Expr.IsSymbol() && d.Expr.Name == e.Name {
					inDims[i][j] = v
				}
			}
		}
	case e.Kind == shapeexpr.Dim && e.Axis == "":
		i := relationInput(l, e.Name)
		if a, ok := shapeexpr.NormalizeAxis(int64(e.Index), int64(len(inDims[i]))); ok {
			inDims[i][a] = v
		}
	}
}

// brokenRelation is the first relation the dims break, or nil; env binds
// each dim symbol to the dim of the first input it shapes, as the plugin
// reads it.
func brokenRelation(op *ir.Op, l *ioLayout, inDims [][]int64, env shapeexpr.MapEnv) *ir.Relation {
	e := env
	e.Symbols = map[string]int64{}
	for k, v := range env.Symbols {
		e.Symbols[k] = v
	}
	e.TensorDims = map[string][]int64{}
	bound := map[string]bool{}
	for i, t := range l.Inputs {
		e.TensorDims[t.Name] = inDims[i]
		for j, d := range t.T.Shape {
			if d.Expr.IsSymbol() && !bound[d.Expr.Name] && j < len(inDims[i]) {
				bound[d.Expr.Name] = true
				e.Symbols[d.Expr.Name] = inDims[i][j]
			}
		}
	}
	for _, r := range op.Requires {
		if ok, err := r.Holds(e, e.TensorDims); !ok || err != nil {
			return r
		}
	}
	return nil
}

// violations are the driver's "violate" lines: for each relation, the
// first change of one input's dims that breaks a relation while every
// input keeps the rank (or rank range) it is declared with and every
// symbol one value, so only the relation checks can refuse it.
func violations(op *ir.Op, l *ioLayout, inDims [][]int64, env shapeexpr.MapEnv) []string {
	var lines []string
	seen := map[string]bool{}
	for _, r := range op.Requires {
		for _, cand := range candidates(op, l, r, inDims, env) {
			if brokenRelation(op, l, cand, env) == nil {
				continue
			}
			line := "violate " + op.Name
			for i := range cand {
				if !slices.Equal(cand[i], inDims[i]) {
					line += fmt.Sprintf(" %d %d%s", i, len(cand[i]), ints(cand[i]))
				}
			}
			if !seen[line] {
				seen[line] = true
				lines = append(lines, line)
			}
			break
		}
	}
	return lines
}

// candidates are changed dims to try against relation r: each dim symbol
// of its expressions one more in every input it shapes, and each dim of
// the rank-any inputs it names one more, and one dim fewer or more within
// their rank ranges.
func candidates(op *ir.Op, l *ioLayout, r *ir.Relation, inDims [][]int64, env shapeexpr.MapEnv) [][][]int64 {
	var out [][][]int64
	clone := func() [][]int64 {
		c := make([][]int64, len(inDims))
		for i := range inDims {
			c[i] = slices.Clone(inDims[i])
		}
		return c
	}
	var exprs []*shapeexpr.Expr
	for _, d := range r.Dims {
		exprs = append(exprs, d.Expr)
	}
	for _, s := range r.Shapes {
		for _, d := range s {
			exprs = append(exprs, d.Expr)
		}
	}
	names := slices.Clone(r.Inputs)
	for _, e := range exprs {
		for _, s := range e.Symbols() {
			if s.Kind == shapeexpr.Sym && op.Param(s.Name) == nil {
				c := clone()
				setValue(op, l, s, env.Symbols[s.Name]+1, c, shapeexpr.MapEnv{Symbols: map[string]int64{}})
				out = append(out, c)
			}
			if (s.Kind == shapeexpr.Dim || s.Kind == shapeexpr.DimProd) && op.Input(s.Name) != nil {
				names = append(names, s.Name)
			}
		}
	}
	for _, name := range names {
		t := op.Input(name)
		if t == nil || t.Shape != nil {
			continue
		}
		i := relationInput(l, name)
		for j := range inDims[i] {
			c := clone()
			c[i][j]++
			out = append(out, c)
		}
		lo, hi := 0, ir.MaxRank
		if t.RankRange != nil {
			lo, hi = t.RankRange.Min, t.RankRange.Max
		}
		if n := len(inDims[i]); n-1 >= lo && n > 0 {
			c := clone()
			c[i] = c[i][:n-1]
			out = append(out, c)
		}
		if n := len(inDims[i]); n+1 <= hi {
			c := clone()
			c[i] = append(c[i], 3)
			out = append(out, c)
		}
	}
	return out
}
