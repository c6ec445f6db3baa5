package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"
)

// draft2020 is the only dialect compiled: earlier drafts give $ref,
// items and the exclusive bounds other meanings.
const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// Compile compiles doc, a JSON Schema 2020-12 document, and returns the
// schema of the document followed by the schema of each fragment
// ("#/$defs/op"), as the reference validator compiles a document and
// its fragments. It fails, naming the keyword, on any keyword outside the
// implemented subset and on any $ref other than "#/$defs/<name>". Members
// of $defs that no $ref reaches are not compiled: they decide nothing.
func Compile(doc []byte, fragments ...string) ([]*Schema, error) {
	root, err := decode(doc)
	if err != nil {
		return nil, fmt.Errorf("schemacheck: %w", err)
	}
	c := &compiler{done: map[string]*Schema{}, busy: map[string]bool{}}
	if obj, ok := root.(map[string]any); ok {
		c.defs, _ = obj["$defs"].(map[string]any)
	}
	s, err := c.compile(root, rootPointer)
	if err != nil {
		return nil, err
	}
	out := []*Schema{s}
	for _, f := range fragments {
		s, err := c.ref(f)
		if err != nil {
			return nil, placed(f, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// decode reads JSON the way jsonschema.UnmarshalJSON does: numbers stay
// json.Number, so bounds and constants keep their exact decimal value.
func decode(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

const rootPointer = "#"

// compileError is a problem at a place in the schema document.
type compileError struct{ at, msg string }

func (e *compileError) Error() string { return "schemacheck: " + e.at + ": " + e.msg }

// placed places err at the pointer at, unless a deeper place is known.
func placed(at string, err error) error {
	if err == nil {
		return nil
	}
	if ce := (*compileError)(nil); errors.As(err, &ce) {
		return err
	}
	return &compileError{at, err.Error()}
}

type compiler struct {
	defs map[string]any
	done map[string]*Schema // compiled $defs, shared by every $ref to them
	busy map[string]bool    // $defs being compiled: a $ref to one is recursion
}

// compile compiles the schema v found at the JSON pointer at.
func (c *compiler) compile(v any, at string) (*Schema, error) {
	switch v := v.(type) {
	case bool:
		return &Schema{constant: &v}, nil
	case map[string]any:
		if len(v) == 0 {
			// The reference validator compiles {} as true: it then accepts
			// even values that are not JSON, as true does.
			return c.compile(true, at)
		}
		return c.compileObject(v, at)
	}
	return nil, &compileError{at, "a schema is an object or a boolean"}
}

func (c *compiler) compileObject(obj map[string]any, at string) (*Schema, error) {
	s := &Schema{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	// In a fixed order, so that the first unsupported keyword named is
	// always the same one.
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if err := c.keyword(s, k, obj[k], at); err != nil {
			return nil, err
		}
	}
	if s.unevaluated != nil {
		if err := s.settleEvaluated(); err != nil {
			return nil, placed(at+"/unevaluatedProperties", err)
		}
	}
	return s, nil
}

// keyword compiles one keyword of the schema at the pointer at into s.
func (c *compiler) keyword(s *Schema, key string, val any, at string) error {
	kw := at + "/" + escape(key)
	var err error
	switch key {
	case "title", "description", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly":
		// Annotations: they never change a verdict.
	case "$schema", "$id", "$defs":
		if at != rootPointer {
			return &compileError{at, fmt.Sprintf("keyword %q is supported at the document root only", key)}
		}
		if key == "$schema" && val != draft2020 && val != draft2020+"#" {
			err = fmt.Errorf("dialect %v is not supported, only %s", val, draft2020)
		}
	case "type":
		s.types, err = typeKeyword(val)
	case "const":
		s.hasConst, s.constVal = true, val
	case "enum":
		err = s.setEnum(val)
	case "pattern":
		s.pattern, err = pattern(val)
	case "minLength":
		s.minLength, err = count(val)
	case "maxLength":
		s.maxLength, err = count(val)
	case "minItems":
		s.minItems, err = count(val)
	case "maxItems":
		s.maxItems, err = count(val)
	case "minimum":
		s.minimum, err = number(val)
	case "maximum":
		s.maximum, err = number(val)
	case "required":
		s.required, err = names(val)
	case "items":
		s.items, err = c.compile(val, kw)
	case "properties":
		s.properties, err = c.compileMap(val, kw)
	case "additionalProperties":
		s.additional, err = c.compile(val, kw)
	case "propertyNames":
		s.propertyNames, err = c.compile(val, kw)
	case "unevaluatedProperties":
		s.unevaluated, err = c.compile(val, kw)
	case "oneOf":
		s.oneOf, err = c.compileList(val, kw)
	case "allOf":
		s.allOf, err = c.compileList(val, kw)
	case "$ref":
		s.ref, err = c.ref(val)
		s.refName, _ = val.(string)
	default:
		return &compileError{at, fmt.Sprintf("keyword %q is not supported", key)}
	}
	return placed(kw, err)
}

// ref resolves a reference. Only "#/$defs/<name>" is supported: it needs
// no base URI, and a $defs member is always a schema.
func (c *compiler) ref(val any) (*Schema, error) {
	ref, _ := val.(string)
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok || name == "" || strings.ContainsAny(name, "/~%") {
		return nil, fmt.Errorf("reference %v is not supported, only #/$defs/<name>", val)
	}
	if s := c.done[name]; s != nil {
		return s, nil
	}
	if c.busy[name] {
		return nil, fmt.Errorf("recursive reference %s is not supported", ref)
	}
	def, ok := c.defs[name]
	if !ok {
		return nil, fmt.Errorf("reference %s names no member of $defs", ref)
	}
	c.busy[name] = true
	s, err := c.compile(def, ref)
	delete(c.busy, name)
	if err != nil {
		return nil, err
	}
	c.done[name] = s
	return s, nil
}

func (c *compiler) compileMap(val any, at string) (map[string]*Schema, error) {
	m, ok := val.(map[string]any)
	if !ok {
		return nil, errors.New("not an object")
	}
	out := make(map[string]*Schema, len(m))
	for name, v := range m {
		s, err := c.compile(v, at+"/"+escape(name))
		if err != nil {
			return nil, err
		}
		out[name] = s
	}
	return out, nil
}

func (c *compiler) compileList(val any, at string) ([]*Schema, error) {
	list, ok := val.([]any)
	if !ok || len(list) == 0 {
		return nil, errors.New("not a non-empty array")
	}
	out := make([]*Schema, len(list))
	for i, v := range list {
		s, err := c.compile(v, fmt.Sprintf("%s/%d", at, i))
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// settleEvaluated lists the members evaluated by the schema's properties
// and by the schemas it reaches through $ref. Valid requires each of
// those to pass, so for a valid value the reference validator's evaluated
// set is exactly this static one — unless an applicator that may fail
// without failing the schema (oneOf) is on the way, which is refused.
func (s *Schema) settleEvaluated() error {
	s.evaluated = map[string]struct{}{}
	for r := s; r != nil; r = r.ref {
		if r.oneOf != nil || r.allOf != nil {
			return errors.New("oneOf or allOf beside it, in place or through $ref, is not supported")
		}
		if r != s && (r.additional != nil || r.unevaluated != nil) {
			s.allEvaluated = true
		}
		for name := range r.properties {
			s.evaluated[name] = struct{}{}
		}
	}
	return nil
}

func typeKeyword(val any) (typeSet, error) {
	list, ok := val.([]any)
	if !ok {
		list = []any{val}
	}
	var ts typeSet
	for _, v := range list {
		name, _ := v.(string)
		t, ok := typeNames[name]
		if !ok || ts&t != 0 {
			return 0, fmt.Errorf("%v is not a type or is repeated", v)
		}
		ts |= t
	}
	if ts == 0 {
		return 0, errors.New("no type")
	}
	return ts, nil
}

func (s *Schema) setEnum(val any) error {
	list, ok := val.([]any)
	if !ok {
		return errors.New("not an array")
	}
	s.hasEnum, s.enumStrings = true, map[string]struct{}{}
	s.enumList = list
	for _, v := range list {
		if str, ok := v.(string); ok {
			s.enumStrings[str] = struct{}{}
		} else {
			s.enumOthers = append(s.enumOthers, v)
		}
	}
	return nil
}

// pattern compiles with Go's regexp, the reference validator's default
// engine: RE2 syntax, matching anywhere in the string unless anchored.
func pattern(val any) (*regexp.Regexp, error) {
	src, ok := val.(string)
	if !ok {
		return nil, errors.New("not a string")
	}
	return regexp.Compile(src)
}

func count(val any) (int, error) {
	r, ok := schemaNumber(val)
	if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		return 0, fmt.Errorf("%v is not a non-negative integer", val)
	}
	return int(r.Num().Int64()), nil
}

func number(val any) (*bound, error) {
	r, ok := schemaNumber(val)
	if !ok {
		return nil, fmt.Errorf("%v is not a number", val)
	}
	b := newBound(r)
	b.text = string(val.(json.Number))
	return b, nil
}

func schemaNumber(val any) (*big.Rat, bool) {
	if _, ok := val.(json.Number); !ok {
		return nil, false
	}
	return ratOf(val)
}

func names(val any) ([]string, error) {
	list, ok := val.([]any)
	if !ok {
		return nil, errors.New("not an array")
	}
	out := make([]string, len(list))
	for i, v := range list {
		if out[i], ok = v.(string); !ok {
			return nil, fmt.Errorf("%v is not a string", v)
		}
	}
	return out, nil
}

// escape writes a JSON pointer token.
func escape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok // most are plain: a replacer built per token was a tenth of compiling the schema
	}
	return pointerEscaper.Replace(tok)
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")
