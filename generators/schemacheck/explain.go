package schemacheck

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error explains why a value is invalid: one node of a tree shaped the
// way the reference validator shapes its own (a Schema root, a Group
// where one schema failed several keywords, a Reference above what a
// $ref's target rejected, a OneOf or AllOf above its branches' failures),
// so that callers that turn those trees into diagnostics read ours the
// same way. TestExplainMatchesReference holds the shapes to it.
type Error struct {
	// At is the instance location: the object member names and array
	// indexes from the validated value down to the failing one.
	At     []string
	Kind   Kind
	Causes []*Error
}

// Kind is what an Error says failed; Message says it in words.
type Kind interface{ Message() string }

type (
	// Root is the root of the tree Explain returns.
	Root struct{}
	// Group holds the failures of several keywords of one schema.
	Group struct{}
	// Reference holds what the target of the $ref Ref rejected.
	Reference struct{ Ref string }
	// FalseSchema is the schema false, which rejects everything.
	FalseSchema struct{}
	// NotJSON is a Go value that is not in the JSON data model.
	NotJSON struct{ Value any }
	Type    struct {
		Got  string
		Want []string
	}
	Const struct{ Got, Want any }
	Enum  struct {
		Got  any
		Want []any
	}
	MinLength struct{ Got, Want int }
	MaxLength struct{ Got, Want int }
	Pattern   struct{ Got, Want string }
	MinItems  struct{ Got, Want int }
	MaxItems  struct{ Got, Want int }
	// Minimum and Maximum: Got is the value, Want the bound as the
	// schema writes it.
	Minimum              struct{ Got, Want string }
	Maximum              struct{ Got, Want string }
	Required             struct{ Missing []string }
	AdditionalProperties struct{ Properties []string }
	// PropertyNames: the member name Property failed propertyNames; the
	// causes are located relative to the name.
	PropertyNames struct{ Property string }
	// OneOf: Subschemas names the two branches that both matched, or is
	// nil when none did (the causes are then the branches' failures).
	OneOf struct{ Subschemas []int }
	AllOf struct{}
)

func (Root) Message() string        { return "does not match the schema" }
func (Group) Message() string       { return "fails several rules" }
func (k Reference) Message() string { return "does not match " + k.Ref }
func (FalseSchema) Message() string { return "is not allowed" }
func (k NotJSON) Message() string {
	return fmt.Sprintf("%v (%T) is not a JSON value", k.Value, k.Value)
}
func (k Type) Message() string {
	return fmt.Sprintf("expected %s, found %s", strings.Join(k.Want, " or "), k.Got)
}
func (k Const) Message() string {
	return fmt.Sprintf("must be %s, found %s", quoted(k.Want), quoted(k.Got))
}
func (k Enum) Message() string {
	want := make([]string, len(k.Want))
	for i, w := range k.Want {
		want[i] = quoted(w)
	}
	return fmt.Sprintf("%s is not one of %s", quoted(k.Got), strings.Join(want, ", "))
}
func (k MinLength) Message() string {
	return fmt.Sprintf("must be at least %s long, found %d", characters(k.Want), k.Got)
}
func (k MaxLength) Message() string {
	return fmt.Sprintf("must be at most %s long, found %d", characters(k.Want), k.Got)
}
func (k Pattern) Message() string {
	return fmt.Sprintf("%q does not match %s", k.Got, k.Want)
}
func (k MinItems) Message() string {
	return fmt.Sprintf("must have at least %s, found %d", items(k.Want), k.Got)
}
func (k MaxItems) Message() string {
	return fmt.Sprintf("must have at most %s, found %d", items(k.Want), k.Got)
}
func (k Minimum) Message() string { return fmt.Sprintf("must be at least %s, found %s", k.Want, k.Got) }
func (k Maximum) Message() string { return fmt.Sprintf("must be at most %s, found %s", k.Want, k.Got) }
func (k Required) Message() string {
	return "missing the required field(s) " + strings.Join(quotedAll(k.Missing), ", ")
}
func (k AdditionalProperties) Message() string {
	return "unknown field(s) " + strings.Join(quotedAll(k.Properties), ", ")
}
func (k PropertyNames) Message() string {
	return fmt.Sprintf("field name %q is not allowed", k.Property)
}
func (k OneOf) Message() string {
	if k.Subschemas == nil {
		return "matches none of the alternatives"
	}
	return fmt.Sprintf("matches alternatives %d and %d; it must match exactly one", k.Subschemas[0], k.Subschemas[1])
}
func (AllOf) Message() string { return "fails a rule it must meet" }

func characters(n int) string {
	if n == 1 {
		return "1 character"
	}
	return strconv.Itoa(n) + " characters"
}

func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return strconv.Itoa(n) + " items"
}

func quoted(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

func quotedAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}

