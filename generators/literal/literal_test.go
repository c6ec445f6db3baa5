package literal

import (
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/opforge/opforge/generators/ir"
)

func lit(kind ir.LiteralKind, text string) *ir.Literal { return &ir.Literal{Kind: kind, Text: text} }

func list(items ...*ir.Literal) *ir.Literal { return &ir.Literal{Kind: ir.LitList, List: items} }

var (
	f32Param  = &ir.Param{Kind: ir.ParamScalar, DTypes: []ir.DType{ir.Float32}}
	i32Param  = &ir.Param{Kind: ir.ParamScalar, DTypes: []ir.DType{ir.Int32}}
	u64Param  = &ir.Param{Kind: ir.ParamScalar, DTypes: []ir.DType{ir.Uint64}}
	boolParam = &ir.Param{Kind: ir.ParamBool, DTypes: []ir.DType{ir.Bool}}
	enumParam = &ir.Param{Kind: ir.ParamEnum, Values: []string{"avg", "max"}, DTypes: []ir.DType{ir.Int32}}
	strParam  = &ir.Param{Kind: ir.ParamString}
	i32Array  = &ir.Param{Kind: ir.ParamArray, DTypes: []ir.DType{ir.Int32}}
	f32Tensor = &ir.Param{Kind: ir.ParamTensor, DTypes: []ir.DType{ir.Float32}}
)

