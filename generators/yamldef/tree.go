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
// []any, string, int64, float64, bool, nil) for the JSON Schema validator,
// remembering which node each JSON pointer came from so schema errors are
// reported at the node's line and column.
type tree struct {
	file  string
	l     *diag.List
	nodes map[string]*yaml.Node // JSON pointer -> value node
	keys  map[string]*yaml.Node // JSON pointer -> key node (object members)
	count int
	fatal bool
}

func (t *tree) pos(n *yaml.Node) diag.Pos { return diag.Pos{File: t.file, Line: n.Line, Col: n.Column} }

func (t *tree) convert(n *yaml.Node, ptr string, depth int) any {
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
		return t.convert(n.Alias, ptr, depth+1)
	}
	t.nodes[ptr] = n
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return t.convert(n.Content[0], ptr, depth)
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
			child := ptr + "/" + escapePointer(k.Value)
			t.keys[child] = k
			m[k.Value] = t.convert(v, child, depth+1)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			s = append(s, t.convert(c, ptr+"/"+strconv.Itoa(i), depth+1))
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

// nodeAt returns the node of a JSON pointer, walking up to the nearest
// recorded ancestor.
func (t *tree) nodeAt(ptr string) *yaml.Node {
	for {
		if n, ok := t.nodes[ptr]; ok {
			return n
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return nil
		}
		ptr = ptr[:i]
	}
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
