package shapeexpr

import (
	"fmt"
	"math"
)

// evalRounding computes floor, ceil or round of e's real argument.
func (e *Expr) evalRounding(env Env) (int64, error) {
	x, err := e.Args[0].evalReal(env)
	if err != nil {
		return 0, err
	}
	switch e.Kind {
	case Floor:
		x = math.Floor(x)
	case Ceil:
		x = math.Ceil(x)
	default:
		x = math.Floor(x + 0.5)
	}
	// 2^63 is the first float64 past int64's range.
	if math.IsNaN(x) || x >= 1<<63 || x < -(1<<63) {
		return 0, &OverflowError{Expr: e}
	}
	return int64(x), nil
}

// evalReal computes e in float64: float params from a FloatEnv, "/" as
// true division, and every integer subexpression as Eval computes it.
func (e *Expr) evalReal(env Env) (float64, error) {
	fe, _ := env.(FloatEnv)
	switch e.Kind {
	case Const:
		return float64(e.Value), nil
	case Sym:
		if fe != nil {
			if v, ok := fe.Float(e.Name); ok {
				return v, nil
			}
		}
	case Index:
		if i, err := e.elementIndex(env); fe != nil && err == nil {
			if v, ok := fe.FloatElement(e.Name, i); ok {
				return v, nil
			}
		}
	case Neg:
		a, err := e.Args[0].evalReal(env)
		return -a, err
	case Add, Sub, Mul, Div:
		a, err := e.Args[0].evalReal(env)
		if err != nil {
			return 0, err
		}
		b, err := e.Args[1].evalReal(env)
		if err != nil {
			return 0, err
		}
		switch e.Kind {
		case Add:
			return a + b, nil
		case Sub:
			return a - b, nil
		case Mul:
			return a * b, nil
		}
		if b == 0 {
			return 0, fmt.Errorf("division by zero in %s", e)
		}
		return a / b, nil
	}
	v, err := e.Eval(env)
	return float64(v), err
}

// IsReal reports whether e is real-valued where it stands: it reads a
// float name (isFloat says which names are) or divides with "/" outside
// a floor, ceil or round, which make it an integer again.
func (e *Expr) IsReal(isFloat func(*Expr) bool) bool {
	switch {
	case e.Kind.IsRounding():
		return false
	case e.Kind == Div:
		return true
	case e.Kind == Sym || e.Kind == Index:
		return isFloat(e)
	}
	for _, a := range e.Args {
		if a.IsReal(isFloat) {
			return true
		}
	}
	return false
}
