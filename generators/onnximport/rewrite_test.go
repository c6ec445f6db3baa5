package onnximport

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/target"
	"github.com/opforge/opforge/generators/targets/trt"
)

// caseNamed returns a golden import case.
func caseNamed(t *testing.T, name string) (*onnx.Model, *Result) {
	t.Helper()
	for _, c := range importCases {
		if c.name == name {
			m, err := onnx.Read(c.model.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			var l diag.List
			res := Import(m, "model.onnx", c.opts, &l)
			if res == nil {
				t.Fatal(l.Sorted())
			}
			return m, res
		}
	}
	t.Fatalf("no case %s", name)
	return nil, nil
}

func TestPlanRewritesIntoPluginCalls(t *testing.T) {
	m, res := caseNamed(t, "unsupported-trt")
	var l diag.List
	edits, opsets := Plan(m, "model.onnx", res.Calls, res.Package, trt.Target{}, false, &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	if len(edits) != 3 || len(opsets) != 1 || opsets[0] != (onnx.OpsetID{Domain: "fallbacks", Version: 1}) {
		t.Fatalf("edits %v, opsets %v", edits, opsets)
	}
	data, err := m.Rewrite(edits, opsets)
	if err != nil {
		t.Fatal(err)
	}
	got, err := onnx.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ op, domain string }{
		"relu": {"Relu", ""}, "uniq": {"UniquePlugin", "fallbacks"}, "grid": {"GridSample3D", "custom"},
		"nms": {"EfficientNMS_TRT", ""}, "branch": {"If", ""}, "det": {"DetPlugin", "fallbacks"}, "rs": {"ReduceSum", ""},
	}
	for _, n := range got.Nodes() {
		w := want[n.Name]
		if n.OpType != w.op || n.Domain != w.domain {
			t.Errorf("%s: op %s domain %q, want %s %q", n, n.OpType, n.Domain, w.op, w.domain)
		}
		if n.OpType != w.op || w.op == "Relu" || w.op == "If" || w.op == "ReduceSum" || w.op == "EfficientNMS_TRT" {
			continue
		}
		op := res.Package.Op(n.OpType)
		id := trt.PluginID(res.Package, op)
		if ns, v := n.Attr("plugin_namespace"), n.Attr("plugin_version"); ns == nil || string(ns.S) != id.Namespace || v == nil || string(v.S) != id.Version || id.Version != "1.0.0" {
			t.Errorf("%s: plugin attributes %+v %+v, want %+v", n, ns, v, id)
		}
		// The rewritten node still fits its op: attributes are params.
		if problems := matchNode(n, op, trt.Target{}.ONNXCall(res.Package, op, n), scopes{}); len(problems) > 0 {
			t.Errorf("%s: %v", n, problems)
		}
	}
	// The node that already called a plugin kept its bytes.
	if !bytes.Contains(data, []byte("EfficientNMS_TRT")) {
		t.Error("plugin node lost")
	}
}

// TestPlanChecksHandEditedOpdefs: rewrite reads the opdef the plugins are
// generated from; a node that would not fit its op's creator is an error.
func TestPlanChecksHandEditedOpdefs(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(pkg *ir.Package, op *ir.Op)
		code  string
		text  string
		allow bool
	}{
		{"param removed", func(_ *ir.Package, op *ir.Op) { op.Params = op.Params[1:] }, "onnx-rewrite-signature", `attribute "sampling_ratio" is not a param`, false},
		{"fixed length", func(_ *ir.Package, op *ir.Op) { op.Param("pooled_hw").Length = 3 }, "onnx-rewrite-signature", `param "pooled_hw" holds 3 elements, the attribute 2`, false},
		{"kind", func(_ *ir.Package, op *ir.Op) { op.Param("spatial_scale").DTypes = []ir.DType{ir.Int32} }, "onnx-rewrite-signature", `attribute "spatial_scale" is FLOAT`, false},
		{"mandatory param", func(_ *ir.Package, op *ir.Op) {
			op.Params = append(op.Params, &ir.Param{Name: "extra", Kind: ir.ParamScalar, DTypes: []ir.DType{ir.Int32}, Mandatory: true})
		}, "onnx-rewrite-signature", `no attribute "extra"`, false},
		{"input count", func(_ *ir.Package, op *ir.Op) { op.Inputs = op.Inputs[:2] }, "onnx-rewrite-signature", "the node has 3 inputs, the op takes 2", false},
		{"output count", func(_ *ir.Package, op *ir.Op) { op.Outputs = op.Outputs[:1] }, "onnx-rewrite-signature", "the node has 4 outputs, the op 1", false},
		{"dtype", func(_ *ir.Package, op *ir.Op) { op.Inputs[0].Type.DTypes = []ir.DType{ir.Float16} }, "onnx-rewrite-signature", `input 0 ("x") is float32; input "input0" of the op takes float16`, false},
		{"no trt", func(_ *ir.Package, op *ir.Op) {
			op.Sections = slices.DeleteFunc(op.Sections, func(s *ir.Section) bool { return s.Target == "trt" })
		}, "onnx-rewrite-op", "does not generate for trt", false},
		{"op missing", func(pkg *ir.Package, _ *ir.Op) { pkg.Ops = []*ir.Op{{Name: "Other"}} }, "onnx-rewrite-op", "which x.yaml does not define (it has Other)", false},
		{"standard name", func(_ *ir.Package, op *ir.Op) { op.Name = "Gemm" }, "onnx-standard-name", "kENABLE_PLUGIN_OVERRIDE", false},
		{"ONNX domain", func(pkg *ir.Package, _ *ir.Op) { pkg.Domain = "ai.onnx" }, "onnx-rewrite-op", "need a domain of their own", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, res := caseNamed(t, "symbolic")
			res.Package.Source = "x.yaml"
			op := res.Package.Ops[0]
			c.edit(res.Package, op)
			var l diag.List
			edits, _ := Plan(m, "model.onnx", res.Calls, res.Package, trt.Target{}, c.allow, &l)
			var buf bytes.Buffer
			_ = l.WriteText(&buf)
			if len(edits) != 0 || !strings.Contains(buf.String(), "["+c.code+"]") || !strings.Contains(buf.String(), c.text) {
				t.Errorf("%d edits; want %s mentioning %q, got:\n%s", len(edits), c.code, c.text, buf.String())
			}
		})
	}
}

