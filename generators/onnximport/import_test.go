package onnximport

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/golden"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/onnx/onnxtest"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/targets/trt"
	"github.com/opforge/opforge/generators/yamldef"
)

var update = golden.Update

const goldenDir = "../../testdata/onnx"

// schemaFromCase is the schema path seen from testdata/onnx/<case>/.
const schemaFromCase = "../../../schemas/opdef.schema.json"

type T = onnxtest.Value

func f32(name string, dims ...any) T { return T{Name: name, Elem: onnxtest.Float, Dims: dims} }

// importCases are the golden cases: a model built here, the import
// options, and under testdata/onnx/<case>/ the model's bytes (model.onnx,
// also a seed of FuzzRead), the opdef written (expected.yaml) and the
// diagnostics (expected.txt).
var importCases = []struct {
	name  string
	model onnxtest.Model
	opts  Options
}{
	{
		// Symbolic dims become symbols, an exporter's expression dim
		// ("2*R") an expression, a 0-D output shape [], an initializer a
		// static input, and every attribute kind a param of the type
		// TensorRT's parser sends.
		name: "symbolic",
		model: onnxtest.Model{
			Opsets: []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "vision.ops", Version: 1}},
			Graph: onnxtest.Graph{
				Name: "g",
				Nodes: []onnxtest.Node{{
					Name: "roi", OpType: "RoiAlignLite", Domain: "vision.ops",
					Inputs: []string{"x", "boxes", "anchors"}, Outputs: []string{"pooled", "keep", "up", "total"},
					Attrs: []onnxtest.Attr{
						{Name: "sampling_ratio", Type: onnxtest.AttrInt, I: 2},
						{Name: "spatial_scale", Type: onnxtest.AttrFloat, F: 0.25},
						{Name: "mode", Type: onnxtest.AttrString, S: "avg"},
						{Name: "pooled_hw", Type: onnxtest.AttrInts, Ints: []int64{7, 7}},
						{Name: "ratios", Type: onnxtest.AttrFloats, Floats: []float32{0.5, 1, 2}},
						{Name: "labels", Type: onnxtest.AttrStrings, Strings: []string{"cat", "dog"}},
						{Name: "table", Type: onnxtest.AttrTensor, T: &onnxtest.Tensor{Dims: []int64{2, 3}, DataType: onnxtest.Float, Raw: make([]byte, 24)}},
						{Name: "bias", Type: onnxtest.AttrTensor, T: &onnxtest.Tensor{Dims: []int64{4}, DataType: onnxtest.Int8, Raw: make([]byte, 4)}},
						{Name: "seed", Type: onnxtest.AttrTensor, T: &onnxtest.Tensor{DataType: onnxtest.Int64, Raw: make([]byte, 8)}},
					},
				}},
				Initializers: []onnxtest.Tensor{{Name: "anchors", Dims: []int64{9, 4}, DataType: onnxtest.Float, Raw: make([]byte, 144)}},
				Inputs:       []T{f32("x", "N", "C", "H", "W"), f32("boxes", "R", 4)},
				Outputs:      []T{f32("pooled", "R", "C", 7, 7), {Name: "keep", Elem: onnxtest.Int32, Dims: []any{"2*R"}}, f32("up", "N", "C", "H * 2", "W+1"), f32("total")},
			},
		},
		opts: Options{Selection: Selection{OpTypes: []string{"RoiAlignLite"}}, Package: "VisionImport"},
	},
	{
		// Nodes of one op type share an op when their signatures agree up
		// to the names of their dims (a subgraph node included); a node
		// with another dtype gets its own op.
		name: "shared",
		model: onnxtest.Model{
			Opsets: []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "custom", Version: 1}},
			Graph: onnxtest.Graph{
				Name: "g",
				Nodes: []onnxtest.Node{
					{Name: "a", OpType: "Swish3", Domain: "custom", Inputs: []string{"x"}, Outputs: []string{"ya"}, Attrs: []onnxtest.Attr{{Name: "beta", Type: onnxtest.AttrFloat, F: 1}}},
					{Name: "b", OpType: "Swish3", Domain: "custom", Inputs: []string{"x2"}, Outputs: []string{"yb"}, Attrs: []onnxtest.Attr{{Name: "beta", Type: onnxtest.AttrFloat, F: 2}}},
					{Name: "c", OpType: "Swish3", Domain: "custom", Inputs: []string{"h"}, Outputs: []string{"yc"}, Attrs: []onnxtest.Attr{{Name: "beta", Type: onnxtest.AttrFloat, F: 1}}},
					{Name: "branch", OpType: "If", Inputs: []string{"cond"}, Outputs: []string{"yd"}, Attrs: []onnxtest.Attr{
						{Name: "then_branch", Type: onnxtest.AttrGraph, G: &onnxtest.Graph{Name: "then",
							Nodes:   []onnxtest.Node{{Name: "d", OpType: "Swish3", Domain: "custom", Inputs: []string{"x"}, Outputs: []string{"t"}, Attrs: []onnxtest.Attr{{Name: "beta", Type: onnxtest.AttrFloat, F: 3}}}},
							Outputs: []T{f32("t", "N", 8)}}},
						{Name: "else_branch", Type: onnxtest.AttrGraph, G: &onnxtest.Graph{Name: "else",
							Nodes:   []onnxtest.Node{{Name: "e", OpType: "Identity", Inputs: []string{"x"}, Outputs: []string{"t2"}}},
							Outputs: []T{f32("t2", "N", 8)}}},
					}},
				},
				Inputs:    []T{f32("x", "N", 8), f32("x2", "batch", 8), {Name: "h", Elem: onnxtest.Float16, Dims: []any{"N", 8}}, {Name: "cond", Elem: onnxtest.Bool, Dims: []any{}}},
				Outputs:   []T{f32("ya", "N", 8), f32("yb", "batch", 8), {Name: "yc", Elem: onnxtest.Float16, Dims: []any{"N", 8}}, f32("yd", "N", 8)},
				ValueInfo: nil,
			},
		},
		opts: Options{Selection: Selection{OpTypes: []string{"Swish3"}}},
	},
	{
		// What the graph does not say is guessed, marked in the opdef and
		// warned about: an untyped output, an unrelated symbol, an
		// unknown dim.
		name: "guesses",
		model: onnxtest.Model{
			Opsets: []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "custom", Version: 1}},
			Graph: onnxtest.Graph{
				Name: "g",
				Nodes: []onnxtest.Node{{Name: "sel", OpType: "MaskedGather", Domain: "custom",
					Inputs: []string{"x", "mask"}, Outputs: []string{"y", "count", "idx"}}},
				Inputs:    []T{f32("x", "N", "C"), {Name: "mask", Elem: onnxtest.Bool, Dims: []any{"N", "C"}}},
				ValueInfo: []T{{Name: "count", Elem: onnxtest.Int32, Dims: []any{"K"}}, {Name: "idx", Elem: onnxtest.Int64, Dims: []any{"N", nil}}},
			},
		},
		opts: Options{Selection: Selection{Nodes: []string{"sel"}}, Package: "Guesses", Domain: "example", Namespace: ptr("guess_ns"), Version: "2.1.0"},
	},
	{
		// --unsupported-for trt: standard ops TensorRT lacks (renamed, as
		// plugins may not carry standard names), custom ops, a node in an
		// If body; nodes that already call a plugin are left alone.
		name: "unsupported-trt",
		model: onnxtest.Model{
			Opsets: []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "custom", Version: 1}},
			Graph: onnxtest.Graph{
				Name: "g",
				Nodes: []onnxtest.Node{
					{Name: "relu", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"r"}},
					{Name: "uniq", OpType: "Unique", Inputs: []string{"r"}, Outputs: []string{"u"}, Attrs: []onnxtest.Attr{{Name: "sorted", Type: onnxtest.AttrInt, I: 1}}},
					{Name: "grid", OpType: "GridSample3D", Domain: "custom", Inputs: []string{"x", "grid_in"}, Outputs: []string{"g3"}, Attrs: []onnxtest.Attr{{Name: "align_corners", Type: onnxtest.AttrInt, I: 0}}},
					{Name: "nms", OpType: "EfficientNMS_TRT", Inputs: []string{"x"}, Outputs: []string{"n"}, Attrs: []onnxtest.Attr{{Name: "plugin_version", Type: onnxtest.AttrString, S: "1"}}},
					{Name: "branch", OpType: "If", Inputs: []string{"cond"}, Outputs: []string{"d"}, Attrs: []onnxtest.Attr{
						{Name: "then_branch", Type: onnxtest.AttrGraph, G: &onnxtest.Graph{Name: "then",
							Nodes:   []onnxtest.Node{{Name: "det", OpType: "Det", Inputs: []string{"sq"}, Outputs: []string{"dt"}}},
							Outputs: []T{f32("dt", "B")}}},
						{Name: "else_branch", Type: onnxtest.AttrGraph, G: &onnxtest.Graph{Name: "else",
							Nodes:   []onnxtest.Node{{Name: "rs", OpType: "ReduceSum", Inputs: []string{"sq"}, Outputs: []string{"ds"}}},
							Outputs: []T{f32("ds", "B")}}},
					}},
				},
				Inputs:    []T{f32("x", "N", 16), f32("grid_in", "N", 4, 4, 4, 3), f32("sq", "B", 3, 3), {Name: "cond", Elem: onnxtest.Bool, Dims: []any{}}},
				Outputs:   []T{f32("u", "U"), f32("g3", "N", 16, 4, 4, 4), f32("n", "N", 16), f32("d", "B")},
				ValueInfo: []T{f32("r", "N", 16)},
			},
		},
		opts: Options{Selection: Selection{UnsupportedFor: "trt", FrontEnds: registry.FrontEnds()}, Rename: map[string]string{"Unique": "UniquePlugin", "Det": "DetPlugin"}, Package: "Fallbacks"},
	},
	{
		// An op for every target validates under each target's checks.
		name: "all-targets",
		model: onnxtest.Model{
			Opsets: []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "custom", Version: 1}},
			Graph: onnxtest.Graph{
				Name:    "g",
				Nodes:   []onnxtest.Node{{Name: "s", OpType: "Shift", Domain: "custom", Inputs: []string{"x"}, Outputs: []string{"y"}, Attrs: []onnxtest.Attr{{Name: "amount", Type: onnxtest.AttrInt, I: 3}}}},
				Inputs:  []T{f32("x", "N", "C", "H", "W")},
				Outputs: []T{f32("y", "N", "C", "H", "W")},
			},
		},
		opts: Options{Selection: Selection{OpTypes: []string{"Shift"}}, Targets: []string{"trt", "htp", "aipu"}},
	},
	{
		// Nodes of one op type that differ only in rank become one
		// rank-polymorphic op (issue 13): inputs of any rank, the output
		// shaped like its input. A node whose output is no input's shape
		// keeps an op of its own.
		name: "ranks",
		model: onnxtest.Model{
			Opsets: []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "custom", Version: 1}},
			Graph: onnxtest.Graph{
				Name: "g",
				Nodes: []onnxtest.Node{
					{Name: "btc", OpType: "ScaledSiLU", Domain: "custom", Inputs: []string{"x3"}, Outputs: []string{"y3"}, Attrs: []onnxtest.Attr{{Name: "alpha", Type: onnxtest.AttrFloat, F: 1}}},
					{Name: "nchw", OpType: "ScaledSiLU", Domain: "custom", Inputs: []string{"x4"}, Outputs: []string{"y4"}, Attrs: []onnxtest.Attr{{Name: "alpha", Type: onnxtest.AttrFloat, F: 2}}},
					{Name: "flat", OpType: "ScaledSiLU", Domain: "custom", Inputs: []string{"x1"}, Outputs: []string{"y1"}, Attrs: []onnxtest.Attr{{Name: "alpha", Type: onnxtest.AttrFloat, F: 1}}},
					{Name: "pool", OpType: "ScaledSiLU", Domain: "custom", Inputs: []string{"x2"}, Outputs: []string{"y2"}, Attrs: []onnxtest.Attr{{Name: "alpha", Type: onnxtest.AttrFloat, F: 1}}},
				},
				Inputs:  []T{f32("x3", "B", "T", "C"), f32("x4", "N", "C", "H", "W"), f32("x1", "L"), f32("x2", "N", "C")},
				Outputs: []T{f32("y3", "B", "T", "C"), f32("y4", "N", "C", "H", "W"), f32("y1", "L"), f32("y2", "N")},
			},
		},
		opts: Options{Selection: Selection{OpTypes: []string{"ScaledSiLU"}}, Package: "RankImport"},
	},
	{
		// Nodes of one op type that differ only in trailing inputs become
		// one op whose trailing inputs are optional (issue 13), as
		// ModulatedDeformConv2d with and without bias; only for targets
		// whose runtimes can leave them out (TensorRT's C++ plugins).
		name: "optional",
		model: onnxtest.Model{
			Opsets: []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "custom", Version: 1}},
			Graph: onnxtest.Graph{
				Name: "g",
				Nodes: []onnxtest.Node{
					{Name: "plain", OpType: "BiasedScale", Domain: "custom", Inputs: []string{"x", "w"}, Outputs: []string{"y1"}},
					{Name: "biased", OpType: "BiasedScale", Domain: "custom", Inputs: []string{"x", "w", "b"}, Outputs: []string{"y2"}},
					{Name: "trailing", OpType: "BiasedScale", Domain: "custom", Inputs: []string{"x", "w", ""}, Outputs: []string{"y3"}},
				},
				Inputs:  []T{f32("x", "N", "C"), f32("w", "C"), f32("b", "C")},
				Outputs: []T{f32("y1", "N", "C"), f32("y2", "N", "C"), f32("y3", "N", "C")},
			},
		},
		opts: Options{Selection: Selection{OpTypes: []string{"BiasedScale"}}, Package: "OptionalImport", Targets: []string{"trt"}},
	},
}

