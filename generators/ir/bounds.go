package ir

import (
	"math"
	"strconv"
)

// Admits reports whether v lies within the param's bounds (strict where
// the bound is exclusive). NaN lies within no bound.
func (p *Param) Admits(v float64) bool {
	if p.Min != nil && (v < *p.Min || p.MinExclusive && v == *p.Min || math.IsNaN(v)) {
		return false
	}
	if p.Max != nil && (v > *p.Max || p.MaxExclusive && v == *p.Max || math.IsNaN(v)) {
		return false
	}
	return true
}

// IntMin is the least integer the lower bound admits (ceil of an inclusive
// bound, the next integer above an exclusive one); ok is false without a
// lower bound.
func (p *Param) IntMin() (v float64, ok bool) {
	if p.Min == nil {
		return 0, false
	}
	if p.MinExclusive {
		return math.Floor(*p.Min) + 1, true
	}
	return math.Ceil(*p.Min), true
}

// IntMax is the greatest integer the upper bound admits.
func (p *Param) IntMax() (v float64, ok bool) {
	if p.Max == nil {
		return 0, false
	}
	if p.MaxExclusive {
		return math.Ceil(*p.Max) - 1, true
	}
	return math.Floor(*p.Max), true
}

// RangeText is the param's range in interval notation, a parenthesis at
// an exclusive bound: "[0, 1]", "(0, +inf]".
func (p *Param) RangeText() string {
	lo, hi, open, shut := "-inf", "+inf", "[", "]"
	if p.Min != nil {
		lo = strconv.FormatFloat(*p.Min, 'g', -1, 64)
	}
	if p.MinExclusive {
		open = "("
	}
	if p.Max != nil {
		hi = strconv.FormatFloat(*p.Max, 'g', -1, 64)
	}
	if p.MaxExclusive {
		shut = ")"
	}
	return open + lo + ", " + hi + shut
}

// MinText and MaxText are the bounds as comparisons ("> 0", "<= 1"); ""
// without one.
func (p *Param) MinText() string {
	if p.Min == nil {
		return ""
	}
	op := ">= "
	if p.MinExclusive {
		op = "> "
	}
	return op + strconv.FormatFloat(*p.Min, 'g', -1, 64)
}

// MaxText is MinText for the upper bound.
func (p *Param) MaxText() string {
	if p.Max == nil {
		return ""
	}
	op := "<= "
	if p.MaxExclusive {
		op = "< "
	}
	return op + strconv.FormatFloat(*p.Max, 'g', -1, 64)
}
