package yamldef

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/schemacheck"
	"github.com/opforge/opforge/schemas"
)

// plainValue converts YAML into the value validateStructure sees, the way
// Load does; ok is false when the text does not parse. Values that Load
// would refuse before validation (a conversion error) are kept: the two
// validators must agree on them too.
func plainValue(data []byte) (v any, ok bool) {
	var l diag.List
	doc, ok := Parse("f.yaml", data, &l)
	if !ok {
		return nil, false
	}
	t := &tree{file: "f.yaml", l: &l, doc: doc}
	return t.convert(doc, 0), true
}

// verdicts is a pair of schemas that must agree on every value: on the
// verdict, and on an invalid value's explanation (the shape of the error
// tree and what each node says), which report turns into diagnostics.
type verdicts struct {
	ref   *jsonschema.Schema
	quick *schemacheck.Schema
	// Values checked, by verdict.
	valid, invalid int
}

func (p *verdicts) agree(t *testing.T, where string, v any) {
	t.Helper()
	refErr := p.ref.Validate(v)
	want := refErr == nil
	if got := p.quick.Valid(v); got != want {
		js, _ := json.Marshal(v)
		t.Errorf("%s: schemacheck says valid=%v, jsonschema %v, for %s", where, got, want, js)
	}
	var refTree *jsonschema.ValidationError
	if !want && errors.As(refErr, &refTree) {
		ours, theirs := canonical(p.quick.Explain(v)), canonicalRef(refTree)
		if ours != theirs {
			js, _ := json.Marshal(v)
			t.Errorf("%s: explanations differ for %s\nschemacheck: %s\njsonschema:  %s", where, js, ours, theirs)
		}
	}
	if want {
		p.valid++
	} else {
		p.invalid++
	}
}

// schemaPairs returns the document and op schemas in both forms; the
// quick ones must compile, or yamldef silently loses its fast path.
func schemaPairs(t testing.TB) (doc, op *verdicts) {
	t.Helper()
	if _, err := opdefSchema(); err != nil {
		t.Fatal(err)
	}
	ref, err := referenceSchemas(schemas.OpDefJSON, schemas.OpDefURL, "#/$defs/op")
	if err != nil {
		t.Fatal(err)
	}
	return &verdicts{ref: ref[0], quick: schema}, &verdicts{ref: ref[1], quick: opSchema}
}

// referenceSchemas compiles the schema doc published at url, and then
// each fragment of it, with the reference validator.
func referenceSchemas(doc []byte, url string, fragments ...string) ([]*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, v); err != nil {
		return nil, err
	}
	var out []*jsonschema.Schema
	for _, f := range append([]string{""}, fragments...) {
		s, err := c.Compile(url + f)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// canonical prints an explanation tree with what report reads of it:
// each node's kind, location and facts, children in a fixed order.
func canonical(e *schemacheck.Error) string {
	var facts string
	switch k := e.Kind.(type) {
	case schemacheck.Type:
		facts = fmt.Sprint(k.Want)
	case schemacheck.Required:
		facts = fmt.Sprint(k.Missing)
	case schemacheck.AdditionalProperties:
		facts = fmt.Sprint(slices.Sorted(slices.Values(k.Properties)))
	case schemacheck.Enum:
		facts = fmt.Sprint(k.Want)
	case schemacheck.Const:
		facts = fmt.Sprint(k.Want)
	case schemacheck.Pattern:
		facts = k.Got + " " + k.Want
	case schemacheck.MinLength:
		facts = fmt.Sprint(k.Got, k.Want)
	case schemacheck.MaxLength:
		facts = fmt.Sprint(k.Got, k.Want)
	case schemacheck.MinItems:
		facts = fmt.Sprint(k.Got, k.Want)
	case schemacheck.MaxItems:
		facts = fmt.Sprint(k.Got, k.Want)
	case schemacheck.OneOf:
		facts = fmt.Sprint(k.Subschemas)
	case schemacheck.PropertyNames:
		facts = k.Property
	}
	kindName := strings.TrimPrefix(fmt.Sprintf("%T", e.Kind), "schemacheck.")
	causes := make([]string, len(e.Causes))
	for i, c := range e.Causes {
		causes[i] = canonical(c)
	}
	return node(kindName, e.At, facts, causes)
}

// canonicalRef is canonical for the reference validator's tree.
func canonicalRef(e *jsonschema.ValidationError) string {
	var facts string
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		facts = fmt.Sprint(k.Want)
	case *kind.Required:
		facts = fmt.Sprint(k.Missing)
	case *kind.AdditionalProperties:
		facts = fmt.Sprint(slices.Sorted(slices.Values(k.Properties)))
	case *kind.Enum:
		facts = fmt.Sprint(k.Want)
	case *kind.Const:
		facts = fmt.Sprint(k.Want)
	case *kind.Pattern:
		facts = k.Got + " " + k.Want
	case *kind.MinLength:
		facts = fmt.Sprint(k.Got, k.Want)
	case *kind.MaxLength:
		facts = fmt.Sprint(k.Got, k.Want)
	case *kind.MinItems:
		facts = fmt.Sprint(k.Got, k.Want)
	case *kind.MaxItems:
		facts = fmt.Sprint(k.Got, k.Want)
	case *kind.OneOf:
		facts = fmt.Sprint(k.Subschemas)
	case *kind.PropertyNames:
		facts = k.Property
	}
	kindName := strings.TrimPrefix(fmt.Sprintf("%T", e.ErrorKind), "*kind.")
	if kindName == "Schema" {
		kindName = "Root"
	}
	causes := make([]string, len(e.Causes))
	for i, c := range e.Causes {
		causes[i] = canonicalRef(c)
	}
	return node(kindName, e.InstanceLocation, facts, causes)
}

