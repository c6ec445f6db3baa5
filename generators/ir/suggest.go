package ir

import (
	"strings"

	"github.com/opforge/opforge/generators/names"
)

// dtypeSpellings are the names other tools give opforge's dtypes: C,
// numpy/torch short forms and common abbreviations. Each maps to exactly
// one dtype, so a suggestion is never a guess between two.
var dtypeSpellings = map[string]DType{
	"float": Float32, "fp32": Float32, "f32": Float32, "single": Float32,
	"double": Float64, "fp64": Float64, "f64": Float64,
	"half": Float16, "fp16": Float16, "f16": Float16,
	"bf16": BFloat16, "bfloat": BFloat16,
	"fp8": Float8E4, "float8": Float8E4, "e4m3": Float8E4,
	"int": Int32, "i32": Int32, "long": Int64, "i64": Int64, "short": Int16, "i16": Int16, "char": Int8, "i8": Int8,
	"uint": Uint32, "unsigned": Uint32, "u32": Uint32, "u64": Uint64, "ulong": Uint64, "u16": Uint16, "ushort": Uint16,
	"u8": Uint8, "byte": Uint8, "uchar": Uint8,
	"boolean": Bool, "str": String,
}

// SuggestDType names the dtype a misspelled or foreign dtype name most
// likely means ("" when none is close): float → float32, fp16 → float16,
// torch.int64 → int64, flaot32 → float32.
func SuggestDType(name string) DType {
	s := strings.ToLower(strings.TrimSpace(name))
	for _, prefix := range []string{"torch.", "np.", "numpy.", "tf.", "dtype."} {
		s = strings.TrimPrefix(s, prefix)
	}
	if d := DType(s); d.Valid() {
		return d
	}
	if d, ok := dtypeSpellings[s]; ok {
		return d
	}
	// The one nearest name within two edits; two equally near are a guess.
	best, bestD, ties := DType(""), 3, 0
	for _, d := range dtypeTable {
		switch n := names.Distance(s, string(d.Name)); {
		case n < bestD:
			best, bestD, ties = d.Name, n, 0
		case n == bestD:
			ties++
		}
	}
	if ties > 0 {
		return ""
	}
	return best
}