// runImport imports a case as `opforge import` would, returning the
// result, the opdef written and the diagnostics printed.
func runImport(t *testing.T, model onnxtest.Model, opts Options) (*Result, []byte, string) {
	t.Helper()
	m, err := onnx.Read(model.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var l diag.List
	res := Import(m, "model.onnx", opts, &l)
	var data []byte
	if res != nil {
		data, err = yamldef.Write(res.Package, schemaFromCase)
		if err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	_ = l.WriteText(&buf)
	return res, data, buf.String()
}

func TestImportGolden(t *testing.T) {
	for _, c := range importCases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(goldenDir, c.name)
			res, data, diags := runImport(t, c.model, c.opts)
			if res == nil {
				t.Fatalf("import failed:\n%s", diags)
			}
			// The opdef loads and validates, every target's checks included.
			var l diag.List
			file := filepath.Join(dir, "expected.yaml")
			pkg := load.Parse(file, data, &l)
			if pkg != nil {
				load.Validate(pkg, &l)
				registry.Check(&l, pkg)
			}
			if pkg == nil || l.HasErrors() {
				var buf bytes.Buffer
				_ = l.WriteText(&buf)
				t.Errorf("imported opdef does not validate:\n%s\n%s", buf.String(), data)
			}
			matchGolden(t, filepath.Join(dir, "model.onnx"), c.model.Bytes())
			matchGolden(t, file, data)
			matchGolden(t, filepath.Join(dir, "expected.txt"), []byte(diags))
		})
	}
}

func matchGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./generators/onnximport -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./generators/onnximport -update refreshes it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestCreatorFieldsMatchAttributes: for every imported node, the params
// of its op are exactly its attributes (TensorRT's parser plumbing
// excepted), by name, and the PluginFieldType the trt target declares for
// each param (its dtype's row in the IR table) is the one TensorRT's ONNX
// parser sends for the attribute (tensorrt.md §5).
func TestCreatorFieldsMatchAttributes(t *testing.T) {
	for _, c := range importCases {
		res, _, diags := runImport(t, c.model, c.opts)
		if res == nil {
			t.Fatalf("%s: %s", c.name, diags)
		}
		for _, call := range res.Calls {
			var attrs, params []string
			for _, a := range call.Node.Attributes {
				if trt.ParserAttrs[a.Name] {
					continue
				}
				attrs = append(attrs, a.Name)
				p := call.Op.Param(a.Name)
				if p == nil {
					t.Errorf("%s: %s: attribute %q has no param", c.name, call.Node, a.Name)
					continue
				}
				want := trt.ParserFieldType(a)
				got := trt.FieldType(p.DTypes[0])
				if want != "" && got != want {
					t.Errorf("%s: %s: attribute %q (%s) arrives as %s, the creator field is %s", c.name, call.Node, a.Name, a.Type, want, got)
				}
				if why := accepts(p, a); why != "" {
					t.Errorf("%s: %s: %s", c.name, call.Node, why)
				}
			}
			for _, p := range call.Op.Params {
				params = append(params, p.Name)
			}
			sort.Strings(attrs)
			sort.Strings(params)
			if strings.Join(attrs, ",") != strings.Join(params, ",") {
				t.Errorf("%s: %s: attributes %v, params %v", c.name, call.Node, attrs, params)
			}
		}
	}
}

