package onnximport

import (
	"fmt"
	"strings"

	"github.com/opforge/opforge/generators/ir"
)

// mergeRanks joins groups of one op type that differ only in the ranks and
// dims of their tensors into one rank-polymorphic op (issue 13): its data
// inputs of any rank, each output shaped like the input whose dims it has
// in every group. Groups with an output that is no input's shape, or with
// an input of unknown rank, stay apart. The order of first appearance is
// kept.
func mergeRanks(groups []*group) []*group {
	first := map[string]*group{}
	merged := map[*group]bool{}
	out := make([]*group, 0, len(groups))
	for _, g := range groups {
		key, ok := rankFreeKey(g)
		if !ok {
			out = append(out, g)
			continue
		}
		if f := first[key]; f != nil {
			f.nodes = append(f.nodes, g.nodes...)
			f.notes = append(f.notes, g.notes...)
			merged[f] = true
			continue
		}
		first[key] = g
		out = append(out, g)
	}
	for _, g := range out {
		if merged[g] {
			rankFree(g.op)
		}
	}
	return out
}

// rankFreeKey is a group's signature without ranks and dims: op type and
// plugin identity, each tensor's dtype and kind, the params, and for each
// output the input whose shape it has. ok is false when an output is not
// shaped like an input.
func rankFreeKey(g *group) (string, bool) {
	op, n := g.op, g.nodes[0]
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s::%s", n.Domain, n.OpType)
	sb.WriteString("|id " + g.identity)
	for _, t := range op.Inputs {
		if t.Shape == nil && !t.ShapeTensor {
			return "", false
		}
		fmt.Fprintf(&sb, "|in %s static=%v shape_tensor=%v optional=%v", t.Type.DTypes[0], t.Static, t.ShapeTensor, t.Optional)
	}
	for _, p := range op.Params {
		fmt.Fprintf(&sb, "|param %s %s %v rank=%d", p.Name, p.Kind, p.DTypes, p.Rank)
	}
	for _, o := range op.Outputs {
		j := likeInput(op, o)
		if j < 0 {
			return "", false
		}
		fmt.Fprintf(&sb, "|out %s like=%d", o.Type.DTypes[0], j)
	}
	return sb.String(), true
}

// likeInput is the first data input whose dims are exactly output o's,
// or -1.
func likeInput(op *ir.Op, o *ir.Tensor) int {
	if o.Shape == nil {
		return -1
	}
	for j, in := range op.Inputs {
		if in.ShapeTensor || in.Static || len(in.Shape) != len(o.Shape) {
			continue
		}
		same := true
		for k, d := range in.Shape {
			same = same && d.Expr != nil && o.Shape[k].Expr != nil && d.Expr.String() == o.Shape[k].Expr.String()
		}
		if same {
			return j
		}
	}
	return -1
}

// rankFree makes op rank-polymorphic: data inputs of any rank, outputs
// shaped like their inputs.
func rankFree(op *ir.Op) {
	like := make([]int, len(op.Outputs))
	for i, o := range op.Outputs {
		like[i] = likeInput(op, o)
	}
	for _, t := range op.Inputs {
		if !t.ShapeTensor {
			t.Shape, t.Rank = nil, ir.RankAny
		}
	}
	for i, o := range op.Outputs {
		o.Shape, o.Rank = nil, ir.RankAny
		o.Like = &ir.ShapeLike{Input: op.Inputs[like[i]].Name}
	}
}

// mergeOptional joins a group into another of the same op type whose
// signature, cut to the group's inputs, is the group's own: the nodes
// differ only in trailing inputs, which the joined op takes as optional
// (issue 13). Each group joins the first group, in order of appearance,
// with the fewest inputs beyond its own.
//
// Import joins only when every target's runtime calls an op with trailing
// inputs left out (target.NodeReader.TakesOptionalInputs; a target that
// reads no node never does).
func mergeOptional(groups []*group) []*group {
	into := map[*group]*group{}
	for _, g := range groups {
		var best *group
		for _, h := range groups {
			if h == g || len(h.op.Inputs) <= len(g.op.Inputs) {
				continue
			}
			if best != nil && len(h.op.Inputs) >= len(best.op.Inputs) {
				continue
			}
			if h.identity == g.identity && signatureN(h.nodes[0], h.op, len(g.op.Inputs)) == signatureN(g.nodes[0], g.op, len(g.op.Inputs)) {
				best = h
			}
		}
		if best != nil {
			into[g] = best
		}
	}
	// Follow chains (a 1-input group into a 2-input one into a 3-input
	// one) to the group that stays.
	root := func(g *group) *group {
		for into[g] != nil {
			g = into[g]
		}
		return g
	}
	out := make([]*group, 0, len(groups))
	for _, g := range groups {
		r := root(g)
		if r == g {
			out = append(out, g)
			continue
		}
		for _, t := range r.op.Inputs[len(g.op.Inputs):] {
			t.Optional = true
		}
		r.nodes = append(r.nodes, g.nodes...)
		r.notes = append(r.notes, g.notes...)
	}
	return out
}
