package shapeexpr

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestParseAndEval(t *testing.T) {
	env := MapEnv{Symbols: map[string]int64{"N": 7, "H": 10, "k": 3, "axis": -2, "#": 1}, Elements: map[string][]int64{"pads": {1, 2}},
		TensorDims: map[string][]int64{"x": {2, 5, 9}},
		Floats:     map[string]float64{"scale": 0.75, "lo": -1.5}, FloatElements: map[string][]float64{"ratios": {0.5, 1, 2}}}
	cases := []struct {
		src, canon string
		want       int64
	}{
		{"N", "N", 7},
		{"4", "4", 4},
		{"N*2+1", "N * 2 + 1", 15},
		{"(H + pads[0] + pads[1]) // 4", "(H + pads[0] + pads[1]) // 4", 3},
		{"floor_div(-7, 2)", "-7 // 2", -4},
		{"ceil_div(H, 3)", "ceil_div(H, 3)", 4},
		{"ceil_div(-7, 2)", "ceil_div(-7, 2)", -3},
		{"min(k, N, H)", "min(k, N, H)", 3},
		{"max(k, N)", "max(k, N)", 7},
		{"N - (H - k)", "N - (H - k)", 0},
		{"-N * 2", "-N * 2", -14},
		{"N // 2 * 2", "N // 2 * 2", 6},
		{"x.shape[0]", "x.shape[0]", 2},
		{"x . shape [ -1 ] * 2", "x.shape[-1] * 2", 18},
		{"x.shape[axis] + k", "x.shape[axis] + k", 8},
		{"-x.shape[1]", "-x.shape[1]", -5},
		// Rounded real arithmetic: float params, "/" inside floor, ceil, round.
		{"floor(H * scale)", "floor(H * scale)", 7},
		{"ceil(H*scale)", "ceil(H * scale)", 8},
		{"round(H * scale)", "round(H * scale)", 8}, // 7.5 rounds half up
		{"round(lo)", "round(lo)", -1},              // -1.5 + 0.5 = -1
		{"floor((H - lo) / ratios[0])", "floor((H - lo) / ratios[0])", 23},
		{"ceil(N / 2) * 2", "ceil(N / 2) * 2", 8},
		{"floor(H / k) - H // k", "floor(H / k) - H // k", 0},
		{"len(pads) + 1", "len(pads) + 1", 3},
		{"len(ratios) * N", "len(ratios) * N", 21},
		// The index of one of a counted variadic tensor's tensors (# = 1 here).
		{"pads[#] * pads[ # ]", "pads[#] * pads[#]", 4},
		{"3 + min(#, 1) * (len(ratios) - 2)", "3 + min(#, 1) * (len(ratios) - 2)", 4},
		{"floor(ratios[#] * H)", "floor(ratios[#] * H)", 10},
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
		v, err := e.Eval(env)
		if err != nil || v != c.want {
			t.Errorf("%q = %d, %v; want %d", c.src, v, err, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		src string
		col int
	}{
		{"", 1},
		{"N +", 4},
		{"N $ 2", 3},
		{"min(N)", 1},
		{"floor_div(N, 2, 3)", 1},
		{"H / 2", 3},             // true division outside a rounding
		{"floor(H / 2) / 2", 14}, // and after one
		{"floor(H, 2)", 8},
		{"len(3)", 5},
		{"x[y]", 3},
		{"(N", 3},
		{"N N", 3},
		{"99999999999999999999", 1},
		{"x.dims[0]", 3},
		{"x.shape[-k]", 10},
		{"x.shape[1", 10},
		{"x.shape(1)", 8},
		{"x.", 3},
	}
	for _, c := range cases {
		_, err := Parse(c.src)
		pe, ok := err.(*Error)
		if !ok {
			t.Errorf("%q: error %v, want a parse error", c.src, err)
			continue
		}
		if pe.Col != c.col {
			t.Errorf("%q: error at column %d (%s), want %d", c.src, pe.Col, pe.Msg, c.col)
		}
	}
}

// FuzzParse: parsing never panics, and canonical text parses back to the
// same canonical text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"N", "floor_div((H + pads[0]) * 2, 8) * 8", "min(a, b, c) - -1", "x[3]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			return
		}
		canon := e.String()
		e2, err := Parse(canon)
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", canon, src, err)
		}
		if e2.String() != canon {
			t.Fatalf("canonical form not stable: %q -> %q", canon, e2.String())
		}
	})
}

