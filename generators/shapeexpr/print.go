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
	case Sym, Index, ElemSize, Dim, DimProd, Rank:
		sb.WriteString(ref(e))
	case Len:
		// ref renders the array param as a Python sequence.
		sb.WriteString("len(" + ref(&Expr{Kind: Sym, Name: e.Name, Col: e.Col}) + ")")
	case Floor, Round:
		// x // 1 is the floor of a float exactly, and needs no import in
		// the generated module; round is half up, floor(x + 0.5), as Go
		// computes it (Python's round is half-even).
		sb.WriteString("int((")
		e.Args[0].python(sb, ref)
		if e.Kind == Round {
			sb.WriteString(" + 0.5")
		}
		sb.WriteString(") // 1)")
	case Ceil:
		sb.WriteString("(-int((-(")
		e.Args[0].python(sb, ref)
		sb.WriteString(")) // 1))")
	case Div:
		bin(" / ")
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
	// Ref renders a symbol, element, element-size, dim or length
	// reference, and floor, ceil and round, whose real arguments only the
	// target knows how to compute.
	Ref func(e *Expr) string
	// Op renders a binary operation: Add, Sub, Mul, FloorDiv, CeilDiv, Min
	// or Max.
	Op func(k Kind, a, b string) string
	// Ratio, when set, renders a float reference (a float param or
	// element) as an exact integer numerator and denominator (ok false
	// for an integer one), and Render then computes floor, ceil and round
	// itself as integer divisions (ratio.go); without it they go to Ref.
	Ratio func(e *Expr) (num, den string, ok bool)
}

// Render renders e in s. Negation becomes 0 - x and min/max of more than
// two arguments fold from the left, so s needs binary operations only
// (an expression builder may have no unary minus, and min and max of two
// operands only).
func (e *Expr) Render(s Syntax) string {
	switch e.Kind {
	case Const:
		return s.Const(e.Value)
	case Floor, Ceil, Round:
		if s.Ratio != nil {
			return e.renderRounding(s)
		}
		return s.Ref(e)
	case Sym, Index, ElemSize, Dim, Len, DimProd, Rank:
		// A rounding is the target's to render (or refuse): its argument
		// is real, which an integer syntax cannot express.
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
