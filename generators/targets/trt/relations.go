package trt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// relationRow is one relation of the op's `requires:` as the plugin
// checks it (templates/trt/relations.tmpl): Decls compute the sides over
// a RelationDims r (common.h) of the inputs' dims and the params, Cond is
// true when the relation holds, and the plugin logs Format with Args (a
// leading comma each) when it does not and every dim it read was known.
type relationRow struct {
	Comment text
	Decls   []text
	Cond    text
	Format  text
	Args    text
}

// relationRows renders the op's relations for the C++ plugins.
func relationRows(op *ir.Op, l *ioLayout) []relationRow {
	var rows []relationRow
	for _, r := range op.Requires {
		rows = append(rows, relationRow{Comment: text(escape.CComment("requires " + r.String()))})
		row := &rows[len(rows)-1]
		prefix := op.Name + ": requires " + r.String()
		switch r.Kind {
		case ir.SameRank, ir.SameShape:
			first := relationInput(l, r.Inputs[0])
			var conds, ranks []string
			for _, name := range r.Inputs[1:] {
				in := relationInput(l, name)
				if r.Kind == ir.SameRank {
					conds = append(conds, fmt.Sprintf("r.rank(%d) == r.rank(%d)", first, in))
				} else {
					conds = append(conds, fmt.Sprintf("r.sameShape(%d, %d)", first, in))
				}
			}
			for _, name := range r.Inputs {
				ranks = append(ranks, fmt.Sprintf("r.rank(%d)", relationInput(l, name)))
			}
			row.Cond = text(strings.Join(conds, " && "))
			row.Format = text(escape.CString(printfSafe(prefix) + ", but the inputs have " + strings.Repeat("%d, ", len(ranks)-1) + "%d dims"))
			row.Args = text(", " + strings.Join(ranks, ", "))
		case ir.Equal, ir.Divisible:
			lhs, rhs := relationExpr(op, l, r.Dims[0].Expr), relationExpr(op, l, r.Dims[1].Expr)
			row.Decls = []text{text("int64_t const lhs = " + lhs + ";"), text("int64_t const rhs = " + rhs + ";")}
			row.Cond = "lhs == rhs"
			if r.Kind == ir.Divisible {
				row.Cond = "rhs > 0 && lhs % rhs == 0"
			}
			row.Format = text(escape.CString(printfSafe(prefix+", but "+r.Dims[0].Expr.String()+" = ") + "%lld" + printfSafe(" and "+r.Dims[1].Expr.String()+" = ") + "%lld"))
			row.Args = ", static_cast<long long>(lhs), static_cast<long long>(rhs)"
		case ir.OneOf:
			in := relationInput(l, r.Inputs[0])
			var alts []string
			for _, s := range r.Shapes {
				parts := []string{fmt.Sprintf("r.rank(%d) == %d", in, len(s))}
				for j, d := range s {
					parts = append(parts, fmt.Sprintf("r.d(%d, %d) == %s", in, j, relationExpr(op, l, d.Expr)))
				}
				alts = append(alts, "("+strings.Join(parts, " && ")+")")
			}
			row.Cond = text(strings.Join(alts, " || "))
			row.Format = text(escape.CString(printfSafe(prefix+", but "+r.Inputs[0]+" has ") + "%d dims" + printfSafe(" and matches none")))
			row.Args = text(fmt.Sprintf(", r.rank(%d)", in))
		}
	}
	return rows
}

// relationInput is the index among the regular inputs of the input
// named name (validation keeps relations to required data inputs).
func relationInput(l *ioLayout, name string) int {
	for _, t := range l.Inputs {
		if t.Name == name {
			return t.Index
		}
	}
	return 0
}

// relationExpr renders a side of a relation as int64 C++ over r, the
// RelationDims of the inputs: dim symbols as r.d(i, j), x.shape[axis] as
// r.at, prod(x.shape[lo:hi]) as r.prod, params from params.
func relationExpr(op *ir.Op, l *ioLayout, e *shapeexpr.Expr) string {
	extra := func(x *shapeexpr.Expr) string {
		in := relationInput(l, x.Name)
		lo, hi := x.SliceBounds()
		switch {
		case x.Kind == shapeexpr.Rank:
			return fmt.Sprintf("static_cast<int64_t>(r.rank(%d))", in)
		case x.Kind == shapeexpr.DimProd && lo != nil:
			end := "0"
			if hi != nil {
				end = relationExpr(op, l, hi)
			}
			return fmt.Sprintf("r.prod(%d, %s, %t, %s)", in, relationExpr(op, l, lo), hi != nil, end)
		case x.Kind == shapeexpr.DimProd:
			return fmt.Sprintf("r.prod(%d, %s)", in, sliceArgs(x))
		case x.Kind == shapeexpr.Dim && x.Axis != "":
			return fmt.Sprintf("r.at(%d, static_cast<int64_t>(params.%s))", in, identOf(op, x.Axis))
		case x.Kind == shapeexpr.Dim:
			return fmt.Sprintf("r.at(%d, %s)", in, strconv.Itoa(x.Index))
		}
		return ""
	}
	s, _ := cppIntElem(op, l, e, func(i, j int) string { return fmt.Sprintf("r.d(%d, %d)", i, j) }, "params", extra)
	return s
}

// printfSafe doubles the % of opdef text bound for a printf format.
func printfSafe(s string) string { return strings.ReplaceAll(s, "%", "%%") }
