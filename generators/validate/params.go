package validate

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

func (v *validator) param(op *ir.Op, p *ir.Param) {
	pos := p.Where.At("default", p.Pos)
	if !p.Mandatory && p.Default == nil && p.DefaultText == "" {
		v.l.Errorf(p.Where.At("mandatory", p.Pos), "param-optional-no-default", "param %q is optional but has no default; give it a default or make it mandatory", p.Name)
	}
	v.constraintIDs(p.Constraints, "param "+quote(p.Name))
	if p.Kind != ir.ParamEnum {
		v.dtypeList(p.DTypes, func(i int) diag.Pos {
			return p.Where.At("type["+strconv.Itoa(i)+"]", p.Where.At("type", p.Pos))
		}, "param "+quote(p.Name))
	}
	if p.ZeroD && p.Layout != ir.LayoutNone {
		v.l.Errorf(p.Where.At("layout", p.Pos), "scalar-layout", "param %q is 0-D but has layout %s; a 0-D tensor has no layout", p.Name, p.Layout)
	}
	switch p.Kind {
	case ir.ParamEnum:
		v.enumParam(p)
	case ir.ParamBool:
		if len(p.DTypes) > 1 {
			v.l.Errorf(p.Where.At("type", p.Pos), "bool-param-dtype", "bool param %q may have only the bool dtype, found %d dtypes", p.Name, len(p.DTypes))
		}
	}
	if p.Min != nil || p.Max != nil {
		if p.Kind != ir.ParamScalar && p.Kind != ir.ParamArray {
			v.l.Errorf(boundPos(p), "range-kind", "min/max apply to numeric params; param %q is %s", p.Name, p.Kind)
		}
		if p.Min != nil && p.Max != nil && (*p.Min > *p.Max || *p.Min == *p.Max && (p.MinExclusive || p.MaxExclusive)) {
			v.l.Errorf(boundPos(p), "range-order", "param %q has the range %s, which holds no value", p.Name, p.RangeText())
		}
		// A bound beyond every value of an integer dtype leaves no value
		// the generated range checks accept.
		for _, d := range p.DTypes {
			if !d.IsInteger() {
				continue
			}
			lo, hi := intRange(d)
			if least, ok := p.IntMin(); ok && least > hi {
				v.l.Errorf(p.Where.At("min", p.Where.At("exclusive_min", p.Pos)), "range-dtype", "param %q has the range %s, above the largest %s (%g): no value is allowed", p.Name, p.RangeText(), d, hi)
			}
			if most, ok := p.IntMax(); ok && most < lo {
				v.l.Errorf(p.Where.At("max", p.Where.At("exclusive_max", p.Pos)), "range-dtype", "param %q has the range %s, below the smallest %s (%g): no value is allowed", p.Name, p.RangeText(), d, lo)
			}
		}
	}
	if p.Default != nil {
		v.defaultValue(p, p.Default, pos)
	}
}

func (v *validator) enumParam(p *ir.Param) {
	seen := map[string]bool{}
	for _, val := range p.Values {
		if seen[val] {
			v.l.Errorf(p.Where.At("values", p.Pos), "duplicate-enum-value", "enum param %q lists %q twice", p.Name, val)
		}
		seen[val] = true
	}
	for _, d := range p.DTypes {
		if !d.IsInteger() && d != ir.Bool {
			v.l.Errorf(p.Where.At("storage", p.Where.At("datatype", p.Pos)), "enum-param-dtype", "enum param %q is passed as %s; enum values are integer indices, so use an integer dtype", p.Name, d)
		}
		if d == ir.Bool && len(p.Values) != 2 {
			v.l.Errorf(p.Where.At("values", p.Pos), "enum-param-dtype", "enum param %q with a bool dtype needs exactly 2 values, found %d", p.Name, len(p.Values))
		}
	}
}

// defaultValue checks a default against the param's kind, dtype, length,
// enum values and range.
func (v *validator) defaultValue(p *ir.Param, lit *ir.Literal, pos diag.Pos) {
	switch p.Kind {
	case ir.ParamEnum:
		if lit.Kind == ir.LitInt {
			if i, err := strconv.Atoi(lit.Text); err == nil && i >= 0 && i < len(p.Values) {
				v.l.Errorf(pos, "enum-default", "default of enum param %q is index %s; write the value itself (%s)", p.Name, lit.Text, p.Values[i])
				return
			}
			v.l.Errorf(pos, "enum-default", "default of enum param %q is index %s, which is out of range for %d values", p.Name, lit.Text, len(p.Values))
			return
		}
		for _, val := range p.Values {
			if val == lit.Text {
				return
			}
		}
		v.l.Errorf(pos, "enum-default", "default %q of enum param %q is not one of its values (%s)", lit.Text, p.Name, strings.Join(p.Values, ", "))
	case ir.ParamBool:
		if lit.Kind != ir.LitBool {
			v.l.Errorf(pos, "default-type", "default of bool param %q must be true or false, found %q", p.Name, lit.String())
		}
	case ir.ParamString:
		if lit.Kind != ir.LitString {
			v.l.Errorf(pos, "default-type", "default of string param %q must be a string, found %s", p.Name, lit.String())
		}
	case ir.ParamScalar:
		if lit.Kind == ir.LitList {
			v.l.Errorf(pos, "default-type", "default of scalar param %q must be a single value, found a list", p.Name)
			return
		}
		v.number(p, lit, pos)
	case ir.ParamArray, ir.ParamTensor:
		if lit.Kind != ir.LitList {
			v.l.Errorf(pos, "default-type", "default of %s param %q must be a list, found %q", p.Kind, p.Name, lit.String())
			return
		}
		if p.Kind == ir.ParamArray && p.Length > 0 && len(lit.List) != p.Length {
			v.l.Errorf(pos, "default-length", "default of param %q has %d elements; its type fixes %d", p.Name, len(lit.List), p.Length)
		}
		for _, el := range lit.List {
			if el.Kind == ir.LitList {
				if p.Kind == ir.ParamArray {
					v.l.Errorf(el.Pos, "default-type", "default of array param %q must be a flat list", p.Name)
				}
				continue
			}
			v.number(p, el, el.Pos)
		}
	}
}

