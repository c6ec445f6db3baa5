package shapeexpr

import (
	"strings"
	"testing"
)

// TestDimProd holds prod(x.shape[lo:hi]) to Python's slice semantics at
// every rank the slice may meet, its canonical text and its parse errors.
func TestDimProd(t *testing.T) {
	dims := map[string][]int64{"x": {2, 3, 5, 7}, "s": {4}, "z": {}}
	cases := []struct {
		src, canon string
		tensor     string
		want       int64
	}{
		{"prod(x.shape[:-1])", "prod(x.shape[:-1])", "x", 30},
		{"prod(x.shape[:])", "prod(x.shape[:])", "x", 210},
		{"prod( x . shape [ 1 : ] )", "prod(x.shape[1:])", "x", 105},
		{"prod(x.shape[1:3]) * 2", "prod(x.shape[1:3]) * 2", "x", 30},
		{"prod(x.shape[-2:])", "prod(x.shape[-2:])", "x", 35},
		{"prod(x.shape[3:1])", "prod(x.shape[3:1])", "x", 1},     // empty: 1
		{"prod(x.shape[0:9])", "prod(x.shape[:9])", "x", 210},    // clamped, as Python
		{"prod(x.shape[-9:-3])", "prod(x.shape[-9:-3])", "x", 2}, // clamped below
		{"prod(s.shape[:-1])", "prod(s.shape[:-1])", "s", 1},     // rank 1: no dim but the last
		{"prod(z.shape[:])", "prod(z.shape[:])", "z", 1},         // rank 0
	}
	for _, c := range cases {
		e, err := Parse(c.src)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if got := e.String(); got != c.canon {
			t.Errorf("%q: canonical %q, want %q", c.src, got, c.canon)
		}
		if !e.UsesDims() || len(e.Symbols()) != 1 || e.Symbols()[0].Name != c.tensor {
			t.Errorf("%q: UsesDims %v, symbols %v", c.src, e.UsesDims(), e.Symbols())
		}
		v, err := e.Eval(MapEnv{TensorDims: dims})
		if err != nil || v != c.want {
			t.Errorf("%q = %d, %v; want %d", c.src, v, err, c.want)
		}
	}
	if _, err := mustParse(t, "prod(y.shape[:])").Eval(MapEnv{TensorDims: dims}); err == nil {
		t.Error("a tensor without dims evaluated")
	}
	big := MapEnv{TensorDims: map[string][]int64{"x": {1 << 40, 1 << 40}}}
	if _, err := mustParse(t, "prod(x.shape[:])").Eval(big); err == nil {
		t.Error("an overflowing product evaluated")
	}
	for src, wantErr := range map[string]string{
		"prod(x.shape[1])":   "prod takes a slice",
		"prod(x.shap[:])":    `expected "shape"`,
		"prod(3)":            "prod takes a slice of an input's dims",
		"prod(x.shape[1 2])": "prod takes a slice",
		"rank(3)":            "rank takes the name of an input",
		"prod(x.shape[:]":    `expected ")"`,
	} {
		_, err := Parse(src)
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: error %v, want %q", src, err, wantErr)
		}
	}
	// Bounds that are expressions (a relation's), and rank(x).
	env := MapEnv{TensorDims: dims, Symbols: map[string]int64{"k": 2}}
	for src, want := range map[string]int64{
		"prod(x.shape[rank(s):])":             105, // 3 * 5 * 7
		"prod(x.shape[:k + 1])":               30,
		"prod(x.shape[s.shape[0] - 5:-k])":    1, // lo -1 is dim 3, hi -2 dim 2: empty
		"rank(x) - 1 + rank(s) - s.shape[-1]": 0,
	} {
		e := mustParse(t, src)
		if got := e.String(); got != src {
			t.Errorf("%q: canonical %q", src, got)
		}
		if v, err := e.Eval(env); err != nil || v != want {
			t.Errorf("%q = %d, %v; want %d", src, v, err, want)
		}
	}
	if got := PythonSliceProdOf("x.shape", mustParse(t, "prod(x.shape[rank(s):])"), "1", func(e *Expr) string { return "len(s.shape)" }); got != `__import__("math").prod(x.shape[int(len(s.shape)):], start=1)` {
		t.Errorf("PythonSliceProdOf: %s", got)
	}
	if got := PythonSliceProd("x.shape", mustParse(t, "prod(x.shape[:-1])"), "1"); got != `__import__("math").prod(x.shape[:-1], start=1)` {
		t.Errorf("PythonSliceProd: %s", got)
	}
}

func mustParse(t *testing.T, src string) *Expr {
	t.Helper()
	e, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
