package yamldef

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/schemacheck"
	"github.com/opforge/opforge/generators/workpool"
	"github.com/opforge/opforge/schemas"
)

var (
	schemaOnce sync.Once
	// schema checks a whole document, opSchema one op: Valid gives the
	// verdict, Explain the error tree of a document that fails.
	schema, opSchema *schemacheck.Schema
	schemaErr        error
)

// opdefSchema compiles the embedded schema once. It is the single source of
// the structural rules; the Go code below only turns its errors into
// positioned diagnostics.
func opdefSchema() (*schemacheck.Schema, error) {
	schemaOnce.Do(func() {
		var compiled []*schemacheck.Schema
		if compiled, schemaErr = schemacheck.Compile(schemas.OpDefJSON, "#/$defs/op"); schemaErr == nil {
			schema, opSchema = compiled[0], compiled[1]
		}
	})
	return schema, schemaErr
}

// validateStructure checks v against the schema and reports every leaf
// error at its node. It returns false when anything failed.
func (t *tree) validateStructure(v any) bool {
	sch, err := opdefSchema()
	if err != nil {
		t.l.Errorf(diag.Pos{File: t.file}, "internal", "opdef schema does not compile: %v", err)
		return false
	}
	head, rest := splitOps(v)
	// Nearly every document is valid and needs no error tree: the verdict
	// vouches for it, and the explanation runs only for a failure.
	if quickValid(head, rest) {
		return true
	}
	// errs[0] is the head's, errs[i] that of ops[i].
	errs := make([]*schemacheck.Error, 1+len(rest))
	errs[0] = sch.Explain(head)
	workpool.Parallel(len(rest), func(i int) { errs[i+1] = opSchema.Explain(rest[i]) })
	ok := true
	for i, err := range errs {
		if err == nil {
			continue
		}
		ok = false
		if i > 0 {
			prefixLocations(err, []string{"ops", strconv.Itoa(i)})
		}
		t.report(err)
	}
	return ok
}

// splitOps prepares a document for validation in parallel: head is the
// document with its first op only, checked against the whole schema, and
// rest its other ops, checked against the op subschema each. Errors are
// reported in op order, so output stays deterministic.
func splitOps(v any) (head any, rest []any) {
	doc, _ := v.(map[string]any)
	ops, _ := doc["ops"].([]any)
	if len(ops) <= 1 {
		return v, nil
	}
	h := maps.Clone(doc)
	h["ops"] = ops[:1]
	return h, ops[1:]
}

// quickValid is the verdict-only check of a split document.
func quickValid(head any, rest []any) bool {
	if !schema.Valid(head) {
		return false
	}
	valid := make([]bool, len(rest))
	workpool.Parallel(len(rest), func(i int) { valid[i] = opSchema.Valid(rest[i]) })
	return !slices.Contains(valid, false)
}

// prefixLocations makes the instance locations of an error tree produced
// by a subschema absolute.
func prefixLocations(e *schemacheck.Error, prefix []string) {
	e.At = append(append([]string{}, prefix...), e.At...)
	for _, c := range e.Causes {
		prefixLocations(c, prefix)
	}
}

// report walks the error tree. For oneOf/anyOf it drops the branches that
// failed only on the value's type — "want integer" is noise when the user
// clearly wrote a string — and reports what is left.
func (t *tree) report(e *schemacheck.Error) {
	if len(e.Causes) == 0 {
		t.leaf(e)
		return
	}
	switch e.Kind.(type) {
	case schemacheck.OneOf:
		var kept []*schemacheck.Error
		var types []string
		for _, c := range e.Causes {
			if tk, ok := c.Kind.(schemacheck.Type); ok && len(c.Causes) == 0 {
				types = append(types, tk.Want...)
				continue
			}
			kept = append(kept, c)
		}
		if t.misspelled(e, kept) {
			return
		}
		if len(kept) == 0 {
			ptr := pointer(e.At)
			n := t.nodeAt(ptr)
			sort.Strings(types)
			t.l.Errorf(t.posOf(n), "schema", "%s: expected %s", fieldName(e.At), strings.Join(dedupe(types), " or "))
			return
		}
		for _, c := range kept {
			t.report(c)
		}
		return
	}
	for _, c := range e.Causes {
		t.report(c)
	}
}

