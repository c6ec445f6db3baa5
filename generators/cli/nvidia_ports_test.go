package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/onnx/onnxtest"
)

// TestNVIDIAROIAlignNodeFindsThePort: a node as a model exported for
// NVIDIA's ROIAlign_TRT version 2 carries it (op type ROIAlign_TRT, NVIDIA's
// six attributes as ints and a float, plugin_version "2" and an empty
// plugin_namespace, int32 batch indices) fits the shipped port in
// opdefs/nvidia_ports; `rewrite onnx` calls it without changing the node's
// op type or attributes.
func TestNVIDIAROIAlignNodeFindsThePort(t *testing.T) {
	dir := t.TempDir()
	m := onnxtest.Model{
		Opsets: []onnxtest.Opset{{Domain: "", Version: 17}},
		Graph: onnxtest.Graph{
			Name: "g",
			Nodes: []onnxtest.Node{{Name: "roi_align", OpType: "ROIAlign_TRT", Inputs: []string{"X", "rois", "batch_indices"}, Outputs: []string{"Y"},
				Attrs: []onnxtest.Attr{
					{Name: "coordinate_transformation_mode", Type: onnxtest.AttrInt, I: 1},
					{Name: "mode", Type: onnxtest.AttrInt, I: 0},
					{Name: "output_height", Type: onnxtest.AttrInt, I: 7},
					{Name: "output_width", Type: onnxtest.AttrInt, I: 5},
					{Name: "sampling_ratio", Type: onnxtest.AttrInt, I: 2},
					{Name: "spatial_scale", Type: onnxtest.AttrFloat, F: 0.0625},
					{Name: "plugin_version", Type: onnxtest.AttrString, S: "2"},
					{Name: "plugin_namespace", Type: onnxtest.AttrString, S: ""},
				}}},
			Inputs: []onnxtest.Value{
				{Name: "X", Elem: onnxtest.Float, Dims: []any{"N", 256, 14, 14}},
				{Name: "rois", Elem: onnxtest.Float, Dims: []any{"R", 4}},
				{Name: "batch_indices", Elem: onnxtest.Int32, Dims: []any{"R"}},
			},
			Outputs: []onnxtest.Value{{Name: "Y", Elem: onnxtest.Float, Dims: []any{"R", 256, 7, 5}}},
		},
	}
	model := writeModel(t, dir, m)
	rewritten := filepath.Join(dir, "out.onnx")
	code, out, errs := run("rewrite", "onnx", model, "--opdef", "../../testdata/gen/examples/opdefs/nvidia_ports/nvidia_ports.yaml", "--op-types", "ROIAlign_TRT", "-o", rewritten)
	if code != 0 || !strings.Contains(out, "-> ::ROIAlign_TRT version 2") {
		t.Fatalf("rewrite: exit %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(rewritten)
	if err != nil {
		t.Fatal(err)
	}
	got, err := onnx.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	node, before := got.Nodes()[0], m.Graph.Nodes[0]
	// The node keeps its op type and every attribute (only its domain
	// moves from ONNX's to the package's, which TensorRT's parser ignores).
	if node.OpType != before.OpType || len(node.Attributes) != len(before.Attrs) {
		t.Fatalf("rewritten node: %s %+v", node, node.Attributes)
	}
	for _, a := range before.Attrs {
		if r := node.Attr(a.Name); r == nil || string(r.S) != a.S || r.I != a.I || r.F != a.F {
			t.Errorf("attribute %s changed: %+v", a.Name, r)
		}
	}

	// A node the port cannot take is refused, naming why: NVIDIA's
	// plugin too takes int32 batch indices only.
	m.Graph.Inputs[2].Elem = onnxtest.Int64
	model = writeModel(t, t.TempDir(), m)
	code, out, errs = run("rewrite", "onnx", model, "--opdef", "../../testdata/gen/examples/opdefs/nvidia_ports/nvidia_ports.yaml", "--op-types", "ROIAlign_TRT", "-o", filepath.Join(dir, "bad.onnx"))
	if code == 0 || !strings.Contains(errs, `input 2 ("batch_indices") is int64`) {
		t.Errorf("int64 batch indices: exit %d\n%s%s", code, out, errs)
	}
}

// TestNVIDIAModulatedDeformConvNodesFindThePort: nodes as a model exported
// for NVIDIA's ModulatedDeformConv2d version 2 carries them (op type
// ModulatedDeformConv2d, stride, padding and dilation as two ints, group and
// deformable_group as ints, plugin_version "2" and an empty
// plugin_namespace), one with bias and one without, both fit the shipped
// port; `rewrite onnx` calls them without changing their op type,
// attributes or inputs.
func TestNVIDIAModulatedDeformConvNodesFindThePort(t *testing.T) {
	dir := t.TempDir()
	attrs := []onnxtest.Attr{
		{Name: "stride", Type: onnxtest.AttrInts, Ints: []int64{1, 1}},
		{Name: "padding", Type: onnxtest.AttrInts, Ints: []int64{1, 1}},
		{Name: "dilation", Type: onnxtest.AttrInts, Ints: []int64{1, 1}},
		{Name: "group", Type: onnxtest.AttrInt, I: 1},
		{Name: "deformable_group", Type: onnxtest.AttrInt, I: 2},
		{Name: "plugin_version", Type: onnxtest.AttrString, S: "2"},
		{Name: "plugin_namespace", Type: onnxtest.AttrString, S: ""},
	}
	m := onnxtest.Model{
		Opsets: []onnxtest.Opset{{Domain: "", Version: 17}},
		Graph: onnxtest.Graph{
			Name: "g",
			Nodes: []onnxtest.Node{
				{Name: "dcn_bias", OpType: "ModulatedDeformConv2d", Inputs: []string{"x", "offset", "mask", "weight", "bias"}, Outputs: []string{"y1"}, Attrs: attrs},
				{Name: "dcn", OpType: "ModulatedDeformConv2d", Inputs: []string{"x", "offset", "mask", "weight"}, Outputs: []string{"y2"}, Attrs: attrs},
			},
			Inputs: []onnxtest.Value{
				{Name: "x", Elem: onnxtest.Float, Dims: []any{"N", 64, 32, 32}},
				{Name: "offset", Elem: onnxtest.Float, Dims: []any{"N", 36, 32, 32}},
				{Name: "mask", Elem: onnxtest.Float, Dims: []any{"N", 18, 32, 32}},
				{Name: "weight", Elem: onnxtest.Float, Dims: []any{64, 64, 3, 3}},
				{Name: "bias", Elem: onnxtest.Float, Dims: []any{64}},
			},
			Outputs: []onnxtest.Value{
				{Name: "y1", Elem: onnxtest.Float, Dims: []any{"N", 64, 32, 32}},
				{Name: "y2", Elem: onnxtest.Float, Dims: []any{"N", 64, 32, 32}},
			},
		},
	}
	model := writeModel(t, dir, m)
	rewritten := filepath.Join(dir, "out.onnx")
	code, out, errs := run("rewrite", "onnx", model, "--opdef", "../../testdata/gen/examples/opdefs/nvidia_ports/nvidia_ports.yaml", "--op-types", "ModulatedDeformConv2d", "-o", rewritten)
	if code != 0 || strings.Count(out, "-> ::ModulatedDeformConv2d version 2") != 2 {
		t.Fatalf("rewrite: exit %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(rewritten)
	if err != nil {
		t.Fatal(err)
	}
	got, err := onnx.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	for i, node := range got.Nodes() {
		before := m.Graph.Nodes[i]
		if node.OpType != before.OpType || len(node.Attributes) != len(before.Attrs) || !slices.Equal(node.Inputs, before.Inputs) {
			t.Fatalf("rewritten node %d: %s %+v", i, node, node.Attributes)
		}
		for _, a := range before.Attrs {
			if r := node.Attr(a.Name); r == nil || string(r.S) != a.S || r.I != a.I || !slices.Equal(r.Ints, a.Ints) {
				t.Errorf("node %s: attribute %s changed: %+v", before.Name, a.Name, r)
			}
		}
	}
}
