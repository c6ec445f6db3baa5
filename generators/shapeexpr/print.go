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
	case Sym, Index:
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
