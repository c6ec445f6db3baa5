package shapeexpr

import "testing"

// R - R is 0 for every R, which the interval [lo-hi, hi-lo] cannot show.
func TestAlwaysZero(t *testing.T) {
	for src, want := range map[string]bool{
		"R - R":                         true,
		"(R - R)":                       true,
		"2 * (H - H) + 0 * W":           true,
		"a * b - b * a":                 true,
		"(a + b) * (a - b) - a*a + b*b": true,
		"-(x[0] - x[0])":                true,
		"floor_div(R - R, 3)":           true,
		"min(H - H, 0)":                 true,
		"x.shape[1] - x.shape[1]":       true,
		"0":                             true,
		"R - R + 1":                     false,
		"R - S":                         false,
		"min(H - H, 1)":                 false,
		"floor_div(R, 2) - R // 2":      true,
		"R // 2 - R":                    false,
		"3000000000 * 3000000000 * 3000000000 * R - R": false,
	} {
		e, err := Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := e.AlwaysZero(); got != want {
			t.Errorf("AlwaysZero(%s) = %v, want %v", src, got, want)
		}
	}
}
