package trt

import (
	"strconv"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// qdpRelationChecks are register's checks of the op's requires:, each
// raising ValueError naming the op. register sees the inputs' ranks
// always and their dims as ShapeExprs, which are ints only where
// TensorRT knows them when the network is built (_known): same_rank is
// checked always, every other relation where all the dims it reads are
// known; the C++ plugins check the rest at run time, the Python plugin's
// kernels see the shapes they run on.
func (b *qdpBuilder) qdpRelationChecks() []string {
	var body []string
	for _, r := range b.op.Requires {
		msg := escape.PyString(b.op.Name + ": requires " + r.String())
		if r.Kind == ir.SameRank {
			cond := r.Python(nil, func(in string) string { return b.inputIdent(in) + ".shape_expr" })
			body = append(body, "if not ("+cond+"): raise ValueError("+msg+")")
			continue
		}
		known, cond := b.knownRelation(r)
		body = append(body, "if "+known+" and not ("+cond+"): raise ValueError("+msg+")")
	}
	return body
}

// knownRelation renders r over the known dims of the inputs it reads:
// known is the Python condition that they are all known, cond the
// relation over _known(x) lists.
func (b *qdpBuilder) knownRelation(r *ir.Relation) (known, cond string) {
	reads := map[string]bool{}
	var order []string
	read := func(name string) string {
		if !reads[name] {
			reads[name] = true
			order = append(order, name)
		}
		return "_known(" + b.inputIdent(name) + ")"
	}
	var ref func(e *shapeexpr.Expr) string
	ref = func(e *shapeexpr.Expr) string {
		switch {
		case e.Kind == shapeexpr.Rank:
			return "len(" + b.inputIdent(e.Name) + ".shape_expr)"
		case e.Kind == shapeexpr.DimProd:
			return shapeexpr.PythonSliceProdOf(read(e.Name), e, "1", ref)
		case e.Kind == shapeexpr.Dim && e.Axis != "":
			return read(e.Name) + "[int(" + identOf(b.op, e.Axis) + ")]"
		case e.Kind == shapeexpr.Dim:
			return read(e.Name) + "[" + strconv.Itoa(e.Index) + "]"
		case e.Kind == shapeexpr.Index:
			return "int(" + identOf(b.op, e.Name) + "[" + strconv.Itoa(e.Index) + "])"
		}
		if d, ok := b.l.InDim[e.Name]; ok {
			return read(b.l.Inputs[d[0]].Name) + "[" + strconv.Itoa(d[1]) + "]"
		}
		return "int(" + identOf(b.op, e.Name) + ")"
	}
	cond = r.Python(ref, read)
	known = ""
	for i, name := range order {
		if i > 0 {
			known += " and "
		}
		known += "_known(" + b.inputIdent(name) + ") is not None"
	}
	if known == "" {
		known = "True"
	}
	return known, cond
}

// inputIdent is the Python identifier of input name in register.
func (b *qdpBuilder) inputIdent(name string) string {
	for _, t := range b.l.Inputs {
		if t.Name == name {
			return t.Ident
		}
	}
	return name
}
