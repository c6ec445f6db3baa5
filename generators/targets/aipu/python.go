package aipu

import (
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/literal"
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

// pyDefault writes a param's default (arrays as Python lists, the values
// the Parser puts in the IR), or the Parser helpers' _REQUIRED marker when
// it has none.
func pyDefault(p *ir.Param) string {
	v, ok := literal.Default(p)
	if !ok {
		return "_REQUIRED"
	}
	return literal.Python(v)
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
		bounds += ", exclusive=" + literal.PythonTuple(literal.Python(literal.Bool(p.MinExclusive)), literal.Python(literal.Bool(p.MaxExclusive)))
	}
	return bounds
}

// pyBound writes a min/max bound, or None.
func pyBound(b *float64, float bool) string {
	if b == nil {
		return "None"
	}
	return literal.Python(literal.Number(*b, float))
}

// elemFloat reports whether a param's elements are floating point.
func elemFloat(p *ir.Param) bool { return len(p.DTypes) > 0 && p.DTypes[0].IsFloat() }
