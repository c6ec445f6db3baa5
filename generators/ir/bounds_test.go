package ir

import "testing"

func TestParamBounds(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		name                 string
		p                    Param
		in, out              []float64
		intMin, intMax       float64
		text, minText, maxTx string
	}{
		{"closed", Param{Min: f(0), Max: f(1)}, []float64{0, 0.5, 1}, []float64{-0.1, 1.1}, 0, 1, "[0, 1]", ">= 0", "<= 1"},
		{"open", Param{Min: f(0), Max: f(1), MinExclusive: true, MaxExclusive: true}, []float64{1e-300, 0.5, 0.9999}, []float64{0, 1}, 1, 0, "(0, 1)", "> 0", "< 1"},
		{"open below", Param{Min: f(0), MinExclusive: true}, []float64{1e-9, 7}, []float64{0, -1}, 1, 0, "(0, +inf]", "> 0", ""},
		{"fraction", Param{Min: f(2.5), Max: f(4.5), MinExclusive: true, MaxExclusive: true}, []float64{3, 4}, []float64{2.5, 4.5}, 3, 4, "(2.5, 4.5)", "> 2.5", "< 4.5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range c.in {
				if !c.p.Admits(v) {
					t.Errorf("Admits(%g) = false", v)
				}
			}
			for _, v := range c.out {
				if c.p.Admits(v) {
					t.Errorf("Admits(%g) = true", v)
				}
			}
			if lo, ok := c.p.IntMin(); ok && lo != c.intMin {
				t.Errorf("IntMin = %g, want %g", lo, c.intMin)
			}
			if hi, ok := c.p.IntMax(); ok && hi != c.intMax {
				t.Errorf("IntMax = %g, want %g", hi, c.intMax)
			}
			if got := c.p.RangeText(); got != c.text {
				t.Errorf("RangeText = %q, want %q", got, c.text)
			}
			if c.p.MinText() != c.minText || c.p.MaxText() != c.maxTx {
				t.Errorf("MinText, MaxText = %q, %q", c.p.MinText(), c.p.MaxText())
			}
		})
	}
}
