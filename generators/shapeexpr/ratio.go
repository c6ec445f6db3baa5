package shapeexpr

// A real expression (the argument of floor, ceil or round) rendered in an
// integer syntax is a fraction: an integer numerator over a denominator.
// A float reference is exact as one (a finite binary float is num / 2^k),
// so sums, differences, products and quotients of floats, dims and
// integers stay exact fractions, and the rounding is one integer division:
// floor(n/d) = floor_div(n, d), ceil(n/d) = ceil_div(n, d) and
// round(n/d) = floor(n/d + 1/2) = floor_div(2n + d, 2d).

// fraction is a rendered real value num / den; den "" is 1, kept apart
// so integer parts render without multiplications by one.
type fraction struct{ num, den string }

// renderRounding renders floor, ceil or round of e's real argument as
// integer division over s.Ratio's fractions.
func (e *Expr) renderRounding(s Syntax) string {
	f := e.Args[0].fraction(s)
	if f.den == "" {
		return f.num // an integer argument rounds to itself
	}
	switch e.Kind {
	case Floor:
		return s.Op(FloorDiv, f.num, f.den)
	case Ceil:
		return s.Op(CeilDiv, f.num, f.den)
	}
	two := s.Const(2)
	return s.Op(FloorDiv, s.Op(Add, s.Op(Mul, two, f.num), f.den), s.Op(Mul, two, f.den))
}

// fraction renders e as num / den. Integer-valued nodes (min, max,
// floor_div, ceil_div, nested roundings) render as they do outside a
// rounding; RealOperand reports the real arguments they cannot take.
func (e *Expr) fraction(s Syntax) fraction {
	mul := func(a, b string) string {
		switch {
		case a == "":
			return b
		case b == "":
			return a
		}
		return s.Op(Mul, a, b)
	}
	switch e.Kind {
	case Sym, Index:
		if num, den, ok := s.Ratio(e); ok {
			return fraction{num, den}
		}
	case Neg:
		a := e.Args[0].fraction(s)
		return fraction{s.Op(Sub, s.Const(0), a.num), a.den}
	case Add, Sub, Mul, Div:
		a, b := e.Args[0].fraction(s), e.Args[1].fraction(s)
		switch e.Kind {
		case Mul:
			return fraction{s.Op(Mul, a.num, b.num), mul(a.den, b.den)}
		case Div:
			// a / b = (a.num * b.den) / (a.den * b.num)
			return fraction{mul(a.num, b.den), mul(a.den, b.num)}
		}
		if a.den == b.den {
			return fraction{s.Op(e.Kind, a.num, b.num), a.den}
		}
		return fraction{s.Op(e.Kind, mul(a.num, b.den), mul(b.num, a.den)), mul(a.den, b.den)}
	}
	return fraction{num: e.Render(s)}
}

// RealOperand returns the first operand inside a rounding of e that an
// integer syntax cannot render as a fraction: a real argument of min,
// max, floor_div or ceil_div (whose results over fractions would need
// the signs of the denominators); nil when there is none. isFloat says
// which names are floats.
func (e *Expr) RealOperand(isFloat func(*Expr) bool) *Expr {
	for _, r := range e.Rounded() {
		if bad := r.Args[0].realOperand(isFloat); bad != nil {
			return bad
		}
	}
	return nil
}

func (e *Expr) realOperand(isFloat func(*Expr) bool) *Expr {
	switch e.Kind {
	case Min, Max, FloorDiv, CeilDiv:
		for _, a := range e.Args {
			if a.IsReal(isFloat) {
				return e
			}
		}
	case Floor, Ceil, Round:
		return e.RealOperand(isFloat)
	}
	for _, a := range e.Args {
		if bad := a.realOperand(isFloat); bad != nil {
			return bad
		}
	}
	return nil
}
