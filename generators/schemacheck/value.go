package schemacheck

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
)

// typeSet is a set of JSON types. typeOf never answers integerType: an
// integer is a number whose value is whole, whatever its Go type.
type typeSet uint8

const (
	invalidType typeSet = 0
	nullType    typeSet = 1 << iota
	booleanType
	numberType
	integerType
	stringType
	arrayType
	objectType
)

var typeNames = map[string]typeSet{
	"null":    nullType,
	"boolean": booleanType,
	"number":  numberType,
	"integer": integerType,
	"string":  stringType,
	"array":   arrayType,
	"object":  objectType,
}

// typeOf classifies a Go value as the reference validator does: every Go
// integer and float kind and json.Number are numbers, NaN and infinities
// and any other Go type are not JSON at all.
func typeOf(v any) typeSet {
	switch v := v.(type) {
	case nil:
		return nullType
	case bool:
		return booleanType
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidType
		}
		return numberType
	case float32:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return invalidType
		}
		return numberType
	case json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return numberType
	case string:
		return stringType
	case []any:
		return arrayType
	case map[string]any:
		return objectType
	}
	return invalidType
}

// admits reports whether a value of JSON type t passes the type keyword;
// "integer" admits numbers of whole value, 1.0 included.
func (ts typeSet) admits(t typeSet, v any) bool {
	return ts&t != 0 || ts&integerType != 0 && t == numberType && isInteger(v)
}

func isInteger(v any) bool {
	switch v.(type) {
	case int64, int:
		return true
	}
	r, ok := ratOf(v)
	return ok && r.IsInt()
}

// isNumberKind lists the Go types the reference validator compares as
// numbers in const and enum (NaN included: it then equals nothing).
func isNumberKind(v any) bool {
	switch v.(type) {
	case json.Number, float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	}
	return false
}

// ratOf is the exact value of a number the way the reference validator
// reads it: the shortest decimal that fmt prints for it, so the float 0.1
// is 1/10, not the binary fraction nearest to it. int64 and int, which
// yamldef produces for every integer, skip the formatting.
func ratOf(v any) (*big.Rat, bool) {
	switch v := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(v), true
	case int:
		return new(big.Rat).SetInt64(int64(v)), true
	}
	return new(big.Rat).SetString(fmt.Sprint(v))
}

// equal is the reference validator's equality for const and enum: deep
// for arrays and objects, by value for numbers (1 == 1.0), false for
// anything that is not JSON. v is the instance, w a value of the schema.
func equal(v, w any) bool {
	switch v := v.(type) {
	case map[string]any:
		w, ok := w.(map[string]any)
		return ok && equalObjects(v, w)
	case []any:
		w, ok := w.([]any)
		return ok && equalArrays(v, w)
	case nil:
		return w == nil
	case bool:
		w, ok := w.(bool)
		return ok && v == w
	case string:
		w, ok := w.(string)
		return ok && v == w
	}
	if !isNumberKind(v) || typeOf(w) != numberType {
		return false
	}
	a, ok1 := ratOf(v)
	b, ok2 := ratOf(w)
	return ok1 && ok2 && a.Cmp(b) == 0
}

func equalObjects(v, w map[string]any) bool {
	if len(v) != len(w) {
		return false
	}
	for k, x := range v {
		y, ok := w[k]
		if !ok || !equal(x, y) {
			return false
		}
	}
	return true
}

func equalArrays(v, w []any) bool {
	if len(v) != len(w) {
		return false
	}
	for i := range v {
		if !equal(v[i], w[i]) {
			return false
		}
	}
	return true
}

// bound is the value of minimum or maximum.
type bound struct {
	rat  *big.Rat
	text string // as the schema writes it
	// whole and fits: the bound is an integer within int64, so an int64
	// instance compares without big arithmetic.
	whole int64
	fits  bool
}

func newBound(r *big.Rat) *bound {
	b := &bound{rat: r}
	if r.IsInt() && r.Num().IsInt64() {
		b.whole, b.fits = r.Num().Int64(), true
	}
	return b
}

// compare compares the number v with the bound: -1, 0 or +1. ok is false when
// v has no exact value (a malformed json.Number), which the reference
// validator does not survive either; it counts as invalid here.
func (b *bound) compare(v any) (c int, ok bool) {
	if b.fits {
		switch v := v.(type) {
		case int64:
			return cmp.Compare(v, b.whole), true
		case int:
			return cmp.Compare(int64(v), b.whole), true
		}
	}
	r, ok := ratOf(v)
	if !ok {
		return 0, false
	}
	return r.Cmp(b.rat), true
}

// names lists the types of the set in the reference validator's order.
func (ts typeSet) names() []string {
	var out []string
	for _, name := range []string{"null", "boolean", "number", "integer", "string", "array", "object"} {
		if ts&typeNames[name] != 0 {
			out = append(out, name)
		}
	}
	return out
}