// TestRender renders through a call syntax like IExprBuilder's: only
// binary operations, negation as 0 - x, n-ary min/max folded left.
func TestRender(t *testing.T) {
	name := map[Kind]string{Add: "sum", Sub: "sub", Mul: "prod", FloorDiv: "fdiv", CeilDiv: "cdiv", Min: "min", Max: "max"}
	s := Syntax{
		Const: func(v int64) string { return "c(" + strconv.FormatInt(v, 10) + ")" },
		Ref:   func(e *Expr) string { return "$" + describe(e) },
		Op:    func(k Kind, a, b string) string { return name[k] + "(" + a + ", " + b + ")" },
	}
	cases := []struct{ src, want string }{
		{"N", "$N"},
		{"7", "c(7)"},
		{"N * 2 + pads[1]", "sum(prod($N, c(2)), $pads[1])"},
		{"-N", "sub(c(0), $N)"},
		{"min(a, b, c)", "min(min($a, $b), $c)"},
		{"ceil_div(H, 4) - floor_div(W, 2)", "sub(cdiv($H, c(4)), fdiv($W, c(2)))"},
		{"max(N // 2, 1)", "max(fdiv($N, c(2)), c(1))"},
	}
	for _, c := range cases {
		e, err := Parse(c.src)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if got := e.Render(s); got != c.want {
			t.Errorf("%q renders %q, want %q", c.src, got, c.want)
		}
	}
}

func describe(e *Expr) string {
	if e.Kind == Index {
		return e.Name + "[" + strconv.Itoa(e.Index) + "]"
	}
	return e.Name
}

// TestElemSize: elem_size(x) parses, prints back, evaluates from the
// environment's element sizes and is bounded by [1, 8] without them.
func TestElemSize(t *testing.T) {
	e, err := Parse("N * elem_size(x) + ceil_div(N, 2) * elem_size(idx)")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.String(), "N * elem_size(x) + ceil_div(N, 2) * elem_size(idx)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	var refs []string
	for _, s := range e.Symbols() {
		refs = append(refs, s.String())
	}
	if got := strings.Join(refs, " "); got != "N elem_size(x) N elem_size(idx)" {
		t.Errorf("Symbols() = %s", got)
	}
	v, err := e.Eval(MapEnv{Symbols: map[string]int64{"N": 5}, ElemSizes: map[string]int64{"x": 2, "idx": 8}})
	if err != nil || v != 5*2+3*8 {
		t.Errorf("Eval = %d, %v; want 34", v, err)
	}
	if _, err := e.Eval(MapEnv{Symbols: map[string]int64{"N": 5}}); err == nil || !strings.Contains(err.Error(), "element size") {
		t.Errorf("Eval without element sizes: %v", err)
	}
	r := e.Range(rangeEnv{"N": {1, 10}})
	if r.Lo != 1 || r.Hi != 10*8+5*8 { // ceil_div(N, 2) is bounded below by 0 (interval division)
		t.Errorf("Range = %v", r)
	}
	for _, bad := range []string{"elem_size(3)", "elem_size(x", "elem_size()"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

type rangeEnv map[string]Interval

func (r rangeEnv) SymbolRange(name string) Interval         { return r[name] }
func (r rangeEnv) ElementRange(name string, _ int) Interval { return Unbounded }

func TestDimAxisOutOfRange(t *testing.T) {
	env := MapEnv{Symbols: map[string]int64{"axis": 3}, TensorDims: map[string][]int64{"x": {2, 5, 9}}}
	for _, src := range []string{"x.shape[3]", "x.shape[-4]", "x.shape[axis]"} {
		e, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Eval(env)
		var ae *AxisError
		if !errors.As(err, &ae) || ae.Rank != 3 {
			t.Errorf("%s: %v, want an axis error for rank 3", src, err)
		}
	}
	e, _ := Parse("y.shape[0]")
	if _, err := e.Eval(env); err == nil {
		t.Error("a tensor without dims evaluated")
	}
	if e, _ := Parse("x.shape[axis] * 2"); !e.UsesDims() || e.Range(rng{}) != (Interval{0, math.Inf(1)}) {
		t.Errorf("x.shape[axis] * 2: UsesDims %v, range %v", e.UsesDims(), e.Range(rng{}))
	}
}

// TestAtIndex: fixing # at k gives the k-th tensor's expression, which
// evaluates as the original does with # = k, and leaves the original be.
func TestAtIndex(t *testing.T) {
	env := MapEnv{Symbols: map[string]int64{"N": 5}, Elements: map[string][]int64{"sizes": {19, 10, 5}}}
	e, err := Parse("sizes[#] * sizes[#] * (3 + min(#, 1) * N) + N")
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range []string{"sizes[0] * sizes[0] * (3 + min(0, 1) * N) + N", "sizes[1] * sizes[1] * (3 + min(1, 1) * N) + N", "sizes[2] * sizes[2] * (3 + min(2, 1) * N) + N"} {
		at := e.AtIndex(k)
		if got := at.String(); got != want {
			t.Errorf("at %d: %s, want %s", k, got, want)
		}
		env.Symbols["#"] = int64(k)
		v1, err1 := e.Eval(env)
		v2, err2 := at.Eval(env)
		if err1 != nil || err2 != nil || v1 != v2 {
			t.Errorf("at %d: %d (%v) with #, %d (%v) fixed", k, v1, err1, v2, err2)
		}
	}
	if e.String() != "sizes[#] * sizes[#] * (3 + min(#, 1) * N) + N" {
		t.Errorf("AtIndex changed the original: %s", e)
	}
	if plain, _ := Parse("N + 1"); plain.AtIndex(2) != plain {
		t.Error("an expression without # is copied")
	}
}