func node(kindName string, at []string, facts string, causes []string) string {
	slices.Sort(causes)
	if kindName == "PropertyNames" {
		// The reference validator's location of a propertyNames failure is
		// not where it happened (FuzzQuickSchema found paths of other keys,
		// ["ops" "0" "name"], ["name" "trt" "qdp"], for one failing object:
		// a path buffer the library reuses). Compare the kind, the failing
		// name and the causes; schemacheck's own location is the object's.
		at = nil
	}
	return fmt.Sprintf("%s@%q{%s}[%s]", kindName, at, facts, strings.Join(causes, " "))
}

// opdefFiles lists every YAML opdef of the repository, valid or not.
func opdefFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, root := range []string{"../../testdata/gen/examples/opdefs", "../../testdata"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestQuickSchemaAgrees runs both validators over every opdef in the
// repository — the whole document, each op alone (as validateStructure
// splits them), and variants of each with one value replaced or one
// member dropped or added — and requires the same verdict every time.
func TestQuickSchemaAgrees(t *testing.T) {
	doc, op := schemaPairs(t)
	seen := map[string]bool{} // variants of values met before prove nothing new
	fresh := func(v any) bool {
		key, _ := json.Marshal(v)
		if seen[string(key)] {
			return false
		}
		seen[string(key)] = true
		return !testing.Short()
	}
	for _, path := range opdefFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := plainValue(data)
		if !ok {
			continue
		}
		doc.agree(t, path, v)
		head, ops := cutOps(v)
		if fresh(head) {
			variants(head, func(m any) { doc.agree(t, path+" variant", joinOps(m, ops)) })
		}
		for i, o := range ops {
			where := fmt.Sprintf("%s ops[%d]", path, i)
			op.agree(t, where, o)
			if fresh(o) {
				variants(o, func(m any) { op.agree(t, where+" variant", m) })
			}
		}
	}
	t.Logf("documents: %d valid, %d invalid; ops: %d valid, %d invalid", doc.valid, doc.invalid, op.valid, op.invalid)
	if doc.valid < 10 || doc.invalid < 3 || !testing.Short() && (op.valid < 1000 || op.invalid < 1000) {
		t.Error("too few cases of each verdict: the comparison proves little")
	}
}

// cutOps splits a document into everything but its ops, which variants
// of the document leave to those of the op schema, and its ops.
func cutOps(v any) (head any, ops []any) {
	doc, ok := v.(map[string]any)
	if !ok {
		return v, nil
	}
	ops, _ = doc["ops"].([]any)
	doc = maps.Clone(doc)
	delete(doc, "ops")
	return doc, ops
}

// joinOps is the inverse of cutOps.
func joinOps(head any, ops []any) any {
	doc, ok := head.(map[string]any)
	if !ok || ops == nil {
		return head
	}
	doc = maps.Clone(doc)
	doc["ops"] = ops
	return doc
}

// replacements stand in for any one value: each type, numbers at the
// schema's bounds, strings of its enums and patterns and beyond its
// lengths.
var replacements = []any{
	nil, true, int64(-1), int64(0), int64(8), int64(9), 2.0, 1.5, "", "x", "1x", "in[0]", "float32[]",
	"float32", "NCHW", "any", strings.Repeat("a", 201), []any{}, []any{"float32"}, map[string]any{},
}

// variants calls yield with copies of v that differ from it in one place.
func variants(v any, yield func(any)) {
	for _, r := range replacements {
		yield(r)
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			c := maps.Clone(v)
			delete(c, k)
			yield(c)
			variants(v[k], func(m any) {
				c := maps.Clone(v)
				c[k] = m
				yield(c)
			})
		}
		c := maps.Clone(v)
		c["unknown"] = int64(1)
		yield(c)
	case []any:
		for i := range v {
			variants(v[i], func(m any) {
				c := slices.Clone(v)
				c[i] = m
				yield(c)
			})
		}
		if len(v) > 0 {
			yield(append(slices.Clone(v), v...))
		}
	}
}

// FuzzQuickSchema: for any YAML, the quick check and jsonschema give the
// same verdict on the document and on each op.
func FuzzQuickSchema(f *testing.F) {
	doc, op := schemaPairs(f)
	for _, path := range opdefFiles(f) {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, ok := plainValue(data)
		if !ok {
			return
		}
		doc.agree(t, "document", v)
		_, ops := cutOps(v)
		for i, o := range ops {
			op.agree(t, fmt.Sprintf("ops[%d]", i), o)
		}
	})
}
