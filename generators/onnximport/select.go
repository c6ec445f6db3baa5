package onnximport

import (
	"slices"
	"sort"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/registry"
)

// Selection says which nodes become plugin ops. A node is selected when
// any selector matches it.
type Selection struct {
	// Nodes are node names.
	Nodes []string
	// OpTypes are op types, in any domain: the ops the target lacks.
	OpTypes []string
	// UnsupportedFor is a target (a key of FrontEnds) whose ONNX front end
	// does not run the node's op. Nodes that already call a custom op of
	// some target's runtime (target.NodeReader) are left alone.
	UnsupportedFor string
	// FrontEnds are the targets' ONNX front ends (registry.FrontEnds).
	FrontEnds map[string]*onnx.FrontEnd
}

// Empty reports a selection with no selector.
func (s Selection) Empty() bool {
	return len(s.Nodes) == 0 && len(s.OpTypes) == 0 && s.UnsupportedFor == ""
}

// Select returns the selected nodes of the main graph and its subgraphs,
// in model order. A name or op type that matches nothing is an error: it
// is a typo more often than not.
func Select(m *onnx.Model, path string, s Selection, l *diag.List) []*onnx.Node {
	pos := diag.Pos{File: path}
	var fe *onnx.FrontEnd
	if s.UnsupportedFor != "" {
		if fe = s.FrontEnds[s.UnsupportedFor]; fe == nil {
			names := make([]string, 0, len(s.FrontEnds))
			for t := range s.FrontEnds {
				names = append(names, t)
			}
			sort.Strings(names)
			l.Errorf(pos, "onnx-select", "no list of the ONNX ops %q runs; --unsupported-for takes %s", s.UnsupportedFor, strings.Join(names, ", "))
			return nil
		}
	}
	byName := map[string]bool{}
	for _, n := range s.Nodes {
		byName[n] = true
	}
	byType := map[string]bool{}
	for _, t := range s.OpTypes {
		byType[t] = true
	}
	readers := registry.NodeReaders()
	matchedName, matchedType := map[string]bool{}, map[string]bool{}
	var out []*onnx.Node
	for _, n := range m.Nodes() {
		sel := false
		if n.Name != "" && byName[n.Name] {
			matchedName[n.Name], sel = true, true
		}
		if byType[n.OpType] {
			matchedType[n.OpType], sel = true, true
		}
		if fe != nil && !fe.Runs(n) && !callsCustomOp(readers, n) {
			sel = true
		}
		if sel {
			out = append(out, n)
		}
	}
	missing := func(want []string, got map[string]bool, what string) {
		var miss []string
		for _, w := range want {
			if !got[w] {
				miss = append(miss, w)
			}
		}
		if len(miss) > 0 {
			l.Errorf(pos, "onnx-select", "no %s %s in the model (nodes of subgraphs included)", what, quoteList(miss))
		}
	}
	missing(s.Nodes, matchedName, "node named")
	missing(s.OpTypes, matchedType, "node of op type")
	if fe != nil && len(out) == 0 && !l.HasErrors() {
		l.Warnf(pos, "onnx-select", "every node of the model is an op %s runs (per %s); nothing to import", s.UnsupportedFor, fe.Source)
	}
	return out
}

// callsCustomOp: some target's runtime takes node n for a call of a
// custom op already.
func callsCustomOp(readers []registry.NamedNodeReader, n *onnx.Node) bool {
	return slices.ContainsFunc(readers, func(r registry.NamedNodeReader) bool { return r.CallsCustomOp(n) })
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = `"` + v + `"`
	}
	sort.Strings(q)
	return strings.Join(q, ", ")
}
