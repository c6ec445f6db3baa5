// Package literal is the one way a value of an opdef reaches generated
// code as a literal: a param's default becomes a typed Value (Of), and one
// printer per emitted language writes it (Python, CPP). Every target and
// the reference module print defaults, bounds and value tuples through it,
// so an array is a tuple wherever Python reads it as one, a float keeps its
// point and reads back as the same number, and a string is escaped for the
// language it lands in (generators/escape).
package literal

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/ir"
)

// Kind is what a Value holds.
type Kind uint8

const (
	KindInt Kind = iota + 1
	KindFloat
	KindBool
	KindString
	KindList
	KindTuple
)

// Value is one literal value. The zero Value is no value: the printers
// print it as nothing.
type Value struct {
	kind Kind
	// digits is an integer in decimal, so int64 and uint64 values both
	// fit.
	digits string
	float  float64
	bool   bool
	// str is a String's text, or a Float's decimal spelling in the opdef
	// (spelled), which the printers keep.
	str   string
	items []Value
}

// Int is an integer value.
func Int(v int64) Value { return Value{kind: KindInt, digits: strconv.FormatInt(v, 10)} }

// Uint is an unsigned integer value (uint64 values past the int64 range).
func Uint(v uint64) Value { return Value{kind: KindInt, digits: strconv.FormatUint(v, 10)} }

// Float is a floating-point value.
func Float(v float64) Value { return Value{kind: KindFloat, float: v} }

// Bool is a boolean value.
func Bool(v bool) Value { return Value{kind: KindBool, bool: v} }

// String is a text value, printed escaped.
func String(v string) Value { return Value{kind: KindString, str: v} }

// Strings are text values, one each.
func Strings(vs ...string) []Value {
	out := make([]Value, len(vs))
	for i, v := range vs {
		out[i] = String(v)
	}
	return out
}

// List is a sequence as the language's list (Python's [...], C++'s
// braced initializer).
func List(items ...Value) Value { return Value{kind: KindList, items: items} }

// Tuple is a sequence as Python's tuple (C++ prints it as a List).
func Tuple(items ...Value) Value { return Value{kind: KindTuple, items: items} }

// Kind is what v holds; 0 for no value.
func (v Value) Kind() Kind { return v.kind }

// AsTuple is v with every list in it a tuple: how an array reaches a
// Python function whose callers pass tuples. A list of scalars shares its
// elements with v.
func (v Value) AsTuple() Value {
	if !isSequence(v) {
		return v
	}
	if !slices.ContainsFunc(v.items, isSequence) {
		return Tuple(v.items...)
	}
	items := make([]Value, len(v.items))
	for i, e := range v.items {
		items[i] = e.AsTuple()
	}
	return Tuple(items...)
}

func isSequence(v Value) bool { return v.kind == KindList || v.kind == KindTuple }

// Leaves are the scalars of v in order: the elements of a list, those of
// its lists in turn (a constant tensor's default, flattened), or v itself.
// A flat list's are its own elements, shared: do not modify them.
func (v Value) Leaves() []Value {
	switch {
	case !isSequence(v):
		return []Value{v}
	case !slices.ContainsFunc(v.items, isSequence):
		return v.items
	}
	return v.appendLeaves(make([]Value, 0, v.leafCount()))
}

func (v Value) leafCount() int {
	if !isSequence(v) {
		return 1
	}
	n := 0
	for _, e := range v.items {
		n += e.leafCount()
	}
	return n
}

func (v Value) appendLeaves(out []Value) []Value {
	if !isSequence(v) {
		return append(out, v)
	}
	for _, e := range v.items {
		out = e.appendLeaves(out)
	}
	return out
}

// Go is v as a Go value, for JSON to a Python program (verify's cases,
// the tests' expectations): int64 (uint64 past its range), float64, bool,
// string, []any; nil for no value.
func (v Value) Go() any {
	switch v.kind {
	case KindInt:
		if i, err := strconv.ParseInt(v.digits, 10, 64); err == nil {
			return i
		}
		u, _ := strconv.ParseUint(v.digits, 10, 64) // digits of a uint64
		return u
	case KindFloat:
		return v.float
	case KindBool:
		return v.bool
	case KindString:
		return v.str
	case KindList, KindTuple:
		out := make([]any, len(v.items))
		for i, e := range v.items {
			out[i] = e.Go()
		}
		return out
	}
	return nil
}

// Numeric is v with every bool the integer 1 or 0, as numpy's int8
// arrays and C's byte fields hold one (v itself where it holds no bool).
func (v Value) Numeric() Value {
	switch {
	case v.kind == KindBool && v.bool:
		return Int(1)
	case v.kind == KindBool:
		return Int(0)
	case !isSequence(v) || !slices.ContainsFunc(v.items, holdsBool):
		return v
	}
	items := make([]Value, len(v.items))
	for i, e := range v.items {
		items[i] = e.Numeric()
	}
	return Value{kind: v.kind, items: items}
}

