package onnximport

import (
	"fmt"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/onnx/onnxtest"
	"github.com/opforge/opforge/generators/targets"
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
	sel.FrontEnds = targets.FrontEnds()
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
