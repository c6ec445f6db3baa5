package onnx_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/onnx/onnxtest"
)

// unknownField is a field number onnx.proto does not use (999, varint 42):
// it stands for fields newer ONNX versions or other tools add.
var unknownField = []byte{0xb8, 0x3e, 42}

// sample has a custom op with every attribute kind, a subgraph holding a
// node, an initializer with external data and unknown fields at every
// level.
func sample() onnxtest.Model {
	body := onnxtest.Graph{
		Name:    "then",
		Nodes:   []onnxtest.Node{{Name: "inner", OpType: "Scatter3D", Domain: "custom", Inputs: []string{"x"}, Outputs: []string{"t"}}},
		Outputs: []onnxtest.Value{{Name: "t", Elem: onnxtest.Float, Dims: []any{"N", 4}}},
	}
	return onnxtest.Model{
		Opsets:   []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "custom", Version: 1}},
		Producer: "opforge-test",
		Graph: onnxtest.Graph{
			Name: "g",
			Nodes: []onnxtest.Node{
				{Name: "relu", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"r"}},
				{Name: "roi", OpType: "RoiAlignLite", Domain: "custom", Inputs: []string{"r", "w"}, Outputs: []string{"y"},
					Attrs: []onnxtest.Attr{
						{Name: "pooled_hw", Type: onnxtest.AttrInts, Ints: []int64{7, 7}},
						{Name: "spatial_scale", Type: onnxtest.AttrFloat, F: 0.25},
						{Name: "mode", Type: onnxtest.AttrString, S: "avg"},
						{Name: "plugin_version", Type: onnxtest.AttrString, S: "old"},
						{Name: "weights", Type: onnxtest.AttrTensor, T: &onnxtest.Tensor{Dims: []int64{2, 2}, DataType: onnxtest.Float16, Raw: make([]byte, 8)}},
					},
					Extra: unknownField},
				{Name: "cond", OpType: "If", Inputs: []string{"c"}, Outputs: []string{"t"}, Attrs: []onnxtest.Attr{{Name: "then_branch", Type: onnxtest.AttrGraph, G: &body}, {Name: "else_branch", Type: onnxtest.AttrGraph, G: &body}}},
			},
			Initializers: []onnxtest.Tensor{{Name: "w", Dims: []int64{4}, DataType: onnxtest.Float, External: [][2]string{{"location", "weights.bin"}, {"offset", "0"}, {"length", "16"}}}},
			Inputs:       []onnxtest.Value{{Name: "x", Elem: onnxtest.Float, Dims: []any{"N", 3, nil}}, {Name: "c", Elem: onnxtest.Bool, Dims: []any{}}},
			Outputs:      []onnxtest.Value{{Name: "y", Elem: onnxtest.Float, Dims: []any{"N", 3, 7, 7}}},
			ValueInfo:    []onnxtest.Value{{Name: "r", Elem: onnxtest.Float, Unranked: true}},
			Extra:        unknownField,
		},
		Extra: unknownField,
	}
}