func TestParserFieldTypes(t *testing.T) {
	tensor := func(dt onnx.DataType) *onnx.Attribute {
		return &onnx.Attribute{Type: onnx.AttrTensor, T: &onnx.Tensor{DataType: dt}}
	}
	for _, c := range []struct {
		a    *onnx.Attribute
		want string
	}{
		{&onnx.Attribute{Type: onnx.AttrInt}, "kINT32"},
		{&onnx.Attribute{Type: onnx.AttrInts}, "kINT32"},
		{&onnx.Attribute{Type: onnx.AttrFloat}, "kFLOAT32"},
		{&onnx.Attribute{Type: onnx.AttrFloats}, "kFLOAT32"},
		{&onnx.Attribute{Type: onnx.AttrString}, "kCHAR"},
		{&onnx.Attribute{Type: onnx.AttrStrings}, "kCHAR"},
		{tensor(onnx.Float16), "kFLOAT16"},
		{tensor(onnx.BFloat16), "kBF16"},
		{tensor(onnx.Double), "kFLOAT64"},
		{tensor(onnx.Int16), "kINT16"},
		{tensor(onnx.Int64), ""},
		{tensor(onnx.Bool), ""},
		{tensor(onnx.Uint8), ""},
		{&onnx.Attribute{Type: onnx.AttrGraph}, ""},
		{&onnx.Attribute{Type: onnx.AttrSparseTensor}, ""},
	} {
		if got := trt.ParserFieldType(c.a); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.a.Type, c.a.T, got, c.want)
		}
		// Whatever the parser sends, the imported param declares the same.
		if p, _ := paramFor(c.a); p != nil && c.want != "" {
			if got := trt.FieldType(p.DTypes[0]); got != c.want {
				t.Errorf("param for %s: field %s, want %s", c.a.Type, got, c.want)
			}
		}
	}
}

