package schemacheck_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/opforge/opforge/generators/schemacheck"
	"github.com/opforge/opforge/schemas"
)

// reference compiles doc with the validator schemacheck stands in for.
func reference(t *testing.T, doc string) *jsonschema.Schema {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem://s.json", v); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem://s.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func quick(t *testing.T, doc string) *schemacheck.Schema {
	t.Helper()
	s, err := schemacheck.Compile([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s[0]
}

type notJSON struct{}

// TestKeywords checks each keyword's verdicts, edge cases included, and
// that the reference validator gives the same ones: the expectations
// pin its semantics, not a reading of the specification.
func TestKeywords(t *testing.T) {
	const dollarDefs = `"$defs": {"base": {"properties": {"a": {"type": "integer"}, "b": true}, "required": ["a"]}, ` +
		`"open": {"additionalProperties": {"type": "string"}}, "chain": {"$ref": "#/$defs/base", "properties": {"c": true}}}`
	tests := []struct {
		name   string
		schema string
		value  any
		want   bool
	}{
		{"true accepts anything", `true`, notJSON{}, true},
		{"false rejects everything", `false`, nil, false},
		{"empty schema accepts JSON", `{}`, map[string]any{"a": []any{1.5}}, true},
		{"empty schema is true", `{}`, notJSON{}, true},
		{"annotation rejects a Go struct", `{"description": "d"}`, notJSON{}, false},
		{"annotation rejects map[string]int", `{"title": "t"}`, map[string]int{}, false},
		{"annotation rejects NaN", `{"description": "d"}`, math.NaN(), false},
		{"annotation rejects +Inf", `{"description": "d"}`, math.Inf(1), false},
		{"nested non-JSON unchecked by true", `{"properties": {"a": true}}`, map[string]any{"a": notJSON{}}, true},
		{"nested non-JSON unchecked by {}", `{"properties": {"a": {}}}`, map[string]any{"a": notJSON{}}, true},
		{"nested non-JSON checked by a keyword", `{"properties": {"a": {"$comment": "c"}}}`, map[string]any{"a": notJSON{}}, false},
		{"nested non-JSON without a schema", `{"type": "object"}`, map[string]any{"a": notJSON{}}, true},

		{"type integer int64", `{"type": "integer"}`, int64(3), true},
		{"type integer int", `{"type": "integer"}`, -3, true},
		{"type integer uint8", `{"type": "integer"}`, uint8(3), true},
		{"type integer whole float", `{"type": "integer"}`, 2.0, true},
		{"type integer negative zero", `{"type": "integer"}`, math.Copysign(0, -1), true},
		{"type integer large float", `{"type": "integer"}`, 1e21, true},
		{"type integer fraction", `{"type": "integer"}`, 2.5, false},
		{"type integer tiny fraction", `{"type": "integer"}`, 1 + 1e-15, false},
		{"type integer whole float32", `{"type": "integer"}`, float32(4), true},
		{"type integer json.Number 2.0", `{"type": "integer"}`, json.Number("2.0"), true},
		{"type integer json.Number 2.5", `{"type": "integer"}`, json.Number("2.5"), false},
		{"type integer string", `{"type": "integer"}`, "3", false},
		{"type number int64", `{"type": "number"}`, int64(3), true},
		{"type number bool", `{"type": "number"}`, true, false},
		{"type null", `{"type": "null"}`, nil, true},
		{"type null false", `{"type": "null"}`, false, false},
		{"type boolean", `{"type": "boolean"}`, false, true},
		{"type array", `{"type": "array"}`, []any{}, true},
		{"type array of strings is not []any", `{"type": "array"}`, []string{}, false},
		{"type object", `{"type": "object"}`, map[string]any{}, true},
		{"type object array", `{"type": "object"}`, []any{}, false},
		{"type list string", `{"type": ["string", "number"]}`, "x", true},
		{"type list number", `{"type": ["string", "number"]}`, 1.5, true},
		{"type list bool", `{"type": ["string", "number"]}`, true, false},
		{"type list integer admits whole float", `{"type": ["string", "integer"]}`, 7.0, true},

		{"const 1 int64", `{"const": 1}`, int64(1), true},
		{"const 1 float", `{"const": 1}`, 1.0, true},
		{"const 1.0 int", `{"const": 1.0}`, 1, true},
		{"const 1 json.Number 1e0", `{"const": 1}`, json.Number("1e0"), true},
		{"const 1 string", `{"const": 1}`, "1", false},
		{"const 1 true", `{"const": 1}`, true, false},
		{"const 1 two", `{"const": 1}`, int64(2), false},
		{"const null", `{"const": null}`, nil, true},
		{"const null false", `{"const": null}`, false, false},
		{"const object", `{"const": {"a": [1, "x"]}}`, map[string]any{"a": []any{1.0, "x"}}, true},
		{"const object extra key", `{"const": {"a": 1}}`, map[string]any{"a": 1, "b": 1}, false},
		{"const object other key", `{"const": {"a": 1}}`, map[string]any{"b": 1}, false},
		{"const array order", `{"const": [1, 2]}`, []any{2, 1}, false},
		{"const array length", `{"const": [1, 2]}`, []any{1}, false},
		{"const with non-JSON inside", `{"const": {"a": 1}}`, map[string]any{"a": notJSON{}}, false},
		{"const 0.1 float", `{"const": 0.1}`, 0.1, true},

		{"enum string", `{"enum": ["a", "b"]}`, "b", true},
		{"enum string absent", `{"enum": ["a", "b"]}`, "c", false},
		{"enum number by value", `{"enum": ["a", 2]}`, 2.0, true},
		{"enum string is not a number", `{"enum": [2]}`, "2", false},
		{"enum number is not a string", `{"enum": ["2"]}`, int64(2), false},
		{"enum null", `{"enum": [null, "a"]}`, nil, true},
		{"enum bool", `{"enum": [true]}`, false, false},
		{"enum array", `{"enum": [[1, "a"]]}`, []any{int64(1), "a"}, true},
		{"enum empty", `{"enum": []}`, "a", false},

		{"pattern unanchored", `{"pattern": "b"}`, "abc", true},
		{"pattern anchored", `{"pattern": "^b"}`, "abc", false},
		{"pattern ignores numbers", `{"pattern": "^a$"}`, int64(1), true},
		{"pattern unicode class", `{"pattern": "^\\pL+$"}`, "héllo", true},
		{"pattern \\d is ASCII", `{"pattern": "^\\d$"}`, "٣", false},
		{"pattern dot and newline", `{"pattern": "^a.b$"}`, "a\nb", false},
		{"pattern identifier", `{"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}`, "x_1", true},
		{"pattern identifier digit first", `{"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}`, "1x", false},

		{"minLength code points", `{"minLength": 2}`, "é", false},
		{"minLength two code points", `{"minLength": 2}`, "éé", true},
		{"maxLength code points", `{"maxLength": 1}`, "é", true},
		{"maxLength invalid UTF-8 byte", `{"maxLength": 1}`, "\xff\xfe", false},
		{"maxLength empty", `{"maxLength": 0}`, "", true},
		{"minLength ignores arrays", `{"minLength": 2}`, []any{}, true},
		{"minLength 1.0", `{"minLength": 1.0}`, "", false},

		{"minimum int64 equal", `{"minimum": 0}`, int64(0), true},
		{"minimum int64 below", `{"minimum": 0}`, int64(-1), false},
		{"minimum float below", `{"minimum": 0}`, -1e-300, false},
		{"minimum fraction bound int", `{"minimum": 0.5}`, int64(1), true},
		{"minimum fraction bound below", `{"minimum": 0.5}`, int64(0), false},
		{"minimum huge bound", `{"minimum": 1e30}`, int64(math.MaxInt64), false},
		{"minimum uint64 max", `{"minimum": 18446744073709551615}`, uint64(math.MaxUint64), true},
		{"minimum ignores strings", `{"minimum": 0}`, "-1", true},
		{"maximum whole float", `{"maximum": 8}`, 8.0, true},
		{"maximum just above", `{"maximum": 8}`, 8.000000000000002, false},
		{"maximum int64 above", `{"maximum": 8}`, int64(9), false},
		// The reference reads 0.1 as the decimal it prints, 1/10, not as
		// the binary fraction just above it.
		{"maximum 0.1 float", `{"maximum": 0.1}`, 0.1, true},
		{"minimum 0.1 float", `{"minimum": 0.1}`, 0.1, true},
		{"maximum float32", `{"maximum": 0.1}`, float32(0.1), true},
		{"maximum json.Number", `{"maximum": 1}`, json.Number("1.0000000000000000000001"), false},
		{"minimum negative bound", `{"minimum": -9223372036854775808}`, int64(math.MinInt64), true},

		{"minItems", `{"minItems": 1}`, []any{}, false},
		{"minItems ok", `{"minItems": 1}`, []any{nil}, true},
		{"maxItems", `{"maxItems": 1}`, []any{1, 2}, false},
		{"maxItems ignores objects", `{"maxItems": 0}`, map[string]any{"a": 1}, true},
		{"items", `{"items": {"type": "string"}}`, []any{"a", "b"}, true},
		{"items one bad", `{"items": {"type": "string"}}`, []any{"a", 1}, false},
		{"items false", `{"items": false}`, []any{}, true},
		{"items false non-empty", `{"items": false}`, []any{1}, false},

		{"required", `{"required": ["a", "b"]}`, map[string]any{"a": 1}, false},
		{"required null value present", `{"required": ["a"]}`, map[string]any{"a": nil}, true},
		{"required ignores arrays", `{"required": ["a"]}`, []any{}, true},
		{"properties", `{"properties": {"a": {"type": "string"}}}`, map[string]any{"a": 1}, false},
		{"properties other member", `{"properties": {"a": {"type": "string"}}}`, map[string]any{"b": 1}, true},
		{"additionalProperties false", `{"properties": {"a": true}, "additionalProperties": false}`, map[string]any{"a": 1, "b": 2}, false},
		{"additionalProperties false known", `{"properties": {"a": true}, "additionalProperties": false}`, map[string]any{"a": 1}, true},
		{"additionalProperties schema", `{"properties": {"a": true}, "additionalProperties": {"type": "string"}}`, map[string]any{"a": 1, "b": "x"}, true},
		{"additionalProperties schema bad", `{"additionalProperties": {"type": "string"}}`, map[string]any{"b": 1}, false},
		{"propertyNames", `{"propertyNames": {"pattern": "^[a-z]+$"}}`, map[string]any{"ab": 1}, true},
		{"propertyNames bad", `{"propertyNames": {"pattern": "^[a-z]+$"}}`, map[string]any{"aB": 1}, false},
		{"propertyNames maxLength", `{"propertyNames": {"maxLength": 1}}`, map[string]any{"é": 1}, true},
		{"propertyNames false empty", `{"propertyNames": false}`, map[string]any{}, true},

		{"allOf all", `{"allOf": [{"type": "integer"}, {"minimum": 1}]}`, int64(2), true},
		{"allOf one fails", `{"allOf": [{"type": "integer"}, {"minimum": 1}]}`, int64(0), false},
		{"oneOf none", `{"oneOf": [{"type": "string"}, {"type": "integer"}]}`, true, false},
		{"oneOf one", `{"oneOf": [{"type": "string"}, {"type": "integer"}]}`, int64(1), true},
		{"oneOf two", `{"oneOf": [{"type": "number"}, {"type": "integer"}]}`, int64(1), false},
		{"oneOf two of three", `{"oneOf": [{"type": "number"}, {"type": "integer"}, {"type": "string"}]}`, 1.5, true},
		{"oneOf dim negative", `{"oneOf": [{"type": "integer", "minimum": 0}, {"type": "string", "minLength": 1}]}`, int64(-1), false},

		{"$ref", `{"$ref": "#/$defs/s", "$defs": {"s": {"type": "string"}}}`, "x", true},
		{"$ref fails", `{"$ref": "#/$defs/s", "$defs": {"s": {"type": "string"}}}`, 1, false},
		{"$ref with sibling", `{"$ref": "#/$defs/s", "maxLength": 1, "$defs": {"s": {"type": "string"}}}`, "xy", false},
		{"$ref to false", `{"$ref": "#/$defs/s", "$defs": {"s": false}}`, "x", false},

		{"unevaluatedProperties via $ref", `{"$ref": "#/$defs/base", "unevaluatedProperties": false, ` + dollarDefs + `}`, map[string]any{"a": 1, "b": 2}, true},
		{"unevaluatedProperties own", `{"$ref": "#/$defs/base", "properties": {"c": true}, "unevaluatedProperties": false, ` + dollarDefs + `}`, map[string]any{"a": 1, "c": 2}, true},
		{"unevaluatedProperties unknown", `{"$ref": "#/$defs/base", "unevaluatedProperties": false, ` + dollarDefs + `}`, map[string]any{"a": 1, "z": 2}, false},
		{"unevaluatedProperties ref fails", `{"$ref": "#/$defs/base", "unevaluatedProperties": false, ` + dollarDefs + `}`, map[string]any{"a": "x"}, false},
		{"unevaluatedProperties chain", `{"$ref": "#/$defs/chain", "unevaluatedProperties": false, ` + dollarDefs + `}`, map[string]any{"a": 1, "b": 1, "c": 1}, true},
		{"unevaluatedProperties chain unknown", `{"$ref": "#/$defs/chain", "unevaluatedProperties": false, ` + dollarDefs + `}`, map[string]any{"a": 1, "d": 1}, false},
		{"unevaluatedProperties ref additional", `{"$ref": "#/$defs/open", "unevaluatedProperties": false, ` + dollarDefs + `}`, map[string]any{"z": "x"}, true},
		{"unevaluatedProperties schema", `{"properties": {"a": true}, "unevaluatedProperties": {"type": "integer"}}`, map[string]any{"a": "x", "z": 1}, true},
		{"unevaluatedProperties schema bad", `{"properties": {"a": true}, "unevaluatedProperties": {"type": "integer"}}`, map[string]any{"z": "x"}, false},
		{"unevaluatedProperties own additional", `{"additionalProperties": true, "unevaluatedProperties": false}`, map[string]any{"z": 1}, true},
		{"unevaluatedProperties non-object", `{"unevaluatedProperties": false}`, "x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := quick(t, tt.schema).Valid(tt.value); got != tt.want {
				t.Errorf("schemacheck: Valid(%#v) = %v, want %v", tt.value, got, tt.want)
			}
			if got := reference(t, tt.schema).Validate(tt.value) == nil; got != tt.want {
				t.Errorf("jsonschema: valid(%#v) = %v, want %v (the expectation is wrong)", tt.value, got, tt.want)
			}
		})
	}
}

