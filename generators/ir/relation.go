package ir

import (
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// RelationKind names what a relation between an op's inputs requires
// (the op's `requires:` list).
type RelationKind string

const (
	// SameRank: the inputs have one rank.
	SameRank RelationKind = "same_rank"
	// SameShape: the inputs have one shape.
	SameShape RelationKind = "same_shape"
	// Equal: two dim expressions are equal (K == 2 * span).
	Equal RelationKind = "equal"
	// Divisible: the first dim expression is a multiple of the second
	// (C % num_groups == 0).
	Divisible RelationKind = "divisible"
	// OneOf: the input has one of several shapes ([B, N, 4] or
	// [B, N, C, 4]).
	OneOf RelationKind = "one_of"
)

// Relation is one entry of an op's `requires:`: a fact about its inputs'
// ranks and dims that no single input shape states, checked where each
// target sees the shapes.
type Relation struct {
	Kind RelationKind
	// Inputs are the inputs SameRank and SameShape relate, and OneOf's
	// one input, each written at InputPos.
	Inputs   []string
	InputPos []diag.Pos
	// Dims are Equal's and Divisible's two sides.
	Dims []*Dim
	// Shapes are the shapes OneOf allows.
	Shapes [][]*Dim
	Pos    diag.Pos
}

// String is the relation as messages name it: "rank(a) == rank(b)",
// "shape(a) == shape(b)", "K == 2 * span", "C % num_groups == 0",
// "shape(boxes) in ([B, N, 4], [B, N, C, 4])".
func (r *Relation) String() string {
	switch r.Kind {
	case SameRank, SameShape:
		f := "rank("
		if r.Kind == SameShape {
			f = "shape("
		}
		parts := make([]string, len(r.Inputs))
		for i, in := range r.Inputs {
			parts[i] = f + in + ")"
		}
		return strings.Join(parts, " == ")
	case Equal:
		return r.Dims[0].Expr.String() + " == " + r.Dims[1].Expr.String()
	case Divisible:
		return operand(r.Dims[0]) + " % " + operand(r.Dims[1]) + " == 0"
	}
	shapes := make([]string, len(r.Shapes))
	for i, s := range r.Shapes {
		shapes[i] = ShapeText(s)
	}
	return "shape(" + r.Inputs[0] + ") in (" + strings.Join(shapes, ", ") + ")"
}

// ShapeText is a list of dims as an opdef writes it: [B, N, 4].
func ShapeText(dims []*Dim) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = d.Expr.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// operand is a side of % in a message: a name or number as is, anything
// else in parentheses.
func operand(d *Dim) string {
	if d.Expr.IsRef() || d.Expr.IsConst() {
		return d.Expr.String()
	}
	return "(" + d.Expr.String() + ")"
}

// Holds evaluates the relation over concrete shapes: env gives the params
// and dim symbols, dims each input's dims (env's DimsEnv for x.shape).
// An expression that cannot be evaluated (a missing value, an axis out of
// range, an overflow) is the error.
func (r *Relation) Holds(env shapeexpr.Env, dims map[string][]int64) (bool, error) {
	switch r.Kind {
	case SameRank, SameShape:
		first := dims[r.Inputs[0]]
		for _, in := range r.Inputs[1:] {
			other := dims[in]
			if len(other) != len(first) || r.Kind == SameShape && !slices.Equal(other, first) {
				return false, nil
			}
		}
		return true, nil
	case Equal, Divisible:
		a, err := r.Dims[0].Expr.Eval(env)
		if err != nil {
			return false, err
		}
		b, err := r.Dims[1].Expr.Eval(env)
		if err != nil {
			return false, err
		}
		if r.Kind == Equal {
			return a == b, nil
		}
		return b > 0 && a%b == 0, nil
	}
	got := dims[r.Inputs[0]]
	for _, s := range r.Shapes {
		if len(s) != len(got) {
			continue
		}
		match := true
		for j, d := range s {
			v, err := d.Expr.Eval(env)
			if err != nil {
				return false, err
			}
			match = match && v == got[j]
		}
		if match {
			return true, nil
		}
	}
	return false, nil
}

// Python is the relation as a Python boolean expression: ref renders a
// name of an expression (each target's shape printer), shape the
// sequence of an input's dims (x.shape, or a target's own). One printer
// for every Python target (fake kernels, parsers, Python plugins), so
// they check the same thing.
func (r *Relation) Python(ref func(*shapeexpr.Expr) string, shape func(input string) string) string {
	side := func(d *Dim) string { return d.Expr.Python(ref) }
	switch r.Kind {
	case SameRank, SameShape:
		var parts []string
		for _, in := range r.Inputs[1:] {
			if r.Kind == SameRank {
				parts = append(parts, "len("+shape(r.Inputs[0])+") == len("+shape(in)+")")
			} else {
				parts = append(parts, "tuple("+shape(r.Inputs[0])+") == tuple("+shape(in)+")")
			}
		}
		return strings.Join(parts, " and ")
	case Equal:
		return side(r.Dims[0]) + " == " + side(r.Dims[1])
	case Divisible:
		return side(r.Dims[1]) + " > 0 and " + side(r.Dims[0]) + " % " + side(r.Dims[1]) + " == 0"
	}
	s := shape(r.Inputs[0])
	var alts []string
	for _, dims := range r.Shapes {
		parts := []string{"len(" + s + ") == " + strconv.Itoa(len(dims))}
		for j, d := range dims {
			parts = append(parts, s+"["+strconv.Itoa(j)+"] == "+side(d))
		}
		alts = append(alts, "("+strings.Join(parts, " and ")+")")
	}
	return strings.Join(alts, " or ")
}