func TestPlanAcceptsCompatibleEdits(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(op *ir.Op)
		allow bool
		check func(t *testing.T, e onnx.NodeEdit)
	}{
		{"defaulted param", func(op *ir.Op) {
			op.Params = append(op.Params, &ir.Param{Name: "extra", Kind: ir.ParamScalar, DTypes: []ir.DType{ir.Int32}, Default: &ir.Literal{Kind: ir.LitInt, Text: "1"}})
		}, false, nil},
		{"int64 and enum params", func(op *ir.Op) {
			op.Param("sampling_ratio").DTypes = []ir.DType{ir.Int64}
			p := op.Param("mode")
			p.Kind, p.Values, p.DTypes = ir.ParamEnum, []string{"avg", "max"}, []ir.DType{ir.Uint32}
		}, false, nil},
		{"standard name allowed", func(op *ir.Op) { op.Name = "Gemm" }, true, func(t *testing.T, e onnx.NodeEdit) {
			if e.OpType != "Gemm" {
				t.Errorf("op type %s", e.OpType)
			}
		}},
		{"shape input", func(op *ir.Op) {
			op.Inputs[1].ShapeTensor = true
		}, false, func(t *testing.T, e onnx.NodeEdit) {
			last := e.Attrs[len(e.Attrs)-1]
			if last.Name != "tensorrt_plugin_shape_input_indices" || len(last.Ints) != 1 || last.Ints[0] != 1 {
				t.Errorf("attrs %+v", e.Attrs)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, res := caseNamed(t, "symbolic")
			c.edit(res.Package.Ops[0])
			var l diag.List
			edits, opsets := Plan(m, "model.onnx", res.Calls, res.Package, trt.Target{}, c.allow, &l)
			if l.HasErrors() || len(edits) != 1 {
				t.Fatalf("%d edits: %v", len(edits), l.Sorted())
			}
			// The node keeps its domain (vision.ops, already imported).
			e := edits[res.Calls[0].Node]
			if e.Domain != nil || len(opsets) != 0 {
				t.Errorf("domain %v, opsets %v", e.Domain, opsets)
			}
			if c.check != nil {
				c.check(t, e)
			}
		})
	}
}

// TestMatchNodeOptionalInputs: a node may leave out trailing optional
// inputs (fewer inputs, or trailing empty names), as the TensorRT plugin
// takes any count from its required inputs to all; an empty name before a
// present input would shift the plugin's inputs and is refused.
func TestMatchNodeOptionalInputs(t *testing.T) {
	op := &ir.Op{Name: "ScaleBias", Inputs: []*ir.Tensor{{Name: "x"}, {Name: "bias", Optional: true}, {Name: "gate", Optional: true}}, Outputs: []*ir.Tensor{{Name: "y"}}}
	for _, c := range []struct {
		inputs []string
		want   string // "" when the node fits
	}{
		{[]string{"x"}, ""},
		{[]string{"x", "b"}, ""},
		{[]string{"x", "b", "g"}, ""},
		{[]string{"x", "b", ""}, ""},
		{[]string{"x", "", ""}, ""},
		{[]string{"x", "", "g"}, "input 1 of the node is empty but a later input is not"},
		{[]string{"", "b"}, "input 0 of the node is empty"},
		{nil, "the node has 0 inputs, the op takes 1 to 3"},
		{[]string{"x", "b", "g", "h"}, "the node has 4 inputs, the op takes 1 to 3"},
	} {
		got := strings.Join(matchNode(&onnx.Node{OpType: "ScaleBias", Inputs: c.inputs, Outputs: []string{"y"}}, op, target.ONNXCall{}, scopes{}), "; ")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("inputs %q: %q, want %q", c.inputs, got, c.want)
		}
	}
}