// Error lists the leaves of the tree, one per line, each at its JSON
// pointer: the text a caller prints when it has no positions to map the
// tree onto.
func (e *Error) Error() string {
	var lines []string
	e.leaves(func(l *Error) {
		lines = append(lines, fmt.Sprintf("at %q: %s", pointer(l.At), l.Kind.Message()))
	})
	return strings.Join(lines, "; ")
}

func (e *Error) leaves(f func(*Error)) {
	if len(e.Causes) == 0 {
		f(e)
		return
	}
	for _, c := range e.Causes {
		c.leaves(f)
	}
}

func pointer(at []string) string {
	var sb strings.Builder
	for _, tok := range at {
		sb.WriteByte('/')
		sb.WriteString(escape(tok))
	}
	return sb.String()
}

// Explain returns nil when v is valid, else the tree of why not. It is
// for the rare invalid value: it visits everything, where Valid stops at
// the first failure.
func (s *Schema) Explain(v any) *Error {
	err, _ := s.explain(v, nil)
	if err == nil {
		return nil
	}
	return &Error{Kind: Root{}, Causes: flatten(err)}
}

// flatten is the causes a Group stands for, or the error alone.
func flatten(e *Error) []*Error {
	if _, ok := e.Kind.(Group); ok {
		return e.Causes
	}
	return []*Error{e}
}

// evaluation is the object members a schema evaluated in place, which
// unevaluatedProperties of a schema that reaches it does not judge
// again: those its properties name, or all when it had
// additionalProperties or unevaluatedProperties of its own. As for the
// reference validator, a subschema's evaluation counts only if it passed.
type evaluation struct {
	all   bool
	names map[string]bool
}

func (ev *evaluation) add(name string) {
	if ev.names == nil {
		ev.names = map[string]bool{}
	}
	ev.names[name] = true
}

func (ev *evaluation) merge(o evaluation) {
	ev.all = ev.all || o.all
	for n := range o.names {
		ev.add(n)
	}
}

func (ev *evaluation) has(name string) bool { return ev.all || ev.names[name] }

