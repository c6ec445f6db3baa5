package aipu

import (
	"math"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
)

// scope hands out local names that collide neither with each other nor
// with the names the generated code itself uses (modules, helpers), so an
// input called np or torch cannot shadow the module of that name.
type scope struct {
	reserved nameSet // shared by every scope of one plugin kind: only read
	taken    nameSet
}

// nameSet is a set of names; the reserved ones of each plugin kind are
// built once, not per op.
type nameSet map[string]bool

func newNameSet(names ...string) nameSet {
	s := make(nameSet, len(names))
	for _, n := range names {
		s[n] = true
	}
	return s
}

func newScope(reserved nameSet) scope { return scope{reserved: reserved, taken: nameSet{}} }

// claim returns name, with underscores appended until it is free.
func (s scope) claim(name string) string {
	for s.reserved[name] || s.taken[name] {
		name += "_"
	}
	s.taken[name] = true
	return name
}

// pyString quotes s for Python; Go's escapes (\n, \t, \x.., \u....) are
// all valid Python escapes.
func pyString(s string) string { return escape.PyString(s) }

// pyFloat writes a float so Python reads it back as a float.
func pyFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return `float("inf")`
	case math.IsInf(v, -1):
		return `float("-inf")`
	case math.IsNaN(v):
		return `float("nan")`
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".en") {
		s += ".0"
	}
	return s
}

// parseFloat reads a YAML float spelling (1.5, 1e3, .inf, -.Inf, .nan).
func parseFloat(text string) float64 {
	t := strings.ToLower(strings.ReplaceAll(text, "_", ""))
	switch strings.TrimLeft(t, "+-") {
	case ".inf":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case ".nan":
		return math.NaN()
	}
	v, _ := strconv.ParseFloat(t, 64)
	return v
}

// parseInt reads a YAML int spelling (decimal, 0x.., 0o.., with _).
func parseInt(text string) int64 {
	t := strings.ReplaceAll(text, "_", "")
	v, err := strconv.ParseInt(t, 0, 64)
	if err != nil {
		v = int64(parseFloat(t))
	}
	return v
}

// pyNumber writes a number literal of a param's element dtype.
func pyNumber(text string, float bool) string {
	if float {
		return pyFloat(parseFloat(text))
	}
	return strconv.FormatInt(parseInt(text), 10)
}

// pyValue writes one default element as the Python value the Parser puts
// in the IR (enums by name, bools as Python bools).
func pyValue(p *ir.Param, l *ir.Literal) string {
	switch {
	case p.Kind == ir.ParamEnum || p.Kind == ir.ParamString || l.Kind == ir.LitString:
		return pyString(l.Text)
	case p.Kind == ir.ParamBool || l.Kind == ir.LitBool:
		if l.Text == "true" {
			return "True"
		}
		return "False"
	}
	return pyNumber(l.Text, elemFloat(p))
}

// pyDefault writes a param's default (lists as Python lists), or the
// Parser helpers' _REQUIRED marker when it has none.
func pyDefault(p *ir.Param) string {
	if p.Default == nil {
		return "_REQUIRED"
	}
	if p.Default.Kind != ir.LitList {
		return pyValue(p, p.Default)
	}
	parts := make([]string, len(p.Default.List))
	for i, e := range p.Default.List {
		parts[i] = pyValue(p, e)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// paramBounds are the Parser's bounds of a param, "low, high", and for a
// float param with an exclusive bound the open ends, ", exclusive=(True,
// False)"; an integer param's exclusive bound is the next integer inside
// it, a closed bound that admits the same values.
func paramBounds(p *ir.Param) string {
	float := elemFloat(p)
	if !float {
		closed := func(b *float64, exclusive bool, inside func() (float64, bool)) string {
			if b != nil && exclusive {
				v, _ := inside()
				b = &v
			}
			return pyBound(b, false)
		}
		return closed(p.Min, p.MinExclusive, p.IntMin) + ", " + closed(p.Max, p.MaxExclusive, p.IntMax)
	}
	bounds := pyBound(p.Min, true) + ", " + pyBound(p.Max, true)
	if p.MinExclusive || p.MaxExclusive {
		bounds += ", exclusive=(" + pyBool(p.MinExclusive) + ", " + pyBool(p.MaxExclusive) + ")"
	}
	return bounds
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// pyBound writes a min/max bound, or None.
func pyBound(b *float64, float bool) string {
	if b == nil {
		return "None"
	}
	if !float && *b == math.Trunc(*b) && math.Abs(*b) < 1<<53 {
		return strconv.FormatInt(int64(*b), 10)
	}
	return pyFloat(*b)
}

// elemFloat reports whether a param's elements are floating point.
func elemFloat(p *ir.Param) bool { return len(p.DTypes) > 0 && p.DTypes[0].IsFloat() }

// pyTuple writes a Python tuple of the given items (one item gets its
// trailing comma).
func pyTuple(items []string) string {
	if len(items) == 1 {
		return "(" + items[0] + ",)"
	}
	return "(" + strings.Join(items, ", ") + ")"
}