// TestCompileRefuses: a keyword outside the subset fails Compile, naming
// it, so a Schema never accepts what the reference validator rejects.
func TestCompileRefuses(t *testing.T) {
	tests := []struct {
		schema string
		want   string
	}{
		{`{"anyOf": [true]}`, `"anyOf"`},
		{`{"not": false}`, `"not"`},
		{`{"if": true, "then": false}`, `"if"`},
		{`{"patternProperties": {"a": true}}`, `"patternProperties"`},
		{`{"prefixItems": [true]}`, `"prefixItems"`},
		{`{"contains": true}`, `"contains"`},
		{`{"uniqueItems": true}`, `"uniqueItems"`},
		{`{"format": "email"}`, `"format"`},
		{`{"exclusiveMinimum": 0}`, `"exclusiveMinimum"`},
		{`{"multipleOf": 2}`, `"multipleOf"`},
		{`{"minProperties": 1}`, `"minProperties"`},
		{`{"dependentRequired": {}}`, `"dependentRequired"`},
		{`{"unevaluatedItems": false}`, `"unevaluatedItems"`},
		{`{"$anchor": "a"}`, `"$anchor"`},
		{`{"$dynamicRef": "#a"}`, `"$dynamicRef"`},
		{`{"x-custom": 1}`, `"x-custom"`},
		{`{"properties": {"a": {"$id": "other"}}}`, `#/properties/a: keyword "$id"`},
		{`{"$schema": "http://json-schema.org/draft-07/schema#"}`, `$schema: dialect`},
		{`{"$ref": "#"}`, `#/$ref: reference # is not supported`},
		{`{"$ref": "other.json#/$defs/a"}`, `#/$ref: reference other.json`},
		{`{"$ref": "#/$defs/a/properties/b", "$defs": {"a": {}}}`, `#/$ref: reference`},
		{`{"$ref": "#/$defs/missing"}`, `names no member`},
		{`{"$ref": "#/$defs/a", "$defs": {"a": {"items": {"$ref": "#/$defs/a"}}}}`, `#/$defs/a/items/$ref: recursive reference`},
		{`{"$ref": "#/$defs/a", "$defs": {"a": {"oneOf": [true]}}, "unevaluatedProperties": false}`, `#/unevaluatedProperties: oneOf`},
		{`{"oneOf": [true], "unevaluatedProperties": false}`, `#/unevaluatedProperties: oneOf`},
		{`{"type": "integral"}`, `#/type:`},
		{`{"type": ["string", "string"]}`, `#/type:`},
		{`{"minLength": -1}`, `#/minLength:`},
		{`{"maxItems": 1.5}`, `#/maxItems:`},
		{`{"minimum": "0"}`, `#/minimum:`},
		{`{"pattern": "("}`, `#/pattern:`},
		{`{"required": [1]}`, `#/required:`},
		{`{"oneOf": []}`, `#/oneOf:`},
		{`{"properties": {"a/b": 1}}`, `#/properties/a~1b: a schema is`},
		{`{"items": {"allOf": []}}`, `#/items/allOf:`},
		{`{"allOf": [true], "unevaluatedProperties": false}`, `#/unevaluatedProperties: oneOf or allOf`},
		{`[]`, `#: a schema is`},
		{`{} {}`, `after top-level value`},
	}
	for _, tt := range tests {
		t.Run(tt.schema, func(t *testing.T) {
			_, err := schemacheck.Compile([]byte(tt.schema))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compile(%s) = %v, want an error containing %s", tt.schema, err, tt.want)
			}
		})
	}
}