// explain checks v, found at loc, keyword by keyword in the reference
// validator's order, and returns its failures (nil, one, or a Group).
func (s *Schema) explain(v any, loc []string) (*Error, evaluation) {
	var ev evaluation
	if s.constant != nil {
		if *s.constant {
			return nil, ev
		}
		return leaf(loc, FalseSchema{}), ev
	}
	if fail := s.explainValue(v, loc); fail != nil {
		return fail, ev
	}
	var errs []*Error
	if s.ref != nil {
		if err, refEv := s.ref.explain(v, loc); err != nil {
			errs = append(errs, &Error{At: slices.Clone(loc), Kind: Reference{s.refName}, Causes: flatten(err)})
		} else {
			ev.merge(refEv)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		errs = s.explainObject(v, loc, errs, &ev)
	case []any:
		errs = s.explainArray(v, loc, errs)
	case string:
		errs = s.explainString(v, loc, errs)
	default:
		if typeOf(v) == numberType {
			errs = s.explainNumber(v, loc, errs)
		}
	}
	errs = s.explainAllOf(v, loc, errs, &ev)
	errs = s.explainOneOf(v, loc, errs, &ev)
	if obj, ok := v.(map[string]any); ok && s.unevaluated != nil {
		for _, name := range sortedNames(obj) {
			if !ev.has(name) {
				errs = appendErr(errs, s.unevaluated, obj[name], loc, name)
			}
		}
		ev.all = true
	}
	switch len(errs) {
	case 0:
		return nil, ev
	case 1:
		return errs[0], ev
	}
	return &Error{At: slices.Clone(loc), Kind: Group{}, Causes: errs}, ev
}

// explainValue applies the keywords that fail a value on their own,
// before any other is looked at: JSON-ness, type, const and enum.
func (s *Schema) explainValue(v any, loc []string) *Error {
	t := typeOf(v)
	switch {
	case t == invalidType:
		return leaf(loc, NotJSON{v})
	case s.types != 0 && !s.types.admits(t, v):
		return leaf(loc, Type{Got: t.names()[0], Want: s.types.names()})
	case s.hasConst && !equal(v, s.constVal):
		return leaf(loc, Const{Got: v, Want: s.constVal})
	case s.hasEnum && !s.inEnum(v):
		return leaf(loc, Enum{Got: v, Want: s.enumList})
	}
	return nil
}

func leaf(loc []string, k Kind) *Error { return &Error{At: slices.Clone(loc), Kind: k} }

// appendErr explains x, the member or item tok of the value at loc,
// against sub, and appends its failure if any.
func appendErr(errs []*Error, sub *Schema, x any, loc []string, tok string) []*Error {
	err, _ := sub.explain(x, append(slices.Clone(loc), tok))
	if err != nil {
		errs = append(errs, err)
	}
	return errs
}

// sortedNames: members in a fixed order, so explanations are
// deterministic (the reference validator walks Go's map order).
func sortedNames(obj map[string]any) []string {
	names := make([]string, 0, len(obj))
	for n := range obj {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (s *Schema) explainObject(obj map[string]any, loc []string, errs []*Error, ev *evaluation) []*Error {
	var missing []string
	for _, name := range s.required {
		if _, ok := obj[name]; !ok {
			missing = append(missing, name)
		}
	}
	if missing != nil {
		errs = append(errs, leaf(loc, Required{Missing: missing}))
	}
	names := sortedNames(obj)
	var additional []string
	for _, name := range names {
		if p, ok := s.properties[name]; ok {
			ev.add(name)
			errs = appendErr(errs, p, obj[name], loc, name)
			continue
		}
		if s.additional == nil {
			continue
		}
		ev.add(name)
		if s.additional.constant != nil && !*s.additional.constant {
			additional = append(additional, name)
			continue
		}
		errs = appendErr(errs, s.additional, obj[name], loc, name)
	}
	if s.additional != nil {
		ev.all = true
	}
	if additional != nil {
		errs = append(errs, leaf(loc, AdditionalProperties{Properties: additional}))
	}
	if s.propertyNames == nil {
		return errs
	}
	for _, name := range names {
		if err, _ := s.propertyNames.explain(name, nil); err != nil {
			errs = append(errs, &Error{At: slices.Clone(loc), Kind: PropertyNames{Property: name}, Causes: flatten(err)})
		}
	}
	return errs
}

func (s *Schema) explainArray(a []any, loc []string, errs []*Error) []*Error {
	if s.minItems >= 0 && len(a) < s.minItems {
		errs = append(errs, leaf(loc, MinItems{Got: len(a), Want: s.minItems}))
	}
	if s.maxItems >= 0 && len(a) > s.maxItems {
		errs = append(errs, leaf(loc, MaxItems{Got: len(a), Want: s.maxItems}))
	}
	if s.items != nil {
		for i, x := range a {
			errs = appendErr(errs, s.items, x, loc, strconv.Itoa(i))
		}
	}
	return errs
}

func (s *Schema) explainString(str string, loc []string, errs []*Error) []*Error {
	n := utf8.RuneCountInString(str)
	if s.minLength >= 0 && n < s.minLength {
		errs = append(errs, leaf(loc, MinLength{Got: n, Want: s.minLength}))
	}
	if s.maxLength >= 0 && n > s.maxLength {
		errs = append(errs, leaf(loc, MaxLength{Got: n, Want: s.maxLength}))
	}
	if s.pattern != nil && !s.pattern.MatchString(str) {
		errs = append(errs, leaf(loc, Pattern{Got: str, Want: s.pattern.String()}))
	}
	return errs
}

func (s *Schema) explainNumber(v any, loc []string, errs []*Error) []*Error {
	got := func() string {
		if r, ok := ratOf(v); ok {
			return ratText(r)
		}
		return fmt.Sprint(v)
	}
	if s.minimum != nil {
		if c, ok := s.minimum.compare(v); !ok || c < 0 {
			errs = append(errs, leaf(loc, Minimum{Got: got(), Want: s.minimum.text}))
		}
	}
	if s.maximum != nil {
		if c, ok := s.maximum.compare(v); !ok || c > 0 {
			errs = append(errs, leaf(loc, Maximum{Got: got(), Want: s.maximum.text}))
		}
	}
	return errs
}

// ratText prints a whole number as one, any other as a decimal.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func (s *Schema) explainAllOf(v any, loc []string, errs []*Error, ev *evaluation) []*Error {
	var failed []*Error
	for _, sub := range s.allOf {
		if err, subEv := sub.explain(v, loc); err != nil {
			failed = append(failed, err)
		} else {
			ev.merge(subEv)
		}
	}
	if failed != nil {
		errs = append(errs, &Error{At: slices.Clone(loc), Kind: AllOf{}, Causes: failed})
	}
	return errs
}

// explainOneOf reports the branches' failures when none matched, and the
// first two matches when more than one did.
func (s *Schema) explainOneOf(v any, loc []string, errs []*Error, ev *evaluation) []*Error {
	if s.oneOf == nil {
		return errs
	}
	matched := -1
	var failed []*Error
	for i, sub := range s.oneOf {
		err, subEv := sub.explain(v, loc)
		if err != nil {
			if matched == -1 {
				failed = append(failed, err)
			}
			continue
		}
		ev.merge(subEv)
		if matched != -1 {
			return append(errs, leaf(loc, OneOf{Subschemas: []int{matched, i}}))
		}
		matched = i
	}
	if matched == -1 {
		errs = append(errs, &Error{At: slices.Clone(loc), Kind: OneOf{}, Causes: failed})
	}
	return errs
}