func TestDefaultPackage(t *testing.T) {
	for in, want := range map[string][2]string{
		"models/yolov8n-seg.onnx": {"Yolov8nSeg", "yolov8n_seg"},
		"model.onnx":              {"Model", "model"},
		"3d_unet.onnx":            {"Model3dUnet", "model_3d_unet"},
		"--.onnx":                 {"Onnx", "onnx"},
	} {
		name, dir := DefaultPackage(in)
		if name != want[0] || dir != want[1] {
			t.Errorf("DefaultPackage(%q) = %s, %s; want %v", in, name, dir, want)
		}
	}
}

// TestImportErrors: what cannot become a plugin op is an error that names
// the node and says what to do; nothing is imported.
func TestImportErrors(t *testing.T) {
	node := func(attrs ...onnxtest.Attr) onnxtest.Node {
		return onnxtest.Node{Name: "n", OpType: "Foo", Domain: "custom", Inputs: []string{"x"}, Outputs: []string{"y"}, Attrs: attrs}
	}
	model := func(n onnxtest.Node, inputs ...T) onnxtest.Model {
		if inputs == nil {
			inputs = []T{f32("x", "N")}
		}
		return onnxtest.Model{Graph: onnxtest.Graph{Nodes: []onnxtest.Node{n}, Inputs: inputs, Outputs: []T{f32("y", "N")}}}
	}
	sel := Options{Selection: Selection{OpTypes: []string{"Foo"}}}
	for _, c := range []struct {
		name  string
		model onnxtest.Model
		opts  Options
		code  string
		text  string
	}{
		{"untyped input", model(node(), T{Name: "x", NoType: true}), sel, "onnx-untyped", "run ONNX shape inference"},
		{"graph attribute", model(node(onnxtest.Attr{Name: "body", Type: onnxtest.AttrGraph, G: &onnxtest.Graph{}})), sel, "onnx-attr-type", `attribute "body" is a GRAPH attribute`},
		{"bad dtype", model(node(), T{Name: "x", Elem: 14, Dims: []any{2}}), sel, "onnx-type", "COMPLEX64"},
		{"omitted input", model(onnxtest.Node{Name: "n", OpType: "Foo", Inputs: []string{"", "x"}, Outputs: []string{"y"}}), sel, "onnx-input-omitted", "input 0 is omitted"},
		{"no outputs", model(onnxtest.Node{Name: "n", OpType: "Foo", Inputs: []string{"x"}}), sel, "onnx-node", "no outputs"},
		{"unknown node", model(node()), Options{Selection: Selection{Nodes: []string{"m", "n"}}}, "onnx-select", `no node named "m"`},
		{"unknown op type", model(node()), Options{Selection: Selection{OpTypes: []string{"Bar"}}}, "onnx-select", `no node of op type "Bar"`},
		{"unknown front end", model(node()), Options{Selection: Selection{UnsupportedFor: "cpu", FrontEnds: registry.FrontEnds()}}, "onnx-select", "aipu, htp, trt"},
		{"standard name", model(onnxtest.Node{Name: "n", OpType: "NonZero", Inputs: []string{"x"}, Outputs: []string{"y"}}), Options{Selection: Selection{OpTypes: []string{"NonZero"}}}, "onnx-standard-name", "--rename NonZero=NonZeroPlugin"},
		{"renamed to a standard name", model(node()), Options{Selection: sel.Selection, Rename: map[string]string{"Foo": "Gemm"}}, "onnx-standard-name", "Gemm"},
		{"function name", onnxtest.Model{Graph: model(node()).Graph, Extra: functionProto("Foo")}, sel, "onnx-function-name", "inline the function"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, _, diags := runImport(t, c.model, c.opts)
			if res != nil {
				t.Errorf("imported despite errors")
			}
			if !strings.Contains(diags, "["+c.code+"]") || !strings.Contains(diags, c.text) {
				t.Errorf("want %s mentioning %q, got:\n%s", c.code, c.text, diags)
			}
		})
	}
	// --allow-standard-names lets the name through.
	res, _, diags := runImport(t, model(onnxtest.Node{Name: "n", OpType: "NonZero", Inputs: []string{"x"}, Outputs: []string{"y"}}), Options{Selection: Selection{OpTypes: []string{"NonZero"}}, AllowStandardNames: true})
	if res == nil || res.Package.Ops[0].Name != "NonZero" {
		t.Errorf("--allow-standard-names: %s", diags)
	}
}

