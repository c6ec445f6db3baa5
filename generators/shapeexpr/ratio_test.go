package shapeexpr

import (
	"math/big"
	"testing"
)

// bigSyntax renders an expression as its value: each string is a decimal
// integer and each operation computes on big integers, so Render with it
// is an evaluator of the integer arithmetic a target's syntax would run.
func bigSyntax(env MapEnv) Syntax {
	parse := func(s string) *big.Int { v, _ := new(big.Int).SetString(s, 10); return v }
	return Syntax{
		Const: func(v int64) string { return big.NewInt(v).String() },
		Ref: func(e *Expr) string {
			v, err := e.Eval(env)
			if err != nil {
				return "0"
			}
			return big.NewInt(v).String()
		},
		Op: func(k Kind, a, b string) string {
			x, y := parse(a), parse(b)
			z := new(big.Int)
			switch k {
			case Add:
				z.Add(x, y)
			case Sub:
				z.Sub(x, y)
			case Mul:
				z.Mul(x, y)
			case FloorDiv, CeilDiv:
				if k == CeilDiv {
					x.Neg(x)
				}
				// Floor division: big.Int's Div rounds toward -inf
				// only for a positive divisor.
				if y.Sign() < 0 {
					x.Neg(x)
					y.Neg(y)
				}
				z.Div(x, y)
				if k == CeilDiv {
					z.Neg(z)
				}
			case Min, Max:
				z.Set(x)
				if (k == Min) == (y.Cmp(x) < 0) {
					z.Set(y)
				}
			}
			return z.String()
		},
		Ratio: func(e *Expr) (string, string, bool) {
			var f float64
			var ok bool
			if e.Kind == Index {
				f, ok = env.FloatElement(e.Name, e.Index)
			} else {
				f, ok = env.Float(e.Name)
			}
			if !ok {
				return "", "", false
			}
			r := new(big.Rat).SetFloat64(f)
			return r.Num().String(), r.Denom().String(), true
		},
	}
}

// TestRoundingAsFractions holds the integer rendering of floor, ceil and
// round (what integer-only targets compute) to Eval's float evaluation
// over float32 params and dims, where float64 arithmetic is exact.
func TestRoundingAsFractions(t *testing.T) {
	exprs := []string{
		"floor(H * scale)", "ceil(H * scale)", "round(H * scale)",
		"floor(H / scale)", "ceil((H - 1) * scale + 1)", "round(-H * scale)",
		"floor(H * s[1] + W * s[0])", "ceil(H / 3)", "round(H / W)", "floor((H + 2 * W) * scale * s[0])",
		"floor(H * scale) + ceil(W * scale) - round(H * W * scale / 4)", "floor(max(H, W) * scale)", "round(H)",
	}
	scales := []float32{0.5, 1.25, 2, 0.3, 3.7, 1.0 / 3, -0.75}
	for _, src := range exprs {
		e, err := Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		for _, sc := range scales {
			for h := int64(0); h < 12; h++ {
				for w := int64(1); w < 5; w++ {
					env := MapEnv{
						Symbols:       map[string]int64{"H": h, "W": w},
						Floats:        map[string]float64{"scale": float64(sc)},
						FloatElements: map[string][]float64{"s": {float64(sc) / 2, 1.5}},
					}
					want, err := e.Eval(env)
					if err != nil {
						t.Fatalf("%s: %v", src, err)
					}
					if got := e.Render(bigSyntax(env)); got != big.NewInt(want).String() {
						t.Errorf("%s at H=%d W=%d scale=%v: fractions give %s, Eval %d", src, h, w, sc, got, want)
					}
				}
			}
		}
	}
}

func TestRealOperand(t *testing.T) {
	isFloat := func(e *Expr) bool { return e.Name == "scale" }
	for src, want := range map[string]string{
		"floor(H * scale)":              "",
		"floor(min(H * scale, W))":      "min(H * scale, W)",
		"ceil(floor_div(H, 2) * scale)": "",
		"round(floor(max(H / 2, 1)))":   "max(H / 2, 1)",
		"min(floor(H * scale), W)":      "",
	} {
		e, err := Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got := ""
		if bad := e.RealOperand(isFloat); bad != nil {
			got = bad.String()
		}
		if got != want {
			t.Errorf("%s: RealOperand = %q, want %q", src, got, want)
		}
	}
}
