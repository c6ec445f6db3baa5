package onnx_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/onnx/onnxtest"
)

// FuzzRead: no input makes the reader or the rewriter panic or hang; a
// model that reads re-emits its exact bytes when nothing changes, and
// rewriting a node gives a model that reads again with that node changed
// and every node still there.
func FuzzRead(f *testing.F) {
	f.Add(sample().Bytes())
	f.Add(onnxtest.Model{Graph: onnxtest.Graph{Nodes: []onnxtest.Node{{OpType: "Foo", Inputs: []string{"x"}, Outputs: []string{"y"}}}}}.Bytes())
	onnxtest.AddSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer onnxtest.Deadline(5*time.Second, data)()
		m, err := onnx.Read(data)
		if err != nil {
			return
		}
		out, err := m.Rewrite(nil, nil)
		if err != nil || !bytes.Equal(out, data) {
			t.Fatalf("rewrite without edits changed the model (err %v)", err)
		}
		nodes := m.Nodes()
		if len(nodes) == 0 {
			return
		}
		last := nodes[len(nodes)-1]
		out, err = m.Rewrite(map[*onnx.Node]onnx.NodeEdit{last: {OpType: "Plugin", Attrs: []onnx.NewAttr{onnx.StringAttr("plugin_version", "1")}}}, []onnx.OpsetID{{Domain: "x", Version: 1}})
		if err != nil {
			t.Fatalf("rewrite: %v", err)
		}
		m2, err := onnx.Read(out)
		if err != nil {
			t.Fatalf("rewritten model does not read: %v", err)
		}
		nodes2 := m2.Nodes()
		if len(nodes2) != len(nodes) || nodes2[len(nodes2)-1].OpType != "Plugin" {
			t.Fatalf("rewritten model has %d nodes (was %d), last %s", len(nodes2), len(nodes), nodes2[len(nodes2)-1])
		}
	})
}