// TestCompileOurSchemas: both of opforge's schemas compile, or yamldef
// and toolchain could not validate at all.
func TestCompileOurSchemas(t *testing.T) {
	if s, err := schemacheck.Compile(schemas.OpDefJSON, "#/$defs/op"); err != nil || len(s) != 2 {
		t.Fatalf("opdef schema: %d schemas, %v", len(s), err)
	}
	if _, err := schemacheck.Compile(schemas.ToolchainJSON); err != nil {
		t.Fatalf("toolchain schema: %v", err)
	}
}

// TestExplainAllOf: allOf, which only the toolchain schema uses (the
// opdef differential test never meets it), explains each failing branch
// under one AllOf node, and Error prints each leaf at its pointer.
func TestExplainAllOf(t *testing.T) {
	s := quick(t, `{"properties": {"n": {"allOf": [{"type": "integer"}, {"minimum": 1}, {"maximum": 3}]}}}`)
	e := s.Explain(map[string]any{"n": int64(7)})
	if e == nil || len(e.Causes) != 1 {
		t.Fatalf("Explain = %v, want one cause", e)
	}
	all := e.Causes[0]
	if _, ok := all.Kind.(schemacheck.AllOf); !ok || len(all.Causes) != 1 || fmt.Sprint(all.At) != "[n]" {
		t.Fatalf("cause %#v, want one AllOf at n with the maximum's failure", all)
	}
	if got, want := e.Error(), `at "/n": must be at most 3, found 7`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if s.Explain(map[string]any{"n": int64(2)}) != nil {
		t.Error("a valid value was explained")
	}
}

func TestCompileFragmentErrors(t *testing.T) {
	for _, f := range []string{"#/$defs/nope", "#/properties/a", "#"} {
		_, err := schemacheck.Compile(schemas.OpDefJSON, f)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("schemacheck: %s: ", f)) {
			t.Errorf("fragment %s: %v", f, err)
		}
	}
}