func (t *tree) leaf(e *schemacheck.Error) {
	ptr := pointer(e.At)
	n := t.nodeAt(ptr)
	where := fieldName(e.At)
	switch k := e.Kind.(type) {
	case schemacheck.AdditionalProperties:
		for _, p := range k.Properties {
			key := t.keyAt(ptr + "/" + escapePointer(p))
			hint := t.misplacedField(ptr, p)
			if hint == "" {
				hint = suggest(p, knownFields(ptr))
			}
			t.l.Errorf(t.posOf(key), "schema-unknown-field", "unknown field %q in %s%s", p, where, hint)
		}
		return
	case schemacheck.FalseSchema:
		// unevaluatedProperties: false also rejects known fields when the
		// $ref that declares them failed; that failure is reported itself.
		name, known := lastToken(e.At), knownFields(parentPointer(ptr))
		for _, k := range known {
			if k == name {
				return
			}
		}
		key := t.keyAt(ptr)
		t.l.Errorf(t.posOf(key), "schema-unknown-field", "unknown field %q%s", name, suggest(name, known))
		return
	case schemacheck.Required:
		for _, m := range k.Missing {
			t.l.Errorf(t.posOf(n), "schema-missing-field", "%s is missing the required field %q", where, m)
		}
		return
	case schemacheck.Type:
		t.l.Errorf(t.posOf(n), "schema-type", "%s: expected %s, found %s", where, strings.Join(k.Want, " or "), describeNode(t, ptr))
		return
	case schemacheck.Pattern:
		t.l.Errorf(t.posOf(n), "schema-pattern", "%s: %q is not allowed here (must match %s)", where, k.Got, k.Want)
		return
	case schemacheck.Enum:
		if t.misspelled(e, []*schemacheck.Error{e}) {
			return
		}
	}
	t.l.Errorf(t.posOf(n), "schema", "%s: %s", where, e.Kind.Message())
}

func (t *tree) posOf(n *yaml.Node) diag.Pos {
	if n == nil {
		return diag.Pos{File: t.file}
	}
	return t.pos(n)
}

func describeNode(t *tree, ptr string) string {
	n := t.nodeAt(ptr)
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	return describe(t.scalar(n))
}

func pointer(loc []string) string {
	var sb strings.Builder
	for _, s := range loc {
		sb.WriteByte('/')
		sb.WriteString(escapePointer(s))
	}
	return sb.String()
}

func parentPointer(ptr string) string {
	if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
		return ptr[:i]
	}
	return ""
}

func lastToken(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	return loc[len(loc)-1]
}

// fieldName renders an instance location the way a user reads the file:
// ops[0].inputs[1].shape.
func fieldName(loc []string) string {
	if len(loc) == 0 {
		return "the document"
	}
	var sb strings.Builder
	for _, s := range loc {
		if isIndex(s) {
			fmt.Fprintf(&sb, "[%s]", s)
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(s)
	}
	return sb.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// misspelled reports a string that failed only for its spelling — every
// cause an enum or a pattern on it, as a dtype, a param type or an enum
// value fails — as one error with the value it most likely meant, instead
// of one error per alternative. It reports nothing and returns false for
// any other failure.
func (t *tree) misspelled(e *schemacheck.Error, causes []*schemacheck.Error) bool {
	ptr := pointer(e.At)
	n := t.nodeAt(ptr)
	if n == nil || n.Kind != yaml.ScalarNode || len(causes) == 0 {
		return false
	}
	var allowed, patterns []string
	for _, c := range causes {
		if len(c.Causes) > 0 {
			return false
		}
		switch k := c.Kind.(type) {
		case schemacheck.Enum:
			for _, w := range k.Want {
				if s, ok := w.(string); ok {
					allowed = append(allowed, s)
				}
			}
		case schemacheck.Pattern:
			patterns = append(patterns, k.Want)
		default:
			return false
		}
	}
	where, got := fieldName(e.At), n.Value
	if fix := meant(got, allowed, patterns); fix != "" {
		t.l.Errorf(t.posOf(n), "schema-value", "%s: unknown value %q; did you mean %q?", where, got, fix)
		return true
	}
	msg := fmt.Sprintf("%s: unknown value %q; expected one of: %s", where, got, strings.Join(allowed, ", "))
	for _, p := range patterns {
		msg += fmt.Sprintf(", or a value matching %s", p)
	}
	t.l.Errorf(t.posOf(n), "schema-value", "%s", msg)
	return true
}

// meant is the allowed value got most likely stands for: a dtype spelled
// as other tools spell it (float, fp16, int; float[2] for an array), else
// the one allowed value within two edits; "" when there is none.
func meant(got string, allowed, patterns []string) string {
	fits := func(v string) bool {
		for _, a := range allowed {
			if a == v {
				return true
			}
		}
		for _, p := range patterns {
			if re, err := regexp.Compile(p); err == nil && re.MatchString(v) {
				return true
			}
		}
		return false
	}
	base, suffix := got, ""
	if i := strings.IndexByte(got, '['); i > 0 {
		base, suffix = got[:i], got[i:]
	}
	if d := ir.SuggestDType(base); d != "" && string(d)+suffix != got && fits(string(d)+suffix) {
		return string(d) + suffix
	}
	return nearest(got, allowed)
}
