package yamldef

import (
	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/diag"

	"github.com/opforge/opforge/generators/ir"
)

// An op's `requires:` list: each entry one relation between its inputs,
//
//	- {same_rank: [a, b]}                        rank(a) == rank(b)
//	- {same_shape: [a, b]}                       shape(a) == shape(b)
//	- {equal: [K, "2 * span"]}                   two dim expressions
//	- {divisible: [C, num_groups]}               C % num_groups == 0
//	- {input: boxes, one_of: [[B, N, 4], [B, N, C, 4]]}
//
// The schema holds each entry to exactly one of these forms.

// requires reads an op's relations; the schema checked their structure.
func (b *builder) requires(items []*yaml.Node) []*ir.Relation {
	var out []*ir.Relation
	for _, n := range items {
		o := asObject(n)
		r := &ir.Relation{Pos: b.pos(n)}
		switch {
		case o.get("same_rank") != nil, o.get("same_shape") != nil:
			r.Kind = ir.SameRank
			list := o.get("same_rank")
			if list == nil {
				r.Kind, list = ir.SameShape, o.get("same_shape")
			}
			for _, in := range list.Content {
				in = resolve(in)
				r.Inputs, r.InputPos = append(r.Inputs, in.Value), append(r.InputPos, b.pos(in))
			}
		case o.get("equal") != nil, o.get("divisible") != nil:
			r.Kind = ir.Equal
			list := o.get("equal")
			if list == nil {
				r.Kind, list = ir.Divisible, o.get("divisible")
			}
			for _, d := range list.Content {
				d = resolve(d)
				r.Dims = append(r.Dims, &ir.Dim{Expr: b.expr(d), Pos: b.exprPos(d)})
			}
		case o.get("one_of") != nil:
			r.Kind = ir.OneOf
			in := o.get("input")
			r.Inputs, r.InputPos = []string{in.Value}, []diag.Pos{b.pos(in)}
			for _, shape := range o.get("one_of").Content {
				var dims []*ir.Dim
				for _, d := range resolve(shape).Content {
					d = resolve(d)
					dims = append(dims, &ir.Dim{Expr: b.expr(d), Pos: b.exprPos(d)})
				}
				r.Shapes = append(r.Shapes, dims)
			}
		default:
			continue
		}
		out = append(out, r)
	}
	return out
}

// requiresNode writes an op's relations in the form requires reads.
func requiresNode(rs []*ir.Relation) *yaml.Node {
	list := seq(false)
	for _, r := range rs {
		m := mapping(true)
		switch r.Kind {
		case ir.SameRank, ir.SameShape:
			add(m, string(r.Kind), strs(true, r.Inputs...))
		case ir.Equal, ir.Divisible:
			add(m, string(r.Kind), dimsNode(r.Dims))
		case ir.OneOf:
			add(m, "input", str(r.Inputs[0]))
			shapes := seq(true)
			for _, s := range r.Shapes {
				shapes.Content = append(shapes.Content, dimsNode(s))
			}
			add(m, "one_of", shapes)
		}
		list.Content = append(list.Content, m)
	}
	return list
}

// dimsNode is a flow list of dims, numbers as numbers.
func dimsNode(dims []*ir.Dim) *yaml.Node {
	s := seq(true)
	for _, d := range dims {
		s.Content = append(s.Content, exprNode(d.Expr.String()))
	}
	return s
}
