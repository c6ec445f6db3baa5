package onnximport

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/onnx/onnxtest"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/targets/trt"
)

// largeChain is a chain of n typed Relu nodes with one custom Swish3 node
// in the middle: the shape of the 1e6-node model of issue 29 (58 MB at
// n = 1e6), every value typed by value_info as exporters write it.
func largeChain(n int) []byte {
	m := onnxtest.Model{Opsets: []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "custom", Version: 1}}}
	g := &m.Graph
	g.Name = "chain"
	g.Nodes = make([]onnxtest.Node, 0, n)
	g.ValueInfo = make([]onnxtest.Value, 0, n)
	prev := "x"
	for i := range n {
		out := fmt.Sprintf("v%d", i)
		node := onnxtest.Node{Name: fmt.Sprintf("n%d", i), OpType: "Relu", Inputs: []string{prev}, Outputs: []string{out}}
		if i == n/2 {
			node.OpType, node.Domain = "Swish3", "custom"
			node.Attrs = []onnxtest.Attr{{Name: "beta", Type: onnxtest.AttrFloat, F: 1}}
		}
		g.Nodes = append(g.Nodes, node)
		if i < n-1 {
			g.ValueInfo = append(g.ValueInfo, f32(out, 1, 4))
		}
		prev = out
	}
	g.Inputs = []T{f32("x", 1, 4)}
	g.Outputs = []T{f32(prev, 1, 4)}
	return m.Bytes()
}

func importLarge(b testing.TB, data []byte, sel Selection) (*Result, *diag.List) {
	m, err := onnx.Read(data)
	if err != nil {
		b.Fatal(err)
	}
	var l diag.List
	sel.FrontEnds = registry.FrontEnds()
	res := Import(m, "chain.onnx", Options{Selection: sel, Targets: []string{"trt"}}, &l)
	return res, &l
}

// BenchmarkImportLargeModel reads and imports a 1e5-node model, selecting
// its one custom node.
func BenchmarkImportLargeModel(b *testing.B) {
	data := largeChain(100_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if res, l := importLarge(b, data, Selection{OpTypes: []string{"Swish3"}}); res == nil {
			b.Fatal(l.Sorted())
		}
	}
}

// BenchmarkImportLargeModelAll selects every node of the 1e5-node model.
func BenchmarkImportLargeModelAll(b *testing.B) {
	data := largeChain(100_000)
	b.ReportAllocs()
	for b.Loop() {
		importLarge(b, data, Selection{OpTypes: []string{"Relu"}})
	}
}

// TestLargeModel: a 1e5-node model imports its one custom node and
// rewrites it, and selecting every node derives and plans the 99,999 like
// Relu nodes once: the work does not grow a node's derivation per node.
// Errors about a million failing nodes are capped.
func TestLargeModel(t *testing.T) {
	const n = 100_000
	data := largeChain(n)
	res, l := importLarge(t, data, Selection{OpTypes: []string{"Swish3"}})
	if res == nil || len(res.Calls) != 1 || res.Calls[0].Node.Name != "n50000" {
		t.Fatalf("import: %v %v", res, l.Sorted())
	}

	// Every node: 2 ops, and the Relu nodes' op derived from one node.
	m, err := onnx.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	var il diag.List
	opts := Options{Selection: Selection{OpTypes: []string{"Relu", "Swish3"}, FrontEnds: registry.FrontEnds()}, Targets: []string{"trt"}, Rename: map[string]string{"Relu": "ReluP"}}
	derived := 0
	deriveHook = func() { derived++ }
	defer func() { deriveHook = nil }()
	all := Import(m, "chain.onnx", opts, &il)
	if all == nil || len(all.Calls) != n || len(all.Package.Ops) != 2 {
		t.Fatalf("import all: %v", il.Sorted())
	}
	if derived != 2 {
		t.Errorf("derived %d nodes, want 2 (one per kind of node)", derived)
	}
	var pl diag.List
	edits, opsets := Plan(m, "chain.onnx", all.Calls, all.Package, trt.Target{}, false, &pl)
	if pl.HasErrors() || len(edits) != n {
		t.Fatalf("plan: %d edits, %v", len(edits), pl.Sorted())
	}
	out, err := m.Rewrite(edits, opsets)
	if err != nil {
		t.Fatal(err)
	}
	got, err := onnx.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	nodes := got.Nodes()
	if len(nodes) != n || nodes[0].OpType != "ReluP" || nodes[n/2].OpType != "Swish3" || nodes[n-1].Attr("plugin_version") == nil {
		t.Errorf("rewritten: %d nodes, %s, %s", len(nodes), nodes[0], nodes[n/2])
	}

	// A standard name for 1e5 nodes is one error; a rewrite against an
	// opdef without their op lists 20 nodes and counts the rest.
	delete(opts.Rename, "Relu")
	var sl diag.List
	if Import(m, "chain.onnx", opts, &sl) != nil || len(sl.Sorted()) != 1 {
		t.Errorf("standard name: %v", sl.Sorted())
	}
	all.Package.Ops = all.Package.Ops[1:]
	var el diag.List
	Plan(m, "chain.onnx", all.Calls, all.Package, trt.Target{}, false, &el)
	errs := el.Sorted()
	counted := slices.ContainsFunc(errs, func(d diag.Diagnostic) bool {
		return strings.Contains(d.Message, "and 99979 more node(s) with this error")
	})
	if len(errs) != maxPerCode+1 || !counted {
		t.Errorf("%d errors: %v", len(errs), errs[:min(len(errs), 3)])
	}
}

// TestReadAllocations: reading a model costs a bounded number of
// allocations, not some per node, name or value (the 1e6-node model of
// issue 29 made 38 million).
func TestReadAllocations(t *testing.T) {
	data := largeChain(20_000)
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := onnx.Read(data); err != nil {
			t.Fatal(err)
		}
	})
	// Chunks of 4096 nodes, value infos and names, and the graph's
	// slices growing by doubling.
	if allocs > 200 {
		t.Errorf("Read made %.0f allocations for 20,000 nodes", allocs)
	}
}

// TestReadLimits: a model over the node limit, or over the decoded-size
// limit, is refused at the node that passes it, positioned, without
// decoding the rest.
func TestReadLimits(t *testing.T) {
	data := largeChain(10_000)
	_, err := onnx.ReadLimited(data, onnx.Limits{Nodes: 1000, Decoded: 1 << 30})
	var fe *onnx.FormatError
	if !errors.As(err, &fe) || !fe.Limit || fe.Path != "graph.node[1000]" || !strings.Contains(fe.Msg, "over 1000 nodes") {
		t.Fatalf("node limit: %v", err)
	}
	// The 1001st node's tag, well before the end of the file.
	if fe.Offset <= 0 || fe.Offset > len(data)/5 {
		t.Errorf("refused at byte %d of %d", fe.Offset, len(data))
	}
	_, err = onnx.ReadLimited(data, onnx.Limits{Nodes: 1 << 20, Decoded: 100 << 10})
	if !errors.As(err, &fe) || !fe.Limit || !strings.HasPrefix(fe.Path, "graph.node[") || !strings.Contains(fe.Msg, "decodes to over 0 MiB") {
		t.Fatalf("size limit: %v", err)
	}
	if _, err := onnx.ReadLimited(data, onnx.Limits{Nodes: 10_000, Decoded: 16 << 20}); err != nil {
		t.Errorf("within the limits: %v", err)
	}
}
