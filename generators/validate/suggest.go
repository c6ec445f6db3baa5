package validate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// What an unknown symbol in a dimension expression could have been,
// fitted to where it was written: the dim symbols, data-dependent sizes
// and integer params in scope (nearest names first; float params cannot
// be dims and are never offered), the x.shape[i] forms of the inputs that
// have no dim symbols (a fixed rank, or a rank range with the axes every
// admitted rank has), and, in an output's shape, `like: x` for an input
// of a rank the output may take.

// suggestDims is the clause after "uses unknown symbol ...; ".
func (c *shapeChecker) suggestDims(s *shapeexpr.Expr, allowSizes bool) string {
	known := c.knownNames(allowSizes)
	byCloseness(known, s.Name)
	if len(known) > 0 && closeName(s.Name, known[0]) {
		// A near miss of a name in scope: the other forms would be noise.
		return fmt.Sprintf("did you mean %q? Known: %s", known[0], strings.Join(known, ", "))
	}
	var parts []string
	if len(known) > 0 {
		parts = append(parts, "known: "+strings.Join(known, ", "))
	}
	if c.dims {
		if forms := c.axisForms(); len(forms) > 0 {
			parts = append(parts, "read an input's dim by axis: "+strings.Join(forms, ", "))
		}
	}
	if c.output != nil {
		if likes := c.likeForms(c.output); len(likes) > 0 {
			parts = append(parts, fmt.Sprintf("give %q an input's shape whatever its rank: %s", c.output.Name, strings.Join(likes, " or ")))
		}
	}
	if len(parts) == 0 {
		return "no symbols are bound: give the inputs symbolic shapes such as [N, C]"
	}
	return strings.Join(parts, "; or ")
}

// knownNames are the names an expression here may use: the input dim
// symbols, the data-dependent sizes where allowed, the integer scalar
// params and each element of the integer array params of known length.
func (c *shapeChecker) knownNames(allowSizes bool) []string {
	var known []string
	for s := range c.symbols {
		known = append(known, s)
	}
	if allowSizes {
		for s := range c.sizes {
			known = append(known, s)
		}
	}
	for _, p := range c.op.Params {
		if len(p.DTypes) == 0 || !p.DTypes[0].IsInteger() {
			continue
		}
		switch {
		case p.Kind == ir.ParamScalar:
			known = append(known, p.Name)
		case p.Kind == ir.ParamArray && p.Length > 2:
			known = append(known, fmt.Sprintf("%s[0] to %s[%d]", p.Name, p.Name, p.Length-1))
		case p.Kind == ir.ParamArray && p.Length > 0:
			for i := range p.Length {
				known = append(known, fmt.Sprintf("%s[%d]", p.Name, i))
			}
		case p.Kind == ir.ParamArray:
			known = append(known, p.Name+"[i]")
		}
	}
	return known
}

// byCloseness orders names by edit distance to got, then by name.
func byCloseness(known []string, got string) {
	dist := func(k string) int {
		base, _, _ := strings.Cut(k, "[")
		return names.Distance(strings.ToLower(got), strings.ToLower(base))
	}
	sort.SliceStable(known, func(i, j int) bool {
		di, dj := dist(known[i]), dist(known[j])
		if di != dj {
			return di < dj
		}
		return known[i] < known[j]
	})
}

// closeName reports a near miss: a case slip, or within two edits of a
// name long enough for that to mean something.
func closeName(got, known string) bool {
	base, _, _ := strings.Cut(known, "[")
	if strings.EqualFold(got, base) {
		return true
	}
	d := names.Distance(got, base)
	return d == 1 && len(got) > 1 || d == 2 && len(got) > 4
}

// axisForms are x.shape[i] for the axes every admitted rank of each data
// input without dim symbols has: all of a fixed rank's, and the first and
// last of a rank range's least rank (negative axes count from the end).
func (c *shapeChecker) axisForms() []string {
	var forms []string
	for _, in := range c.op.Inputs {
		if in.ShapeTensor || in.Shape != nil || in.Scalar {
			continue
		}
		n := in.Rank
		if n == ir.RankAny {
			if in.RankRange == nil || in.RankRange.Min < 1 {
				continue
			}
			n = in.RankRange.Min
			forms = append(forms, axisRange(in.Name, n, true)...)
			continue
		}
		forms = append(forms, axisRange(in.Name, n, false)...)
	}
	return forms
}

// axisRange writes the axes of a rank-n tensor x: each axis for a small
// fixed rank, else the first and last, from the end too for a rank range
// (whose last dims are the ones every rank shares at the same place).
func axisRange(x string, n int, fromEnd bool) []string {
	dim := func(i int) string { return fmt.Sprintf("%s.shape[%d]", x, i) }
	var out []string
	switch {
	case n <= 0:
	case !fromEnd && n <= 4:
		for i := range n {
			out = append(out, dim(i))
		}
	case !fromEnd:
		out = append(out, dim(0)+" to "+dim(n-1))
	case n == 1:
		out = append(out, dim(0), dim(-1))
	default:
		out = append(out, dim(0)+" to "+dim(n-1), dim(-n)+" to "+dim(-1))
	}
	return out
}

// likeForms are `shape: {like: x}` for each data input without dim
// symbols whose rank the output's declared shape may have.
func (c *shapeChecker) likeForms(out *ir.Tensor) []string {
	rank := len(out.Shape)
	var forms []string
	for _, in := range c.op.Inputs {
		if in.ShapeTensor || in.Shape != nil || in.Scalar {
			continue
		}
		if in.Rank == rank || in.Rank == ir.RankAny && in.RankRange.Admits(rank) {
			forms = append(forms, fmt.Sprintf("shape: {like: %s}", in.Name))
		}
	}
	return forms
}