func holdsBool(v Value) bool {
	return v.kind == KindBool || isSequence(v) && slices.ContainsFunc(v.items, holdsBool)
}

// Number is a bound of a param (min, max) as a value of its element type:
// an integer where the elements are not floating point and the bound is
// one (within 2^53, where float64 holds every integer), else a float.
func Number(v float64, float bool) Value {
	if !float && v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return Int(int64(v))
	}
	return Float(v)
}

// Of is the value literal l has as a value of param p: an enum's or a
// string param's value as its text, a bool as a Bool, a number as the
// param's element dtype says (a Float for floating-point dtypes, else an
// Int), a list as a List of its elements. The literal comes from a checked
// opdef (the validator refused what does not fit the param); a number that
// still does not parse is kept as a String rather than printed as code.
func Of(p *ir.Param, l *ir.Literal) Value {
	switch {
	case l.Kind == ir.LitList:
		items := make([]Value, len(l.List))
		for i, e := range l.List {
			items[i] = Of(p, e)
		}
		return List(items...)
	case p.Kind == ir.ParamEnum || p.Kind == ir.ParamString || l.Kind == ir.LitString:
		return String(l.Text)
	case p.Kind == ir.ParamBool || l.Kind == ir.LitBool:
		return Bool(l.Text == "true" || l.Text == "1")
	case len(p.DTypes) > 0 && p.DTypes[0].IsFloat():
		f, ok := parseFloat(l.Text)
		switch {
		case ok && plainDecimal(l.Text):
			return Value{kind: KindFloat, float: f, str: l.Text}
		case ok:
			return Float(f)
		}
		return String(l.Text)
	}
	return parseInt(l.Text)
}

// OfIndexed is Of with an enum's value as its index among the param's
// values (0 for one it does not have, which validation refused): how a
// runtime that passes no strings takes an enum.
func OfIndexed(p *ir.Param, l *ir.Literal) Value {
	if p.Kind == ir.ParamEnum && l.Kind != ir.LitList {
		return Int(int64(max(slices.Index(p.Values, l.Text), 0)))
	}
	return Of(p, l)
}

// Default is p's default as a Value (Of); ok is false when p has none.
func Default(p *ir.Param) (v Value, ok bool) {
	if p.Default == nil {
		return Value{}, false
	}
	return Of(p, p.Default), true
}

// parseFloat reads a float as either opdef format spells it (1.5, 1e3,
// 1_000.5, .inf, -.Inf, .nan).
func parseFloat(text string) (float64, bool) {
	t := strings.ToLower(strings.ReplaceAll(text, "_", ""))
	switch strings.TrimLeft(t, "+-") {
	case ".inf":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case ".nan":
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(t, 64)
	return f, err == nil
}

// parseInt reads an integer as either opdef format spells it (decimal,
// 0x.., 0o.., with _), as an Int, a Uint past the int64 range, a Float
// where it was written as one, or the text as a String where it is no
// number.
func parseInt(text string) Value {
	t := strings.ReplaceAll(text, "_", "")
	if v, err := strconv.ParseInt(t, 0, 64); err == nil {
		if canonicalDecimal(t) {
			return Value{kind: KindInt, digits: t} // as FormatInt writes it: no copy
		}
		return Int(v)
	}
	if v, err := strconv.ParseUint(t, 0, 64); err == nil {
		return Uint(v)
	}
	if f, ok := parseFloat(text); ok {
		return Float(f)
	}
	return String(text)
}

// canonicalDecimal reports whether t is an integer as FormatInt writes
// it: an optional minus, then 0 or digits without a leading zero.
func canonicalDecimal(t string) bool {
	d := strings.TrimPrefix(t, "-")
	if d == "" || d[0] == '0' && (len(d) > 1 || len(t) > 1) {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// plainDecimal reports whether t is a number both Python and C++ read as
// the decimal it says, as Go's ParseFloat does: digits with no leading
// zero (C and Go read 010 as octal), an optional fraction and exponent,
// no sign but a minus, no underscore. A float written so keeps its
// spelling (0.00001 stays 0.00001), as the opdef's comments show it.
func plainDecimal(t string) bool {
	t = strings.TrimPrefix(t, "-")
	i, n := 0, len(t)
	digits := func() int {
		start := i
		for i < n && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		return i - start
	}
	whole := digits()
	if whole > 1 && t[0] == '0' {
		return false
	}
	fraction := 0
	if i < n && t[i] == '.' {
		i++
		fraction = digits()
	}
	if whole+fraction == 0 {
		return false
	}
	if i < n && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < n && (t[i] == '-' || t[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == n
}
