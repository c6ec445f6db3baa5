package shapeexpr

import (
	"errors"
	"math"
	"testing"
)

// TestEvalOverflow: arithmetic that leaves int64 is an error, never a
// wrapped value that would become a wrong dim in generated code.
func TestEvalOverflow(t *testing.T) {
	env := MapEnv{Symbols: map[string]int64{"N": math.MaxInt64, "M": math.MinInt64}}
	for _, src := range []string{"N + 1", "M - 1", "N * 2", "-M", "M * -1", "M // -1", "3000000000 * 3000000000 * 3"} {
		e, err := Parse(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		_, err = e.Eval(env)
		var oe *OverflowError
		if !errors.As(err, &oe) {
			t.Errorf("%q: got %v, want an overflow error", src, err)
		}
	}
	for _, src := range []string{"N - 1 + 1", "M + 1", "N * 1", "-(M + 1)", "N // -1"} {
		e, _ := Parse(src)
		if _, err := e.Eval(env); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
	e, _ := Parse("N + 3000000000 * 3000000000 * 3")
	if bad := e.ConstOverflow(); bad == nil || bad.String() != "3000000000 * 3000000000 * 3" {
		t.Errorf("ConstOverflow = %v", bad)
	}
}

type rng map[string]Interval

func (r rng) SymbolRange(n string) Interval         { return r[n] }
func (r rng) ElementRange(n string, _ int) Interval { return r[n] }

func TestRange(t *testing.T) {
	inf := math.Inf(1)
	env := rng{"N": {1, inf}, "k": {0, 4}, "s": {1, 8}}
	cases := []struct {
		src    string
		lo, hi float64
	}{
		{"N - 5", -4, inf},
		{"-N", -inf, -1},
		{"N // s", 0, inf},
		{"k * 0", 0, 0},
		{"min(k, 2) - 3", -3, -1},
		{"ceil_div(k, s)", 0, 4},
		{"max(N, k)", 1, inf},
	}
	for _, c := range cases {
		e, err := Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Range(env); got.Lo != c.lo || got.Hi != c.hi {
			t.Errorf("%q: range %v, want [%g, %g]", c.src, got, c.lo, c.hi)
		}
	}
	e, _ := Parse("N // k + floor_div(N, ceil_div(s, 2))")
	if ds := e.Divisors(); len(ds) != 3 || ds[0].String() != "k" {
		t.Errorf("Divisors = %v", ds)
	}
}
