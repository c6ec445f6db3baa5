package yamldef

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/diag"
)

// Limits on what one document may expand to. yaml.v3 already refuses more
// than 10000 levels of nesting while parsing; these bound alias expansion
// ("billion laughs") and the size of the value handed to the validator.
const (
	maxNodes = 200_000
	maxDepth = 64
)

// tree converts a yaml.Node document into plain values (map[string]any,
// []any, string, int64, float64, bool, nil) for the JSON Schema validator.
// Schema errors name JSON pointers; lookup walks the document back to the
// node, so the (rare) error path pays for positions, not every load.
type tree struct {
	file  string
	l     *diag.List
	doc   *yaml.Node
	count int
	fatal bool
}

func (t *tree) pos(n *yaml.Node) diag.Pos { return diag.Pos{File: t.file, Line: n.Line, Col: n.Column} }

func (t *tree) convert(n *yaml.Node, depth int) any {
	if t.fatal {
		return nil
	}
	t.count++
	if t.count > maxNodes {
		t.l.Errorf(t.pos(n), "yaml-too-large", "document expands to more than %d values (aliases expanded); an op definition never needs that many", maxNodes)
		t.fatal = true
		return nil
	}
	if depth > maxDepth {
		t.l.Errorf(t.pos(n), "yaml-too-deep", "values nest more than %d levels deep", maxDepth)
		t.fatal = true
		return nil
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			t.l.Errorf(t.pos(n), "yaml-syntax", "alias *%s refers to no anchor", n.Value)
			return nil
		}
		return t.convert(n.Alias, depth+1)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return t.convert(n.Content[0], depth)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		first := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				t.l.Errorf(t.pos(k), "yaml-key", "mapping keys must be plain strings")
				continue
			}
			if k.Tag == "!!merge" {
				t.l.Errorf(t.pos(k), "yaml-key", "merge keys (<<) are not supported; repeat the fields or use a type variable")
				continue
			}
			if prev, dup := first[k.Value]; dup {
				t.l.Errorf(t.pos(k), "yaml-duplicate-key", "duplicate key %q (first defined at line %d)", k.Value, prev.Line)
				continue
			}
			first[k.Value] = k
			m[k.Value] = t.convert(v, depth+1)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			s = append(s, t.convert(c, depth+1))
		}
		return s
	case yaml.ScalarNode:
		return t.scalar(n)
	}
	return nil
}

// scalar resolves a scalar by its YAML 1.2 core-schema tag. Integers that
// do not fit int64 and custom tags are errors, not silent strings.
func (t *tree) scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err == nil {
			return b
		}
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i
		}
		// Above int64 but within uint64: a valid uint64 value. The IR
		// keeps the text, and validate checks it against the dtype.
		var u uint64
		if err := n.Decode(&u); err == nil {
			return float64(u)
		}
		t.l.Errorf(t.pos(n), "yaml-number", "integer %s does not fit in 64 bits", n.Value)
		return nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err == nil {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				t.l.Errorf(t.pos(n), "yaml-number", "%s is not a finite number", n.Value)
				return nil
			}
			return f
		}
	case "!!str", "!!timestamp", "!!binary":
		return n.Value
	default:
		t.l.Errorf(t.pos(n), "yaml-tag", "unsupported YAML tag %s; write the value plainly", n.Tag)
		return nil
	}
	return n.Value
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// lookup walks a JSON pointer from the document root and returns the key
// node (for object members) and the value node of the deepest existing
// step.
func (t *tree) lookup(ptr string) (key, value *yaml.Node) {
	n := t.doc
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	value = n
	if ptr == "" {
		return nil, value
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		n = resolve(n)
		switch {
		case n == nil:
			return key, value
		case n.Kind == yaml.MappingNode:
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := resolve(n.Content[i]); k != nil && k.Value == tok {
					key, next = k, n.Content[i+1]
					break
				}
			}
			if next == nil {
				return nil, value
			}
			n = next
		case n.Kind == yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil, value
			}
			key, n = nil, n.Content[i]
		default:
			return nil, value
		}
		value = resolve(n)
	}
	return key, value
}

// nodeAt returns the node of a JSON pointer, or its nearest ancestor.
func (t *tree) nodeAt(ptr string) *yaml.Node {
	_, v := t.lookup(ptr)
	return v
}

// keyAt returns the key node of an object member's JSON pointer, or nil.
func (t *tree) keyAt(ptr string) *yaml.Node {
	k, _ := t.lookup(ptr)
	return k
}

// describe names a JSON value's kind for messages.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case string:
		return fmt.Sprintf("the string %q", v)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}
