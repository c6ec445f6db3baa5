package yamldef

import (
	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/diag"
)

// fieldOrder is the canonical key order of each kind of mapping; keys not
// listed keep their relative order after the listed ones.
var fieldOrder = map[string][]string{
	"root":    {"version", "package", "targets", "ops"},
	"package": {"name", "domain", "version", "namespace", "description", "acknowledge"},
	"op":      {"name", "description", "references", "onnx", "torch", "verify", "types", "inputs", "params", "outputs", "data_dependent", "requires", "use_default_translation", "targets", "acknowledge"},
	"tensor":  {"name", "type", "shape", "rank", "layout", "optional", "variadic", "static", "shape_tensor", "count", "dtype_param", "range", "default", "description", "shape_text", "dynamic_shape_text", "constraints"},
	"param":   {"name", "type", "values", "storage", "dtype_code", "codes", "rank", "default", "mandatory", "min", "exclusive_min", "max", "exclusive_max", "layout", "description", "shape_text", "constraints"},
}

// Format returns the canonical form of a YAML OpDef document: canonical
// key order and two-space indentation, with every comment and the
// user's choice of flow or block style kept. Formatting is idempotent.
func Format(file string, data []byte, l *diag.List) ([]byte, bool) {
	doc, ok := Parse(file, data, l)
	if !ok {
		return nil, false
	}
	root := doc.Content[0]
	reorder(root, "root")
	for _, op := range seqItems(member(root, "ops")) {
		reorder(op, "op")
		for _, key := range []string{"inputs", "outputs"} {
			for _, t := range seqItems(member(op, key)) {
				reorder(t, "tensor")
			}
		}
		for _, p := range seqItems(member(op, "params")) {
			reorder(p, "param")
		}
	}
	reorder(member(root, "package"), "package")
	out, err := encode(doc, "")
	if err != nil {
		l.Errorf(diag.Pos{File: file}, "yaml-format", "cannot format: %v", err)
		return nil, false
	}
	return out, true
}

func member(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func seqItems(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

func reorder(m *yaml.Node, kind string) {
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	rank := map[string]int{}
	for i, k := range fieldOrder[kind] {
		rank[k] = i
	}
	type pair struct{ k, v *yaml.Node }
	var listed, rest []pair
	for i := 0; i+1 < len(m.Content); i += 2 {
		p := pair{m.Content[i], m.Content[i+1]}
		if _, ok := rank[p.k.Value]; ok {
			listed = append(listed, p)
		} else {
			rest = append(rest, p)
		}
	}
	// insertion sort: stable and tiny.
	for i := 1; i < len(listed); i++ {
		for j := i; j > 0 && rank[listed[j].k.Value] < rank[listed[j-1].k.Value]; j-- {
			listed[j], listed[j-1] = listed[j-1], listed[j]
		}
	}
	m.Content = m.Content[:0]
	for _, p := range append(listed, rest...) {
		m.Content = append(m.Content, p.k, p.v)
	}
}
