package yamldef

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/schemas"
)

// opTargetNames are the targets an op may name, in the schema's order
// (the properties of $defs.opTargets): an op without a targets section
// generates for all of them, each with a section of its defaults.
var opTargetNames = sync.OnceValue(func() []string {
	var doc struct {
		Defs struct {
			OpTargets struct {
				Properties json.RawMessage `json:"properties"`
			} `json:"opTargets"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schemas.OpDefJSON, &doc); err != nil {
		panic("embedded opdef schema: " + err.Error())
	}
	dec := json.NewDecoder(bytes.NewReader(doc.Defs.OpTargets.Properties))
	var names []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			// A key of the properties object: at depth 1, every other
			// string there is a value, and values are objects here.
			if depth == 1 {
				names = append(names, v)
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return names
				}
			}
		}
	}
	if len(names) == 0 {
		panic("embedded opdef schema: $defs.opTargets has no properties")
	}
	return names
})

// section converts a target's section as written into the core's opaque,
// positioned node; the target decodes it. Aliases are resolved (the
// document's size is already bounded), duplicate keys keep the first.
func (b *builder) section(n *yaml.Node) *ir.Node { return b.node(n, 0) }

func (b *builder) node(n *yaml.Node, depth int) *ir.Node {
	n = resolve(n)
	if n == nil || depth > maxDepth {
		return nil
	}
	out := &ir.Node{Pos: b.pos(n), Flow: n.Style&yaml.FlowStyle != 0}
	switch n.Kind {
	case yaml.MappingNode:
		out.Kind = ir.MapNode
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := resolve(n.Content[i])
			if k == nil || seen[k.Value] {
				continue
			}
			seen[k.Value] = true
			out.Entries = append(out.Entries, &ir.Entry{Key: k.Value, KeyPos: b.pos(k), Value: b.node(n.Content[i+1], depth+1)})
		}
	case yaml.SequenceNode:
		out.Kind = ir.ListNode
		for _, c := range n.Content {
			out.Items = append(out.Items, b.node(c, depth+1))
		}
	default:
		out.Kind = ir.ScalarNode
		out.Value = n.Value
		out.Scalar = ir.ScalarType(strings.TrimPrefix(n.ShortTag(), "!!"))
		switch {
		case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
			out.Style = ir.StyleQuoted
		case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
			out.Style = ir.StyleBlock
		}
	}
	return out
}

// sectionNode writes a target's section (its canonical node, see
// ir.Section.Written) in the style the node asks for; an absent node (the
// target's defaults) is an empty map.
func sectionNode(n *ir.Node) *yaml.Node {
	if n == nil {
		return mapping(true)
	}
	switch n.Kind {
	case ir.MapNode:
		m := mapping(n.Flow)
		for _, e := range n.Entries {
			add(m, e.Key, sectionNode(e.Value))
		}
		return m
	case ir.ListNode:
		s := seq(n.Flow)
		for _, it := range n.Items {
			s.Content = append(s.Content, sectionNode(it))
		}
		return s
	}
	switch n.Scalar {
	case ir.ScalarString, "":
		return str(n.Value)
	case ir.ScalarNull:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case ir.ScalarPlain:
		// Untagged: written plain where YAML allows, typed on reading.
		return &yaml.Node{Kind: yaml.ScalarNode, Value: n.Value}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!" + string(n.Scalar), Value: n.Value}
}
