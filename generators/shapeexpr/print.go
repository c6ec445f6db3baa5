package shapeexpr

import (
	"strconv"
	"strings"
)

// Python renders e as a Python integer expression. ref renders a symbol or
// element reference (e.g. a bound local or a param argument).
func (e *Expr) Python(ref func(*Expr) string) string {
	var sb strings.Builder
	e.python(&sb, ref)
	return sb.String()
}

func (e *Expr) python(sb *strings.Builder, ref func(*Expr) string) {
	bin := func(op string) {
		sb.WriteByte('(')
		e.Args[0].python(sb, ref)
		sb.WriteString(op)
		e.Args[1].python(sb, ref)
		sb.WriteByte(')')
	}
	switch e.Kind {
	case Const:
		sb.WriteString(strconv.FormatInt(e.Value, 10))
	case Sym, Index, ElemSize, Dim:
		sb.WriteString(ref(e))
	case Neg:
		sb.WriteString("(-")
		e.Args[0].python(sb, ref)
		sb.WriteByte(')')
	case Add:
		bin(" + ")
	case Sub:
		bin(" - ")
	case Mul:
		bin(" * ")
	case FloorDiv:
		bin(" // ")
	case CeilDiv:
		// Python has no ceiling division; -(-a // b) is exact for integers.
		sb.WriteString("(-(-")
		e.Args[0].python(sb, ref)
		sb.WriteString(" // ")
		e.Args[1].python(sb, ref)
		sb.WriteString("))")
	case Min, Max:
		sb.WriteString(funcNames[e.Kind])
		sb.WriteByte('(')
		for i, a := range e.Args {
			if i > 0 {
				sb.WriteString(", ")
			}
			a.python(sb, ref)
		}
		sb.WriteByte(')')
	}
}

// Syntax says how to render an expression through calls and operators, for
// targets whose dimension arithmetic is an API (a runtime's expression
// builder, a Python plugin's shape expressions) or integer code with
// helper functions.
type Syntax struct {
	// Const renders an integer constant.
	Const func(v int64) string
	// Ref renders a symbol, element or element-size reference.
	Ref func(e *Expr) string
	// Op renders a binary operation: Add, Sub, Mul, FloorDiv, CeilDiv, Min
	// or Max.
	Op func(k Kind, a, b string) string
}

// Render renders e in s. Negation becomes 0 - x and min/max of more than
// two arguments fold from the left, so s needs binary operations only
// (an expression builder may have no unary minus, and min and max of two
// operands only).
func (e *Expr) Render(s Syntax) string {
	switch e.Kind {
	case Const:
		return s.Const(e.Value)
	case Sym, Index, ElemSize, Dim:
		return s.Ref(e)
	case Neg:
		return s.Op(Sub, s.Const(0), e.Args[0].Render(s))
	}
	acc := e.Args[0].Render(s)
	for _, a := range e.Args[1:] {
		acc = s.Op(e.Kind, acc, a.Render(s))
	}
	return acc
}
