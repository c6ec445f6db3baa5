package schemacheck

import (
	"regexp"
	"unicode/utf8"
)

// Schema is one compiled (sub)schema. Compile makes them; they are
// read-only, safe to use from several goroutines.
type Schema struct {
	// constant is set for the boolean schemas true and false, which hold
	// nothing else.
	constant *bool

	types typeSet // 0: no type keyword

	hasConst bool
	constVal any

	// enum: string members in a set (the common case), others in order.
	hasEnum     bool
	enumStrings map[string]struct{}
	enumOthers  []any
	enumList    []any // every member in the schema's order, for explanations

	minLength, maxLength int // -1: absent
	pattern              *regexp.Regexp

	minimum, maximum *bound

	minItems, maxItems int // -1: absent
	items              *Schema

	required      []string
	properties    map[string]*Schema
	additional    *Schema
	propertyNames *Schema

	// unevaluated applies to the members that neither this schema nor the
	// schemas it reaches in place through $ref evaluate: those named in
	// evaluated, or all when allEvaluated.
	unevaluated  *Schema
	evaluated    map[string]struct{}
	allEvaluated bool

	oneOf   []*Schema
	allOf   []*Schema
	ref     *Schema
	refName string // the $ref as written, for explanations
}

// Valid reports whether v satisfies the schema. v is a value the way
// encoding/json or a YAML decoder produces it: nil, bool, string, a Go
// number, []any and map[string]any. Any other Go type is invalid, as it is
// for the reference validator.
func (s *Schema) Valid(v any) bool {
	if s.constant != nil {
		return *s.constant
	}
	t := typeOf(v)
	if t == invalidType {
		return false
	}
	if s.types != 0 && !s.types.admits(t, v) {
		return false
	}
	if s.hasConst && !equal(v, s.constVal) {
		return false
	}
	if s.hasEnum && !s.inEnum(v) {
		return false
	}
	if s.ref != nil && !s.ref.Valid(v) {
		return false
	}
	if !s.validKind(v, t) {
		return false
	}
	if s.oneOf != nil && !s.exactlyOne(v) {
		return false
	}
	for _, a := range s.allOf {
		if !a.Valid(v) {
			return false
		}
	}
	return true
}

// validKind applies the keywords that concern one kind of value only.
func (s *Schema) validKind(v any, t typeSet) bool {
	switch v := v.(type) {
	case map[string]any:
		return s.validObject(v)
	case []any:
		return s.validArray(v)
	case string:
		return s.validString(v)
	}
	if t == numberType {
		return s.validNumber(v)
	}
	return true
}

func (s *Schema) inEnum(v any) bool {
	if str, ok := v.(string); ok {
		_, in := s.enumStrings[str]
		return in
	}
	for _, m := range s.enumOthers {
		if equal(v, m) {
			return true
		}
	}
	return false
}

func (s *Schema) exactlyOne(v any) bool {
	matched := 0
	for _, b := range s.oneOf {
		if b.Valid(v) {
			if matched++; matched > 1 {
				return false
			}
		}
	}
	return matched == 1
}

func (s *Schema) validObject(obj map[string]any) bool {
	for _, name := range s.required {
		if _, ok := obj[name]; !ok {
			return false
		}
	}
	for name, x := range obj {
		if !s.validMember(name, x) {
			return false
		}
		if s.propertyNames != nil && !s.propertyNames.Valid(name) {
			return false
		}
	}
	return true
}

// validMember checks one member against the first of properties,
// additionalProperties and unevaluatedProperties that speaks for it.
func (s *Schema) validMember(name string, x any) bool {
	if p, ok := s.properties[name]; ok {
		return p.Valid(x)
	}
	if s.additional != nil {
		return s.additional.Valid(x)
	}
	if s.unevaluated == nil || s.allEvaluated {
		return true
	}
	if _, ok := s.evaluated[name]; ok {
		return true
	}
	return s.unevaluated.Valid(x)
}

func (s *Schema) validArray(a []any) bool {
	if s.minItems >= 0 && len(a) < s.minItems || s.maxItems >= 0 && len(a) > s.maxItems {
		return false
	}
	if s.items == nil {
		return true
	}
	for _, x := range a {
		if !s.items.Valid(x) {
			return false
		}
	}
	return true
}

// validString counts length in code points (invalid UTF-8 bytes count one
// each), as the reference validator does.
func (s *Schema) validString(str string) bool {
	if s.minLength >= 0 || s.maxLength >= 0 {
		n := utf8.RuneCountInString(str)
		if s.minLength >= 0 && n < s.minLength || s.maxLength >= 0 && n > s.maxLength {
			return false
		}
	}
	return s.pattern == nil || s.pattern.MatchString(str)
}

func (s *Schema) validNumber(v any) bool {
	if s.minimum != nil {
		if c, ok := s.minimum.compare(v); !ok || c < 0 {
			return false
		}
	}
	if s.maximum != nil {
		if c, ok := s.maximum.compare(v); !ok || c > 0 {
			return false
		}
	}
	return true
}