func TestReadDecodesWhatImportNeeds(t *testing.T) {
	m, err := onnx.Read(sample().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if m.IRVersion != 8 || m.Producer != "opforge-test" || len(m.Opsets) != 2 {
		t.Errorf("model header: %+v", m)
	}
	if v, ok := m.OpsetVersion("ai.onnx"); !ok || v != 17 {
		t.Errorf("default opset: %d %v", v, ok)
	}
	nodes := m.Nodes()
	var ops []string
	for _, n := range nodes {
		ops = append(ops, n.OpType)
	}
	if got := strings.Join(ops, " "); got != "Relu RoiAlignLite If Scatter3D Scatter3D" {
		t.Errorf("depth-first node order: %s", got)
	}
	roi := nodes[1]
	if roi.Domain != "custom" || len(roi.Inputs) != 2 || roi.Attr("pooled_hw").Type != onnx.AttrInts {
		t.Errorf("roi node: %+v", roi)
	}
	if a := roi.Attr("spatial_scale"); a.Type != onnx.AttrFloat || a.F != 0.25 {
		t.Errorf("float attr: %+v", a)
	}
	if a := roi.Attr("weights"); a.T == nil || a.T.DataType != onnx.Float16 || len(a.T.Dims) != 2 {
		t.Errorf("tensor attr: %+v", a)
	}
	inner := nodes[3]
	if inner.Graph.Parent != m.Graph || inner.Graph.Owner != nodes[2] || !strings.Contains(inner.String(), `then_branch body of node "cond"`) {
		t.Errorf("subgraph scope: %s", inner)
	}
	x := m.Graph.Inputs[0].Type()
	if x.String() != "FLOAT[N,3,?]" {
		t.Errorf("input type: %s", x)
	}
	if r := m.Graph.ValueInfo[0].Type(); r.Ranked || r.Elem != onnx.Float {
		t.Errorf("unranked value info: %s", r)
	}
	if len(m.External) != 1 || m.External[0].Location != "weights.bin" || m.External[0].Tensor != "w" {
		t.Errorf("external refs: %+v", m.External)
	}
}

func TestRewriteWithoutEditsIsIdentity(t *testing.T) {
	data := sample().Bytes()
	m, err := onnx.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.Rewrite(nil, nil)
	if err != nil || !bytes.Equal(out, data) {
		t.Fatalf("rewrite without edits changed the bytes (err %v)", err)
	}
}

func TestRewriteChangesOnlyTheEditedNodes(t *testing.T) {
	src := sample()
	data := src.Bytes()
	m, err := onnx.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	nodes := m.Nodes()
	domain := "vision"
	edits := map[*onnx.Node]onnx.NodeEdit{
		nodes[1]: {OpType: "RoiAlignLitePlugin", Attrs: []onnx.NewAttr{onnx.StringAttr("plugin_namespace", "vision"), onnx.StringAttr("plugin_version", "1.2.0")}},
		nodes[3]: {OpType: "Scatter3DPlugin", Domain: &domain, Attrs: []onnx.NewAttr{
			{Name: "k", Type: onnx.AttrInts, Ints: []int64{1, -2}},
			{Name: "alpha", Type: onnx.AttrFloat, F: -0.25},
			{Name: "gains", Type: onnx.AttrFloats, Floats: []float32{1.5, 3e-8}},
		}},
	}
	out, err := m.Rewrite(edits, []onnx.OpsetID{{Domain: "vision", Version: 1}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := onnx.Read(out)
	if err != nil {
		t.Fatalf("rewritten model does not read back: %v", err)
	}
	gn := got.Nodes()
	if gn[1].OpType != "RoiAlignLitePlugin" || gn[1].Domain != "custom" {
		t.Errorf("edited node: %s domain %q", gn[1], gn[1].Domain)
	}
	var names []string
	for _, a := range gn[1].Attributes {
		names = append(names, a.Name)
	}
	// plugin_version is replaced where it stood; plugin_namespace follows the last attribute.
	if strings.Join(names, ",") != "pooled_hw,spatial_scale,mode,plugin_version,weights,plugin_namespace" {
		t.Errorf("attribute order: %v", names)
	}
	if a := gn[1].Attr("plugin_version"); string(a.S) != "1.2.0" || a.Type != onnx.AttrString {
		t.Errorf("plugin_version: %+v", a)
	}
	if a := gn[1].Attr("pooled_hw"); len(a.Ints) != 2 || a.Ints[1] != 7 {
		t.Errorf("untouched attribute: %+v", a)
	}
	// The subgraph node in then_branch changed; the one in else_branch,
	// decoded from its own bytes, did not.
	if gn[3].OpType != "Scatter3DPlugin" || gn[3].Domain != "vision" || gn[3].Attr("k").Ints[1] != -2 {
		t.Errorf("subgraph node: %s %q %+v", gn[3], gn[3].Domain, gn[3].Attr("k"))
	}
	if a, g := gn[3].Attr("alpha"), gn[3].Attr("gains"); a.Type != onnx.AttrFloat || a.F != -0.25 ||
		g.Type != onnx.AttrFloats || len(g.Floats) != 2 || g.Floats[0] != 1.5 || g.Floats[1] != 3e-8 {
		t.Errorf("float attributes: %+v %+v", a, g)
	}
	if gn[4].OpType != "Scatter3D" {
		t.Errorf("else branch changed: %s", gn[4])
	}
	if v, ok := got.OpsetVersion("vision"); !ok || v != 1 || len(got.Opsets) != 3 {
		t.Errorf("opsets: %+v", got.Opsets)
	}
	// Untouched messages travel byte for byte: the Relu node, the
	// initializer (external data entries included), the value infos and
	// every unknown field.
	for name, want := range map[string][]byte{
		"relu node":   src.Graph.Nodes[0].Bytes(),
		"initializer": src.Graph.Initializers[0].Bytes(),
		"graph input": src.Graph.Inputs[0].Bytes(),
		"value info":  src.Graph.ValueInfo[0].Bytes(),
		"attribute":   src.Graph.Nodes[1].Attrs[0].Bytes(),
		"else branch": src.Graph.Nodes[2].Attrs[1].G.Bytes(),
	} {
		if !bytes.Contains(out, want) {
			t.Errorf("%s was not copied byte for byte", name)
		}
	}
	if n := bytes.Count(out, unknownField); n != bytes.Count(data, unknownField) {
		t.Errorf("unknown fields: %d in the rewritten model, %d in the source", n, bytes.Count(data, unknownField))
	}
	if got.External[0].Location != "weights.bin" {
		t.Errorf("external data: %+v", got.External)
	}
}

func TestRewriteRefusesForeignNodes(t *testing.T) {
	a, _ := onnx.Read(sample().Bytes())
	b, _ := onnx.Read(sample().Bytes())
	if _, err := a.Rewrite(map[*onnx.Node]onnx.NodeEdit{b.Nodes()[0]: {OpType: "X"}}, nil); err == nil {
		t.Error("a node of another model was accepted")
	}
}

func TestMalformedModels(t *testing.T) {
	data := sample().Bytes()
	// A protobuf message has no overall length, so a file cut between two
	// top-level fields after the graph is a valid (smaller) model. Every
	// other cut is an error, never a panic or a silently partial graph.
	boundaries := map[int]bool{}
	graphEnd := 0
	for i := 0; i < len(data); {
		num, typ, n := protowire.ConsumeTag(data[i:])
		n += protowire.ConsumeFieldValue(num, typ, data[i+n:])
		i += n
		boundaries[i] = true
		if num == 7 {
			graphEnd = i
		}
	}
	for n := 0; n < len(data); n++ {
		_, err := onnx.Read(data[:n])
		if valid := n >= graphEnd && boundaries[n]; (err == nil) != valid {
			t.Fatalf("truncated at %d of %d bytes: error %v", n, len(data), err)
		}
	}
	dupGraph := append(append([]byte{}, data...), data[2:]...)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "no graph"},
		{"text file", []byte("# yaml-language-server: $schema=x\nversion: 1\n"), "byte 0"},
		{"bad length", []byte{0x3a, 0xff, 0xff, 0xff, 0xff, 0x0f}, "field 7"},
		{"field number zero", []byte{0x00, 0x01}, "bad field tag"},
		{"no graph", []byte{0x08, 0x08}, "no graph"},
		{"graph twice", dupGraph, "appears twice"},
		{"bad node", onnxtest.Model{Graph: onnxtest.Graph{Extra: []byte{0x0a, 0x02, 0x0a, 0x05}}}.Bytes(), "graph.node[0]"},
	} {
		_, err := onnx.Read(c.data)
		var fe *onnx.FormatError
		if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a FormatError mentioning %q", c.name, err, c.want)
		}
	}
}

func TestStandardOps(t *testing.T) {
	for _, c := range []struct {
		op   string
		want bool
	}{{"Gemm", true}, {"NonZero", true}, {"ImageScaler", true}, {"TreeEnsemble", true}, {"RoiAlignLite", false}, {"gemm", false}} {
		if _, ok := onnx.StandardOp(c.op); ok != c.want {
			t.Errorf("StandardOp(%q) = %v", c.op, ok)
		}
	}
}

func TestExternalLocations(t *testing.T) {
	for loc, ok := range map[string]bool{"w.bin": true, "data/w.bin": true, "": false, "/abs/w.bin": false, "../w.bin": false, "a/../../w.bin": false} {
		if err := onnx.CheckExternalLocation(loc); (err == nil) != ok {
			t.Errorf("CheckExternalLocation(%q) = %v", loc, err)
		}
	}
}
