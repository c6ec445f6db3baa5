package yamldef

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/schemas"
)

var (
	schemaDocOnce sync.Once
	schemaDoc     map[string]any
)

func rawSchema() map[string]any {
	schemaDocOnce.Do(func() { _ = json.Unmarshal(schemas.OpDefJSON, &schemaDoc) })
	return schemaDoc
}

// knownFields lists the property names the schema allows at a JSON pointer,
// read from the schema itself so messages never drift from it.
func knownFields(ptr string) []string {
	root := rawSchema()
	node := root
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if tok == "" {
			continue
		}
		node = step(root, node, tok)
		if node == nil {
			return nil
		}
	}
	set := map[string]bool{}
	collectProperties(root, node, set, 0)
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func deref(root, node map[string]any) map[string]any {
	for i := 0; i < 8 && node != nil; i++ {
		ref, ok := node["$ref"].(string)
		if !ok || node["properties"] != nil || node["items"] != nil {
			return node
		}
		node = resolveRef(root, ref)
	}
	return node
}

func resolveRef(root map[string]any, ref string) map[string]any {
	name := strings.TrimPrefix(ref, "#/$defs/")
	defs, _ := root["$defs"].(map[string]any)
	m, _ := defs[name].(map[string]any)
	return m
}

func step(root, node map[string]any, tok string) map[string]any {
	node = deref(root, node)
	if node == nil {
		return nil
	}
	if props, ok := node["properties"].(map[string]any); ok {
		if m, ok := props[tok].(map[string]any); ok {
			return m
		}
	}
	if ref, ok := node["$ref"].(string); ok {
		if m := step(root, resolveRef(root, ref), tok); m != nil {
			return m
		}
	}
	if isIndex(tok) {
		if m, ok := node["items"].(map[string]any); ok {
			return m
		}
	}
	if m, ok := node["additionalProperties"].(map[string]any); ok {
		return m
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := node[key].([]any); ok {
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok {
					if r := step(root, m, tok); r != nil {
						return r
					}
				}
			}
		}
	}
	return nil
}

func collectProperties(root, node map[string]any, set map[string]bool, depth int) {
	if node == nil || depth > 8 {
		return
	}
	if props, ok := node["properties"].(map[string]any); ok {
		for k := range props {
			set[k] = true
		}
	}
	if ref, ok := node["$ref"].(string); ok {
		collectProperties(root, resolveRef(root, ref), set, depth+1)
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := node[key].([]any); ok {
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok {
					collectProperties(root, m, set, depth+1)
				}
			}
		}
	}
}

// suggest returns "; did you mean X?" for a near miss, else the list of
// known fields, so an unknown-field error always says what would work.
func suggest(got string, known []string) string {
	if len(known) == 0 {
		return ""
	}
	if best := nearest(got, known); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return "; expected one of: " + strings.Join(known, ", ")
}

// nearest is the known name within two edits of got, ignoring case ("" when
// none is).
func nearest(got string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := names.Distance(strings.ToLower(got), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}
