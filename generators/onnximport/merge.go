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
	for _, id := range []*string{g.pluginVersion, g.pluginNamespace} {
		if id != nil {
			fmt.Fprintf(&sb, "|id %q", *id)
		} else {
			sb.WriteString("|id -")
		}
	}
	for _, t := range op.Inputs {
		if t.Shape == nil && !t.ShapeTensor {
			return "", false
		}
		fmt.Fprintf(&sb, "|in %s static=%v shape_tensor=%v", t.Type.DTypes[0], t.Static, t.ShapeTensor)
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