// number checks one numeric default element against the primary dtype's
// value range and the param's min/max.
func (v *validator) number(p *ir.Param, lit *ir.Literal, pos diag.Pos) {
	if len(p.DTypes) == 0 {
		return
	}
	d := p.DTypes[0]
	var val float64
	switch {
	case d.IsInteger() || d.Kind() == ir.KindQuant:
		if lit.Kind != ir.LitInt {
			if intText().MatchString(lit.Text) {
				// An integer too large for YAML's 64 bits.
				v.l.Errorf(pos, "default-range", "default %s of param %q does not fit %s", lit.Text, p.Name, d)
				return
			}
			v.l.Errorf(pos, "default-type", "default %q of param %q is not an integer, but its dtype is %s", lit.String(), p.Name, d)
			return
		}
		i, err := strconv.ParseInt(lit.Text, 0, 64)
		if err != nil && !d.IsInteger() {
			return
		}
		if !fits(d, lit) {
			v.l.Errorf(pos, "default-range", "default %s of param %q does not fit %s", lit.Text, p.Name, d)
			return
		}
		val = float64(i)
		if err != nil {
			u, _ := strconv.ParseUint(lit.Text, 0, 64)
			val = float64(u)
		}
	case d.IsFloat():
		if lit.Kind != ir.LitInt && lit.Kind != ir.LitFloat {
			v.l.Errorf(pos, "default-type", "default %q of param %q is not a number, but its dtype is %s", lit.String(), p.Name, d)
			return
		}
		f, err := strconv.ParseFloat(lit.Text, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			v.l.Errorf(pos, "default-range", "default %s of param %q is not a finite number", lit.Text, p.Name)
			return
		}
		if m := floatMax(d); math.Abs(f) > m {
			v.l.Errorf(pos, "default-range", "default %s of param %q does not fit %s (largest finite value %g)", lit.Text, p.Name, d, m)
			return
		}
		val = f
	case d == ir.Bool:
		if lit.Kind != ir.LitBool {
			v.l.Errorf(pos, "default-type", "default %q of param %q must be true or false", lit.String(), p.Name)
		}
		return
	default:
		return
	}
	if !p.Admits(val) {
		v.l.Errorf(pos, "default-range", "default %s of param %q is outside its range %s", lit.Text, p.Name, p.RangeText())
		return
	}
	// The default is passed in every dtype the param may have.
	for _, other := range p.DTypes[1:] {
		if !fits(other, lit) {
			v.l.Errorf(pos, "default-range", "default %s of param %q does not fit %s, one of its dtypes", lit.Text, p.Name, other)
			return
		}
	}
}

// fits reports whether a numeric literal is representable in d (integer
// literals in integer dtypes, any number in float dtypes).
func fits(d ir.DType, lit *ir.Literal) bool {
	switch {
	case d.IsInteger() || d.Kind() == ir.KindQuant:
		if lit.Kind != ir.LitInt {
			return true // param-type-mix and default-type say why
		}
		return intFits(d, lit.Text)
	case d.IsFloat():
		f, err := strconv.ParseFloat(lit.Text, 64)
		return err == nil && math.Abs(f) <= floatMax(d)
	}
	return true
}

// floatMax is the largest finite value of a float dtype.
func floatMax(d ir.DType) float64 {
	switch d {
	case ir.Float16:
		return 65504
	case ir.BFloat16:
		return 3.3895313892515355e38
	case ir.Float32:
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

// boundPos is where a param's range is written: its first bound.
func boundPos(p *ir.Param) diag.Pos {
	for _, key := range []string{"min", "exclusive_min", "max", "exclusive_max"} {
		if pos, ok := p.Where.Lookup(key); ok {
			return pos
		}
	}
	return p.Pos
}

func intRange(d ir.DType) (float64, float64) {
	info := d.Info()
	bits := info.Bits
	if info.Kind == ir.KindUint || strings.HasPrefix(string(d), "quint") {
		return 0, math.Pow(2, float64(bits)) - 1
	}
	return -math.Pow(2, float64(bits-1)), math.Pow(2, float64(bits-1)) - 1
}

var intText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[-+]?[0-9]+$`) })

// intFits reports exactly (no float64 rounding at 64 bits) whether the
// integer text is a value of the integer dtype d.
func intFits(d ir.DType, text string) bool {
	bits := d.Info().Bits
	unsigned := d.Info().Kind == ir.KindUint || strings.HasPrefix(string(d), "quint")
	if i, err := strconv.ParseInt(text, 0, 64); err == nil {
		switch {
		case unsigned:
			return i >= 0 && (bits >= 64 || uint64(i) <= 1<<bits-1)
		case bits >= 64:
			return true
		}
		return i >= -(1<<(bits-1)) && i <= 1<<(bits-1)-1
	}
	if _, err := strconv.ParseUint(text, 0, 64); err == nil {
		return unsigned && bits >= 64
	}
	return false
}