// functionProto is a ModelProto functions field (25) holding a function
// called name, in domain custom.
func functionProto(name string) []byte {
	fn := append([]byte{0x0a, byte(len(name))}, name...)
	fn = append(fn, 0x52, 6)
	fn = append(fn, "custom"...)
	return append([]byte{0xca, 0x01, byte(len(fn))}, fn...)
}

func TestSelect(t *testing.T) {
	c := importCases[3] // unsupported-trt
	m, err := onnx.Read(c.model.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		sel  Selection
		want string
	}{
		{Selection{UnsupportedFor: "trt", FrontEnds: registry.FrontEnds()}, "uniq grid det"},
		{Selection{UnsupportedFor: "htp", FrontEnds: registry.FrontEnds()}, "uniq grid det"},
		{Selection{UnsupportedFor: "aipu", FrontEnds: registry.FrontEnds()}, "grid det"},
		{Selection{Nodes: []string{"relu"}, OpTypes: []string{"Det"}}, "relu det"},
	} {
		var l diag.List
		var got []string
		for _, n := range Select(m, "model.onnx", s.sel, &l) {
			got = append(got, n.Name)
		}
		if strings.Join(got, " ") != s.want {
			t.Errorf("%+v: selected %v, want %s", s.sel, got, s.want)
		}
	}
}

