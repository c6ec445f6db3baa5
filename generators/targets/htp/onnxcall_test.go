package htp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/onnx"
)

const onnxCallOpdef = `version: 1
package: {name: CallOps, domain: call.test, version: 1.0.0}
ops:
  - name: Blend
    inputs:
      - {name: x, type: float32, shape: [N]}
      - {name: w, type: float32, shape: [N], optional: true}
    params:
      - {name: alpha, type: float32, default: 0.5}
      - {name: steps, type: int32, default: 3}
      - {name: axes, type: "int32[]", default: [1, 2]}
      - {name: gains, type: "float32[2]", default: [1.5, 2]}
      - {name: clamp, type: bool, default: true}
      - {name: mode, type: enum, values: [sum, max, min], default: max}
      - {name: label, type: string, default: "a b"}
      - {name: count, type: int32}
    outputs:
      - {name: y, type: float32, shape: [N]}
    targets:
      htp: {}
  - name: TrtOnly
    inputs:
      - {name: x, type: float32, shape: [N]}
    outputs:
      - {name: y, type: float32, shape: [N]}
    targets:
      trt: {}
`

// TestONNXCall checks what the QNN execution provider needs of a node:
// every param written (defaults in the attribute types it forwards, bools
// and enums as INT), every input present, enum values as indices.
func TestONNXCall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "call.yaml")
	if err := os.WriteFile(path, []byte(onnxCallOpdef), 0o644); err != nil {
		t.Fatal(err)
	}
	var l diag.List
	pkg := load.File(path, &l)
	if l.HasErrors() || pkg == nil {
		t.Fatalf("load: %v", l.Sorted())
	}
	blend := pkg.Op("Blend")
	full := &onnx.Node{OpType: "Blend", Inputs: []string{"x", "w"}, Outputs: []string{"y"},
		Attributes: []*onnx.Attribute{{Name: "count", Type: onnx.AttrInt, I: 4}}}
	c := Target{}.ONNXCall(pkg, blend, full)
	if c.Unavailable != "" || len(c.Problems) > 0 {
		t.Fatalf("full node: %q %v", c.Unavailable, c.Problems)
	}
	want := []onnx.NewAttr{
		{Name: "alpha", Type: onnx.AttrFloat, F: 0.5},
		{Name: "steps", Type: onnx.AttrInt, I: 3},
		{Name: "axes", Type: onnx.AttrInts, Ints: []int64{1, 2}},
		{Name: "gains", Type: onnx.AttrFloats, Floats: []float32{1.5, 2}},
		{Name: "clamp", Type: onnx.AttrInt, I: 1},
		{Name: "mode", Type: onnx.AttrInt, I: 1},
		{Name: "label", Type: onnx.AttrString, S: "a b"},
	}
	if c.Edit.OpType != "Blend" || !reflect.DeepEqual(c.Edit.Attrs, want) {
		t.Errorf("edit %s %+v\nwant %+v", c.Edit.OpType, c.Edit.Attrs, want)
	}
	if !strings.Contains(c.Label, "op_packages=Blend:<library>:CallOpsInterfaceProvider") {
		t.Errorf("label %q does not say how to register the package", c.Label)
	}

	for _, tc := range []struct {
		name string
		node *onnx.Node
		op   string
		want string
	}{
		{"optional input left out", &onnx.Node{Inputs: []string{"x", ""}, Attributes: []*onnx.Attribute{{Name: "count", Type: onnx.AttrInt, I: 1}}}, "Blend", "the node has 1 inputs"},
		{"enum as a string", &onnx.Node{Inputs: []string{"x", "w"}, Attributes: []*onnx.Attribute{{Name: "mode", Type: onnx.AttrString, S: []byte("min")}}}, "Blend", `write it as an INT`},
		{"int overflow", &onnx.Node{Inputs: []string{"x", "w"}, Attributes: []*onnx.Attribute{{Name: "count", Type: onnx.AttrInt, I: 1 << 40}}}, "Blend", "narrows INT attributes to INT_32"},
		{"tensor attribute", &onnx.Node{Inputs: []string{"x", "w"}, Attributes: []*onnx.Attribute{{Name: "count", Type: onnx.AttrTensor}}}, "Blend", "passes only INT, INTS, FLOAT, FLOATS and STRING"},
		{"op without htp", &onnx.Node{Inputs: []string{"x"}}, "TrtOnly", "does not generate for htp"},
	} {
		c := Target{}.ONNXCall(pkg, pkg.Op(tc.op), tc.node)
		got := c.Unavailable + strings.Join(c.Problems, "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