// TestOfAndPrint: a param's literal as the value its kind and dtype make
// it, printed in Python (lists as tuples where the callers pass tuples)
// and C++.
func TestOfAndPrint(t *testing.T) {
	for _, c := range []struct {
		name          string
		p             *ir.Param
		l             *ir.Literal
		ctype         string
		python, tuple string
		cpp           string
	}{
		{"float", f32Param, lit(ir.LitFloat, "1.0"), "float", "1.0", "1.0", "1.0f"},
		{"float written as int", f32Param, lit(ir.LitInt, "1"), "float", "1.0", "1.0", "1.0f"},
		{"float as spelled", f32Param, lit(ir.LitFloat, "0.00001"), "float", "0.00001", "0.00001", "0.00001f"},
		{"float exponent as spelled", f32Param, lit(ir.LitFloat, "1e3"), "double", "1e3", "1e3", "1e3"},
		{"float hex", f32Param, lit(ir.LitFloat, "0x1p-2"), "float", "0.25", "0.25", "0.25f"},
		{"float plus", f32Param, lit(ir.LitFloat, "+1.5"), "float", "1.5", "1.5", "1.5f"},
		{"float leading zero", f32Param, lit(ir.LitFloat, "010.5"), "float", "10.5", "10.5", "10.5f"},
		{"float round trip", f32Param, lit(ir.LitFloat, "0.1"), "float", "0.1", "0.1", "0.1f"},
		{"float large", f32Param, lit(ir.LitFloat, "1E30"), "float", "1E30", "1E30", "1E30f"},
		{"float small", f32Param, lit(ir.LitFloat, "-2.5e-7"), "float", "-2.5e-7", "-2.5e-7", "-2.5e-7f"},
		{"float point only", f32Param, lit(ir.LitFloat, "5."), "float", "5.", "5.", "5.f"},
		{"float underscores", f32Param, lit(ir.LitFloat, "1_000.5"), "float", "1000.5", "1000.5", "1000.5f"},
		{"inf", f32Param, lit(ir.LitFloat, ".inf"), "float", `float("inf")`, `float("inf")`, "std::numeric_limits<float>::infinity()"},
		{"-inf", f32Param, lit(ir.LitFloat, "-.Inf"), "double", `float("-inf")`, `float("-inf")`, "-std::numeric_limits<double>::infinity()"},
		{"nan", f32Param, lit(ir.LitFloat, ".nan"), "float", `float("nan")`, `float("nan")`, "std::numeric_limits<float>::quiet_NaN()"},
		{"int", i32Param, lit(ir.LitInt, "-3"), "int32_t", "-3", "-3", "-3"},
		{"int hex", i32Param, lit(ir.LitInt, "0x10"), "int32_t", "16", "16", "16"},
		{"int octal", i32Param, lit(ir.LitInt, "0o17"), "int32_t", "15", "15", "15"},
		{"int minus zero", i32Param, lit(ir.LitInt, "-0"), "int32_t", "0", "0", "0"},
		{"int leading zeros", i32Param, lit(ir.LitInt, "007"), "int32_t", "7", "7", "7"},
		{"int underscores", i32Param, lit(ir.LitInt, "1_000"), "int64_t", "1000", "1000", "int64_t{1000}"},
		{"int64 min", i32Param, lit(ir.LitInt, "-9223372036854775808"), "int64_t", "-9223372036854775808", "-9223372036854775808", "std::numeric_limits<int64_t>::min()"},
		{"uint64 max", u64Param, lit(ir.LitInt, "18446744073709551615"), "uint64_t", "18446744073709551615", "18446744073709551615", "18446744073709551615"},
		{"bool", boolParam, lit(ir.LitBool, "true"), "bool", "True", "True", "true"},
		{"bool in a byte", boolParam, lit(ir.LitBool, "false"), "uint8_t", "False", "False", "0"},
		{"enum", enumParam, lit(ir.LitString, "max"), "", `"max"`, `"max"`, `"max"`},
		{"string", strParam, lit(ir.LitString, "a \"q\"\n??!"), "", `"a \"q\"\n??!"`, `"a \"q\"\n??!"`, `"a \"q\"\012\?\?!"`},
		{"array", i32Array, list(lit(ir.LitInt, "7"), lit(ir.LitInt, "7")), "int32_t", "[7, 7]", "(7, 7)", "{7, 7}"},
		{"array of one", i32Array, list(lit(ir.LitInt, "1")), "int64_t", "[1]", "(1,)", "{int64_t{1}}"},
		{"empty array", i32Array, list(), "int32_t", "[]", "()", "{}"},
		{"tensor", f32Tensor, list(list(lit(ir.LitInt, "1")), list(lit(ir.LitFloat, "0.5"))), "float", "[[1.0], [0.5]]", "((1.0,), (0.5,))", "{{1.0f}, {0.5f}}"},
		{"not a number", i32Param, lit(ir.LitInt, "N-1"), "int32_t", `"N-1"`, `"N-1"`, `"N-1"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Of(c.p, c.l)
			if got := Python(v); got != c.python {
				t.Errorf("Python = %s, want %s", got, c.python)
			}
			if got := Python(v.AsTuple()); got != c.tuple {
				t.Errorf("Python(AsTuple) = %s, want %s", got, c.tuple)
			}
			if got := CPP(v, c.ctype); got != c.cpp {
				t.Errorf("CPP(%s) = %s, want %s", c.ctype, got, c.cpp)
			}
		})
	}
}

// TestFloatsRoundTrip: every float printed reads back as the same float64
// and as a float (a point or an exponent), whatever its size.
func TestFloatsRoundTrip(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.1, 1.0 / 3, 5e9, 1e21, 1e-7, math.MaxFloat32, math.SmallestNonzeroFloat64, math.MaxFloat64, 123456789012345678} {
		s := Python(Float(f))
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != f {
			t.Errorf("%v printed as %s reads back as %v (%v)", f, s, back, err)
		}
		if !readsAsFloat(s) {
			t.Errorf("%v printed as %s does not read as a float", f, s)
		}
	}
}

func readsAsFloat(s string) bool {
	for _, c := range s {
		if c == '.' || c == 'e' {
			return true
		}
	}
	return false
}

func TestDefaultNumberAndNumeric(t *testing.T) {
	if _, ok := Default(&ir.Param{}); ok {
		t.Error("a param without a default has one")
	}
	if v, ok := Default(&ir.Param{Kind: ir.ParamBool, Default: lit(ir.LitBool, "true")}); !ok || Python(v) != "True" || Python(v.Numeric()) != "1" {
		t.Errorf("bool default: %s, numeric %s", Python(v), Python(v.Numeric()))
	}
	for _, c := range []struct {
		v     float64
		float bool
		want  string
	}{{0, false, "0"}, {2.5, false, "2.5"}, {2, true, "2.0"}, {1 << 60, false, "1.152921504606847e+18"}} {
		if got := Python(Number(c.v, c.float)); got != c.want {
			t.Errorf("Number(%v, %v) = %s, want %s", c.v, c.float, got, c.want)
		}
	}
	for text, want := range map[string]string{"max": "1", "avg": "0", "none": "0"} {
		if got := Python(OfIndexed(enumParam, lit(ir.LitString, text))); got != want {
			t.Errorf("OfIndexed(%s) = %s, want %s", text, got, want)
		}
	}
	if got := Python(OfIndexed(i32Array, list(lit(ir.LitInt, "2")))); got != "[2]" {
		t.Errorf("OfIndexed of an array: %s", got)
	}
	if got := Python(Tuple(Strings("X2_1204")...)); got != `("X2_1204",)` {
		t.Errorf("tuple of one string: %s", got)
	}
	if got := Python(List(Bool(true), Int(2), List(Bool(false))).Numeric()); got != "[1, 2, [0]]" {
		t.Errorf("Numeric of a list: %s", got)
	}
	leaves := Of(f32Tensor, list(list(lit(ir.LitInt, "1"), lit(ir.LitInt, "2")), list(lit(ir.LitInt, "3")))).Leaves()
	if got := Python(List(leaves...)); got != "[1.0, 2.0, 3.0]" {
		t.Errorf("leaves: %s", got)
	}
	got := Of(i32Array, list(lit(ir.LitInt, "7"), lit(ir.LitInt, "18446744073709551615"))).Go()
	if want := []any{int64(7), uint64(math.MaxUint64)}; !reflect.DeepEqual(got, want) {
		t.Errorf("Go() = %#v, want %#v", got, want)
	}
	if got := List(Float(0.5), Bool(true), String("s")).Go(); !reflect.DeepEqual(got, []any{0.5, true, "s"}) {
		t.Errorf("Go() = %#v", got)
	}
	if (Value{}).Kind() != 0 || (Value{}).Go() != nil || Python(Value{}) != "" || CPP(Value{}, "int") != "" {
		t.Error("the zero Value prints")
	}
}

// TestPlainDecimal: the spellings kept are those Python, C++ and Go all
// read as the same decimal.
func TestPlainDecimal(t *testing.T) {
	for text, want := range map[string]bool{
		"0": true, "1": true, "-1.5": true, "0.00001": true, ".5": true, "5.": true, "1e3": true, "1E-3": true, "2.5e+10": true, "0.5": true,
		"": false, "-": false, ".": false, "e3": false, "1e": false, "1e+": false, "+1.5": false, "010": false, "00.5": false,
		"1_000.5": false, "0x1p-2": false, ".inf": false, "nan": false, "1.5f": false, "1..2": false,
	} {
		if got := plainDecimal(text); got != want {
			t.Errorf("plainDecimal(%q) = %v, want %v", text, got, want)
		}
	}
}