// TestTensorNamesAvoidAttributes: tensors are named by position, around
// attribute names, which are fixed (they are the creator's field names).
func TestTensorNamesAvoidAttributes(t *testing.T) {
	model := onnxtest.Model{Graph: onnxtest.Graph{
		Nodes:   []onnxtest.Node{{Name: "n", OpType: "Foo", Inputs: []string{"x"}, Outputs: []string{"y"}, Attrs: []onnxtest.Attr{{Name: "input0", Type: onnxtest.AttrInt, I: 1}, {Name: "N", Type: onnxtest.AttrInt, I: 1}}}},
		Inputs:  []T{f32("x", "N")},
		Outputs: []T{f32("y", "N")},
	}}
	res, data, diags := runImport(t, model, Options{Selection: Selection{Nodes: []string{"n"}}})
	if res == nil {
		t.Fatal(diags)
	}
	for _, want := range []string{"{name: input0_2, type: float32, shape: [N_2]}", "{name: input0, type: int32}", "{name: output0, type: float32, shape: [N_2]}"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("opdef lacks %s:\n%s", want, data)
		}
	}
	var l diag.List
	if pkg := load.Parse("x.yaml", data, &l); pkg != nil {
		load.Validate(pkg, &l)
		registry.Check(&l, pkg)
	}
	if l.HasErrors() {
		t.Error(l.Sorted())
	}
}

func ptr(s string) *string { return &s }

// TestTensorParamRank: a TENSOR attribute becomes a param tensor of its
// rank up to ir.MaxRank, the opdef schema's bound; past it, no param, and
// the reason (FuzzImport found an import the loader then refused).
func TestTensorParamRank(t *testing.T) {
	for _, rank := range []int{2, ir.MaxRank, ir.MaxRank + 1, 26} {
		a := &onnx.Attribute{Name: "t", Type: onnx.AttrTensor, T: &onnx.Tensor{DataType: onnx.Float, Dims: make([]int64, rank)}}
		p, why := paramFor(a)
		switch {
		case rank <= ir.MaxRank && (p == nil || p.Kind != ir.ParamTensor || p.Rank != rank):
			t.Errorf("rank %d: param %+v (%s), want a tensor of rank %d", rank, p, why, rank)
		case rank > ir.MaxRank && (p != nil || !strings.Contains(why, "at most 8 dims")):
			t.Errorf("rank %d: param %+v, reason %q; want none, with the bound", rank, p, why)
		}
	}
}
