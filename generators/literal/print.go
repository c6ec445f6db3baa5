package literal

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
)

// Python is v as a Python expression: integers in decimal, floats that
// read back as the same float64 and as floats (1.0, 1e-05,
// float("inf")), True and False, escaped strings, lists in brackets and
// tuples in parentheses (one element with its trailing comma).
func Python(v Value) string {
	switch v.kind {
	case KindFloat:
		var buf [32]byte
		return string(appendPythonFloat(buf[:0], v.float, v.str))
	case KindList, KindTuple:
		var buf [64]byte
		return string(appendPython(buf[:0], v))
	}
	return pythonScalar(v)
}

// pythonScalar is Python(v) of an integer, a bool or a string, which
// need no buffer.
func pythonScalar(v Value) string {
	switch v.kind {
	case KindInt:
		return v.digits
	case KindBool:
		if v.bool {
			return "True"
		}
		return "False"
	case KindString:
		return escape.PyString(v.str)
	}
	return ""
}

// appendPython appends Python(v) to b: one allocation for a whole list.
func appendPython(b []byte, v Value) []byte {
	switch v.kind {
	case KindFloat:
		return appendPythonFloat(b, v.float, v.str)
	case KindList, KindTuple:
		open, end := byte('['), "]"
		if v.kind == KindTuple {
			open, end = '(', ")"
			if len(v.items) == 1 {
				end = ",)"
			}
		}
		b = append(b, open)
		for i, e := range v.items {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendPython(b, e)
		}
		return append(b, end...)
	}
	return append(b, pythonScalar(v)...)
}

// PythonTuple is a Python tuple of items already printed as Python
// expressions: "()", "(a,)", "(a, b)".
func PythonTuple(items ...string) string {
	if len(items) == 1 {
		return "(" + items[0] + ",)"
	}
	return "(" + strings.Join(items, ", ") + ")"
}

func appendPythonFloat(b []byte, f float64, spelled string) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, `float("inf")`...)
	case math.IsInf(f, -1):
		return append(b, `float("-inf")`...)
	case math.IsNaN(f):
		return append(b, `float("nan")`...)
	}
	return appendFloat(b, f, spelled)
}

// appendFloat appends a finite float as the opdef spelled it (spelled,
// a plain decimal, or "") else as its shortest text that reads back as
// the same float64, with a point where it would read as an integer in
// Python and C++: 1 becomes "1.0"; 1.5 and 1e+30 stay.
func appendFloat(b []byte, f float64, spelled string) []byte {
	start := len(b)
	if spelled != "" {
		b = append(b, spelled...)
	} else {
		b = strconv.AppendFloat(b, f, 'g', -1, 64)
	}
	if !bytes.ContainsAny(b[start:], ".eE") {
		b = append(b, ".0"...)
	}
	return b
}

// CPP is v as a C++ expression of element type ctype (the type of each
// element of a list): an int64_t integer as int64_t{n} (its extremes as
// std::numeric_limits, since -9223372036854775808 is no literal), other
// integers in decimal; floats with their point, float ones with the f
// suffix, infinities and NaN through std::numeric_limits<ctype>; a bool
// as true/false, or as 1/0 for a ctype that is not bool (a uint8_t field
// holding one); strings escaped (escape.CString); lists and tuples as a
// braced initializer list. An integer of a float or double ctype is
// written as that float.
func CPP(v Value, ctype string) string {
	switch {
	case v.kind == KindFloat && (math.IsInf(v.float, 0) || math.IsNaN(v.float)):
		return cppNonFinite(v.float, ctype == "float")
	case v.kind == KindFloat || v.kind == KindInt && isFloatType(ctype):
		var buf [48]byte
		return string(appendCPPNumber(buf[:0], v, ctype))
	case v.kind == KindList || v.kind == KindTuple:
		var buf [64]byte
		return string(appendCPP(buf[:0], v, ctype))
	}
	return cppScalar(v, ctype)
}

func isFloatType(ctype string) bool { return ctype == "float" || ctype == "double" }

// cppScalar is CPP(v, ctype) of an integer of an integer ctype, a bool or
// a string, which need no buffer.
func cppScalar(v Value, ctype string) string {
	switch v.kind {
	case KindInt:
		return cppInt(v.digits, ctype)
	case KindBool:
		if ctype == "bool" {
			return strconv.FormatBool(v.bool)
		}
		return cppScalar(v.Numeric(), ctype)
	case KindString:
		return escape.CString(v.str)
	}
	return ""
}

// appendCPP appends CPP(v, ctype) to b: one allocation for a whole list.
func appendCPP(b []byte, v Value, ctype string) []byte {
	switch {
	case v.kind == KindFloat || v.kind == KindInt && isFloatType(ctype):
		return appendCPPNumber(b, v, ctype)
	case v.kind == KindList || v.kind == KindTuple:
		b = append(b, '{')
		for i, e := range v.items {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendCPP(b, e, ctype)
		}
		return append(b, '}')
	}
	return append(b, cppScalar(v, ctype)...)
}

// appendCPPNumber appends a Float, or an Int of a float ctype, as a
// float of ctype.
func appendCPPNumber(b []byte, v Value, ctype string) []byte {
	if v.kind == KindInt {
		f, _ := strconv.ParseFloat(v.digits, 64) // digits always parse
		return appendCPPFloat(b, f, v.digits, ctype)
	}
	return appendCPPFloat(b, v.float, v.str, ctype)
}

var (
	minInt64 = strconv.FormatInt(math.MinInt64, 10)
	maxInt64 = strconv.FormatInt(math.MaxInt64, 10)
)

func cppInt(digits, ctype string) string {
	if ctype != "int64_t" {
		return digits
	}
	switch digits {
	case minInt64:
		return "std::numeric_limits<int64_t>::min()"
	case maxInt64:
		return "std::numeric_limits<int64_t>::max()"
	}
	return "int64_t{" + digits + "}"
}

// appendCPPFloat appends f for a float (with the f suffix, so no double
// is narrowed) or, any other ctype, a double.
func appendCPPFloat(b []byte, f float64, spelled, ctype string) []byte {
	float := ctype == "float"
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, cppNonFinite(f, float)...)
	}
	b = appendFloat(b, f, spelled)
	if float {
		b = append(b, 'f')
	}
	return b
}

// cppNonFinite spells an infinity or NaN of float (else double) through
// std::numeric_limits: C++ has no literal for them.
func cppNonFinite(f float64, float bool) string {
	switch {
	case math.IsNaN(f) && float:
		return "std::numeric_limits<float>::quiet_NaN()"
	case math.IsNaN(f):
		return "std::numeric_limits<double>::quiet_NaN()"
	case f > 0 && float:
		return "std::numeric_limits<float>::infinity()"
	case f > 0:
		return "std::numeric_limits<double>::infinity()"
	case float:
		return "-std::numeric_limits<float>::infinity()"
	}
	return "-std::numeric_limits<double>::infinity()"
}
