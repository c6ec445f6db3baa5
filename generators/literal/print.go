package literal

import (
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
	case KindInt:
		return v.digits
	case KindFloat:
		return pythonFloat(v.float)
	case KindBool:
		if v.bool {
			return "True"
		}
		return "False"
	case KindString:
		return escape.PyString(v.str)
	case KindList:
		return "[" + strings.Join(pythonItems(v.items), ", ") + "]"
	case KindTuple:
		return PythonTuple(pythonItems(v.items)...)
	}
	return ""
}

// PythonTuple is a Python tuple of items already printed as Python
// expressions: "()", "(a,)", "(a, b)".
func PythonTuple(items ...string) string {
	if len(items) == 1 {
		return "(" + items[0] + ",)"
	}
	return "(" + strings.Join(items, ", ") + ")"
}

func pythonItems(vs []Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = Python(v)
	}
	return out
}

func pythonFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return `float("inf")`
	case math.IsInf(f, -1):
		return `float("-inf")`
	case math.IsNaN(f):
		return `float("nan")`
	}
	return withPoint(strconv.FormatFloat(f, 'g', -1, 64))
}

// withPoint makes a finite float's shortest text read as a float in
// Python and C++: "1" becomes "1.0"; "1.5" and "1e+30" stay.
func withPoint(s string) string {
	if !strings.ContainsAny(s, ".e") {
		return s + ".0"
	}
	return s
}

// CPP is v as a C++ expression of element type ctype (the type of each
// element of a list): an int64_t integer as int64_t{n} (its extremes as
// std::numeric_limits, since -9223372036854775808 is no literal), other
// integers in decimal; floats with their point, float ones with the f
// suffix, infinities and NaN through std::numeric_limits<ctype>; a bool
// as true/false, or as 1/0 for a ctype that is not bool (a uint8_t field
// holding one); strings escaped (escape.CString); lists and tuples as a
// braced initializer list.
func CPP(v Value, ctype string) string {
	switch v.kind {
	case KindInt:
		if ctype == "float" || ctype == "double" {
			f, _ := strconv.ParseFloat(v.digits, 64) // digits always parse
			return cppFloat(f, ctype)
		}
		return cppInt(v.digits, ctype)
	case KindFloat:
		return cppFloat(v.float, ctype)
	case KindBool:
		if ctype == "bool" {
			return strconv.FormatBool(v.bool)
		}
		return CPP(v.Numeric(), ctype)
	case KindString:
		return escape.CString(v.str)
	case KindList, KindTuple:
		items := make([]string, len(v.items))
		for i, e := range v.items {
			items[i] = CPP(e, ctype)
		}
		return "{" + strings.Join(items, ", ") + "}"
	}
	return ""
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

// cppFloat writes f for a float (with the f suffix, so no double is
// narrowed) or, any other ctype, a double.
func cppFloat(f float64, ctype string) string {
	if ctype != "float" {
		ctype = "double"
	}
	limits := "std::numeric_limits<" + ctype + ">::"
	switch {
	case math.IsInf(f, 1):
		return limits + "infinity()"
	case math.IsInf(f, -1):
		return "-" + limits + "infinity()"
	case math.IsNaN(f):
		return limits + "quiet_NaN()"
	}
	s := withPoint(strconv.FormatFloat(f, 'g', -1, 64))
	if ctype == "float" {
		s += "f"
	}
	return s
}
