package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/onnx/onnxtest"
)

// unknownField is a ModelProto field onnx.proto does not define.
var unknownField = []byte{0xb8, 0x3e, 42}

// roiModel has a custom op fed by a graph input and an initializer kept as
// external data in weights.bin, and a field unknown to onnx.proto.
func roiModel() onnxtest.Model {
	return onnxtest.Model{
		Opsets: []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "custom", Version: 1}},
		Graph: onnxtest.Graph{
			Name: "g",
			Nodes: []onnxtest.Node{
				{Name: "relu", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"r"}},
				{Name: "roi", OpType: "RoiAlignLite", Domain: "custom", Inputs: []string{"r", "w"}, Outputs: []string{"y"},
					Attrs: []onnxtest.Attr{{Name: "pooled_hw", Type: onnxtest.AttrInts, Ints: []int64{7, 7}}, {Name: "mode", Type: onnxtest.AttrString, S: "avg"}}},
			},
			Initializers: []onnxtest.Tensor{{Name: "w", Dims: []int64{4}, DataType: onnxtest.Float, External: [][2]string{{"location", "weights.bin"}, {"offset", "0"}, {"length", "16"}}}},
			Inputs:       []onnxtest.Value{{Name: "x", Elem: onnxtest.Float, Dims: []any{"N", 4}}},
			Outputs:      []onnxtest.Value{{Name: "y", Elem: onnxtest.Float, Dims: []any{"N", 7, 7}}},
			ValueInfo:    []onnxtest.Value{{Name: "r", Elem: onnxtest.Float, Dims: []any{"N", 4}}},
		},
		Extra: unknownField,
	}
}

func writeModel(t *testing.T, dir string, m onnxtest.Model) string {
	t.Helper()
	path := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(path, m.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "weights.bin"), make([]byte, 16), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestImportThenRewrite(t *testing.T) {
	dir := t.TempDir()
	model := writeModel(t, dir, roiModel())
	opdef := filepath.Join(dir, "opdefs", "roi", "roi.yaml")
	sel := []string{"--op-types", "RoiAlignLite", "--package", "Roi"}

	code, out, errs := run(append([]string{"import", "onnx", model, "-o", opdef}, sel...)...)
	if code != 0 || !strings.Contains(out, "RoiAlignLite <- roi") {
		t.Fatalf("import: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := run("validate", opdef); code != 0 {
		t.Fatalf("imported opdef does not validate: %s", errs)
	}
	if code, _, errs := run(append([]string{"import", "onnx", model, "-o", opdef}, sel...)...); code != 1 || !strings.Contains(errs, "--force") {
		t.Errorf("second import over the file: exit %d %s", code, errs)
	}
	if code, _, errs := run(append([]string{"import", "onnx", model, "-o", opdef, "--force"}, sel...)...); code != 0 {
		t.Errorf("--force: exit %d %s", code, errs)
	}

	// Rewrite next to the model: external data resolves as before.
	rewritten := filepath.Join(dir, "model.plugins.onnx")
	code, out, errs = run(append([]string{"rewrite", "onnx", model, "--opdef", opdef, "-o", rewritten}, sel...)...)
	if code != 0 || !strings.Contains(out, "roi -> roi::RoiAlignLite version 1.0.0") {
		t.Fatalf("rewrite: exit %d\n%s%s", code, out, errs)
	}
	data, _ := os.ReadFile(rewritten)
	m, err := onnx.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	roi := m.Nodes()[1]
	if roi.OpType != "RoiAlignLite" || string(roi.Attr("plugin_namespace").S) != "roi" || string(roi.Attr("plugin_version").S) != "1.0.0" {
		t.Errorf("rewritten node: %s %+v", roi, roi.Attributes)
	}
	src := roiModel()
	for what, b := range map[string][]byte{
		"unknown field": unknownField,
		"initializer":   src.Graph.Initializers[0].Bytes(),
		"relu node":     src.Graph.Nodes[0].Bytes(),
	} {
		if !bytes.Contains(data, b) {
			t.Errorf("%s not kept byte for byte", what)
		}
	}

	// Elsewhere, the external data would not be found.
	other := filepath.Join(t.TempDir(), "sub", "out.onnx")
	code, _, errs = run(append([]string{"rewrite", "onnx", model, "--opdef", opdef, "-o", other}, sel...)...)
	if code != 1 || !strings.Contains(errs, "[onnx-external-data]") || !strings.Contains(errs, "weights.bin") {
		t.Errorf("rewrite to another directory: exit %d %s", code, errs)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Error("written despite the error")
	}
	code, _, errs = run(append([]string{"rewrite", "onnx", model, "--opdef", opdef, "-o", other, "--copy-external-data"}, sel...)...)
	if code != 0 {
		t.Fatalf("--copy-external-data: exit %d %s", code, errs)
	}
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(other), "weights.bin")); err != nil || len(b) != 16 {
		t.Errorf("external data not copied: %v", err)
	}
}

func TestImportDefaultsAndStdout(t *testing.T) {
	dir := t.TempDir()
	model := writeModel(t, dir, roiModel())
	t.Chdir(dir)
	// Default output: opdefs/<package>/<package>.yaml from the model's name.
	if code, _, errs := run("import", "onnx", "model.onnx", "--unsupported-for", "trt"); code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join("opdefs", "model", "model.yaml")); err != nil {
		t.Fatal(err)
	}
	// rewrite finds that opdef by the same default.
	if code, _, errs := run("rewrite", "onnx", model, "--unsupported-for", "trt", "-o", "out.onnx"); code != 0 {
		t.Fatalf("rewrite with the default opdef: exit %d %s", code, errs)
	}
	code, out, _ := run("import", "onnx", "model.onnx", "--nodes", "roi", "-o", "-")
	if code != 0 || !strings.HasPrefix(out, "# yaml-language-server: $schema=../../schemas/opdef.schema.json\nversion: 1\n") {
		t.Errorf("-o -: exit %d\n%s", code, out)
	}
	// A package without an opdef: rewrite says what to run.
	code, _, errs := run("rewrite", "onnx", model, "--nodes", "roi", "--package", "Other", "-o", "x.onnx")
	if code != 1 || !strings.Contains(errs, "run `opforge import onnx") {
		t.Errorf("missing opdef: exit %d %s", code, errs)
	}
}

func TestOnnxUsageAndBadModels(t *testing.T) {
	dir := t.TempDir()
	model := writeModel(t, dir, roiModel())
	for _, args := range [][]string{
		{"import", model, "--nodes", "roi"},
		{"import", "onnx", model},
		{"import", "onnx", model, "--nodes", "roi", "--rename", "RoiAlignLite"},
		{"import", "onnx", model, "--nodes", "roi", "--targets", "cpu"},
		{"rewrite", "onnx", model, "--nodes", "roi"},
		{"import", "tflite", model, "--nodes", "roi"},
	} {
		if code, _, _ := run(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	data := roiModel().Bytes()
	truncated := filepath.Join(dir, "truncated.onnx")
	_ = os.WriteFile(truncated, data[:len(data)/2], 0o644)
	text := filepath.Join(dir, "text.onnx")
	_ = os.WriteFile(text, []byte("not a model\n"), 0o644)
	for _, c := range []struct{ path, want string }{
		{truncated, "is not a valid ONNX model"},
		{text, "is not a valid ONNX model"},
		{filepath.Join(dir, "missing.onnx"), "[read]"},
	} {
		for _, cmd := range []string{"import", "rewrite"} {
			code, _, errs := run(cmd, "onnx", c.path, "--nodes", "roi", "-o", filepath.Join(dir, "o"))
			if code != 1 || !strings.Contains(errs, c.want) {
				t.Errorf("%s %s: exit %d %s", cmd, filepath.Base(c.path), code, errs)
			}
		}
	}
}

func TestRewriteWithNothingToDo(t *testing.T) {
	dir := t.TempDir()
	m := roiModel()
	m.Graph.Nodes = m.Graph.Nodes[:1]
	m.Graph.Outputs = []onnxtest.Value{{Name: "r", Elem: onnxtest.Float, Dims: []any{"N", 4}}}
	model := writeModel(t, dir, m)
	out := filepath.Join(dir, "out.onnx")
	code, _, errs := run("rewrite", "onnx", model, "--unsupported-for", "trt", "-o", out)
	if code != 0 || !strings.Contains(errs, "no node to rewrite") {
		t.Errorf("exit %d %s", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("wrote a model with nothing rewritten")
	}
	code, _, errs = run("import", "onnx", model, "--unsupported-for", "trt", "-o", filepath.Join(dir, "x.yaml"))
	if code != 0 || !strings.Contains(errs, "every node of the model is an op trt runs") {
		t.Errorf("import: exit %d %s", code, errs)
	}
}

// TestImportedOpdefsGenerate: an imported package generates with the
// rest of an opdefs tree, for every target it names (on this branch the
// trt and aipu targets generate no files yet; htp does).
func TestImportedOpdefsGenerate(t *testing.T) {
	dir := t.TempDir()
	m := onnxtest.Model{
		Opsets: []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "custom", Version: 1}},
		Graph: onnxtest.Graph{
			Name: "g",
			Nodes: []onnxtest.Node{{Name: "s", OpType: "ChannelShift", Domain: "custom", Inputs: []string{"x"}, Outputs: []string{"y"},
				Attrs: []onnxtest.Attr{{Name: "amount", Type: onnxtest.AttrInt, I: 3}, {Name: "scale", Type: onnxtest.AttrFloat, F: 0.5}}}},
			Inputs:  []onnxtest.Value{{Name: "x", Elem: onnxtest.Float, Dims: []any{"N", "C", "H", "W"}}},
			Outputs: []onnxtest.Value{{Name: "y", Elem: onnxtest.Float, Dims: []any{"N", "C", "H", "W"}}},
		},
	}
	model := writeModel(t, dir, m)
	opdefs := filepath.Join(dir, "opdefs")
	if code, _, errs := run("import", "onnx", model, "--op-types", "ChannelShift", "--targets", "trt,htp,aipu", "--package", "Shift", "-o", filepath.Join(opdefs, "shift", "shift.yaml")); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	out := filepath.Join(dir, "out")
	if code, stdout, errs := run("gen", "--opdefs", opdefs, "--toolchains", "../../toolchains", "--out", out, "--cache", filepath.Join(filepath.Dir(out), "gen-cache.json")); code != 0 {
		t.Fatalf("gen: exit %d\n%s%s", code, stdout, errs)
	}
	for _, f := range []string{"htp/Shift/config/Shift.xml", "htp/Shift/src/ops/ChannelShift.cpp"} {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(f))); err != nil {
			t.Errorf("not generated: %v", err)
		}
	}
}

// TestImportKeepsNodePluginIdentity: a model made for an existing plugin
// (NVIDIA's ROIAlign_TRT: version "2", empty namespace) imports to an op
// whose creator has that identity, and `rewrite onnx` leaves the node's
// attributes as they were; --namespace "" is the empty namespace.
func TestImportKeepsNodePluginIdentity(t *testing.T) {
	dir := t.TempDir()
	m := onnxtest.Model{
		Opsets: []onnxtest.Opset{{Domain: "", Version: 17}},
		Graph: onnxtest.Graph{
			Name: "g",
			Nodes: []onnxtest.Node{{Name: "roi", OpType: "ROIAlign_TRT", Inputs: []string{"x", "rois"}, Outputs: []string{"y"},
				Attrs: []onnxtest.Attr{
					{Name: "output_height", Type: onnxtest.AttrInt, I: 7},
					{Name: "spatial_scale", Type: onnxtest.AttrFloat, F: 0.25},
					{Name: "plugin_version", Type: onnxtest.AttrString, S: "2"},
					{Name: "plugin_namespace", Type: onnxtest.AttrString, S: ""},
				}}},
			Inputs:  []onnxtest.Value{{Name: "x", Elem: onnxtest.Float, Dims: []any{"N", "C", "H", "W"}}, {Name: "rois", Elem: onnxtest.Float, Dims: []any{"R", 5}}},
			Outputs: []onnxtest.Value{{Name: "y", Elem: onnxtest.Float, Dims: []any{"R", "C", 7, 7}}},
		},
	}
	model := writeModel(t, dir, m)
	opdef := filepath.Join(dir, "opdefs", "nv", "nv.yaml")
	sel := []string{"--op-types", "ROIAlign_TRT", "--package", "Nv"}
	if code, out, errs := run(append([]string{"import", "onnx", model, "-o", opdef}, sel...)...); code != 0 {
		t.Fatalf("import: exit %d\n%s%s", code, out, errs)
	}
	written, _ := os.ReadFile(opdef)
	if !strings.Contains(string(written), `plugin_version: "2"`) || !strings.Contains(string(written), `plugin_namespace: ""`) {
		t.Errorf("the node's plugin identity is not in the opdef:\n%s", written)
	}
	rewritten := filepath.Join(dir, "out.onnx")
	code, out, errs := run(append([]string{"rewrite", "onnx", model, "--opdef", opdef, "-o", rewritten}, sel...)...)
	if code != 0 || !strings.Contains(out, "-> ::ROIAlign_TRT version 2") {
		t.Fatalf("rewrite: exit %d\n%s%s", code, out, errs)
	}
	data, _ := os.ReadFile(rewritten)
	got, err := onnx.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	roi := got.Nodes()[0]
	before := m.Graph.Nodes[0]
	if roi.OpType != before.OpType || len(roi.Attributes) != len(before.Attrs) {
		t.Fatalf("rewritten node: %s %+v", roi, roi.Attributes)
	}
	for _, a := range before.Attrs {
		if r := roi.Attr(a.Name); r == nil || string(r.S) != a.S || r.I != a.I || r.F != a.F {
			t.Errorf("attribute %s changed: %+v", a.Name, r)
		}
	}

	// --namespace "" makes the package's namespace empty: no per-op override.
	opdef2 := filepath.Join(dir, "opdefs", "nv2", "nv2.yaml")
	if code, out, errs := run(append([]string{"import", "onnx", model, "-o", opdef2, "--namespace", ""}, sel...)...); code != 0 {
		t.Fatalf("import --namespace '': exit %d\n%s%s", code, out, errs)
	}
	written, _ = os.ReadFile(opdef2)
	if !strings.Contains(string(written), `namespace: ""`) || strings.Contains(string(written), "plugin_namespace") {
		t.Errorf("--namespace \"\" not kept as the package namespace:\n%s", written)
	}
}

// TestRewriteForHTP retargets a node to an op of an HTP op package for ONNX
// Runtime's QNN execution provider: the op type is the op's, no TensorRT
// plugin attributes, the attributes kept; an op without targets.htp and a
// target without an ONNX runtime are refused.
func TestRewriteForHTP(t *testing.T) {
	dir := t.TempDir()
	model := writeModel(t, dir, onnxtest.Model{
		Opsets: []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "custom", Version: 1}},
		Graph: onnxtest.Graph{
			Name: "g",
			Nodes: []onnxtest.Node{
				{Name: "relu", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"r"}},
				{Name: "scale", OpType: "ScaleShift", Domain: "custom", Inputs: []string{"r"}, Outputs: []string{"y"},
					Attrs: []onnxtest.Attr{{Name: "alpha", Type: onnxtest.AttrFloat, F: 0.5}, {Name: "window", Type: onnxtest.AttrInts, Ints: []int64{3, 3}}}},
			},
			Inputs:    []onnxtest.Value{{Name: "x", Elem: onnxtest.Float, Dims: []any{"N", 4}}},
			Outputs:   []onnxtest.Value{{Name: "y", Elem: onnxtest.Float, Dims: []any{"N", 4}}},
			ValueInfo: []onnxtest.Value{{Name: "r", Elem: onnxtest.Float, Dims: []any{"N", 4}}},
		},
	})
	htpOpdef := filepath.Join(dir, "opdefs", "htp", "roi.yaml")
	trtOpdef := filepath.Join(dir, "opdefs", "trt", "roi.yaml")
	sel := []string{"--op-types", "ScaleShift", "--package", "Scale"}
	for opdef, tgt := range map[string]string{htpOpdef: "htp", trtOpdef: "trt"} {
		if code, out, errs := run(append([]string{"import", "onnx", model, "-o", opdef, "--targets", tgt}, sel...)...); code != 0 {
			t.Fatalf("import for %s: exit %d\n%s%s", tgt, code, out, errs)
		}
	}
	rewritten := filepath.Join(dir, "model.qnn.onnx")
	code, out, errs := run(append([]string{"rewrite", "onnx", model, "--opdef", htpOpdef, "--for", "htp", "-o", rewritten}, sel...)...)
	if code != 0 || !strings.Contains(out, "scale -> ScaleShift of op package Scale") || !strings.Contains(out, "op_packages=ScaleShift:<library>:ScaleInterfaceProvider") {
		t.Fatalf("rewrite --for htp: exit %d\n%s%s", code, out, errs)
	}
	data, _ := os.ReadFile(rewritten)
	m, err := onnx.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	n := m.Nodes()[1]
	if n.OpType != "ScaleShift" || n.Domain != "custom" || n.Attr("plugin_namespace") != nil || n.Attr("plugin_version") != nil ||
		n.Attr("alpha") == nil || n.Attr("alpha").F != 0.5 || len(n.Attr("window").Ints) != 2 {
		t.Errorf("rewritten node: %s %+v", n, n.Attributes)
	}

	code, _, errs = run(append([]string{"rewrite", "onnx", model, "--opdef", trtOpdef, "--for", "htp", "-o", rewritten + ".2"}, sel...)...)
	if code != 1 || !strings.Contains(errs, "which does not generate for htp") || !strings.Contains(errs, "[onnx-rewrite-op]") {
		t.Errorf("trt-only op for htp: exit %d %s", code, errs)
	}
	code, _, errs = run(append([]string{"rewrite", "onnx", model, "--opdef", htpOpdef, "--for", "aipu", "-o", rewritten + ".3"}, sel...)...)
	if code != 2 || !strings.Contains(errs, `--for "aipu"`) {
		t.Errorf("--for aipu: exit %d %s", code, errs)
	}
	for _, p := range []string{rewritten + ".2", rewritten + ".3"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s written despite the error", p)
		}
	}
}

// TestImportThenRewriteOptionalInputs: import joins nodes that differ only
// in trailing inputs into one op with optional inputs (TensorRT's C++
// plugins take them), and rewrite maps every node to that op; for HTP,
// whose packages take exact input counts, the nodes stay apart on both
// sides.
func TestImportThenRewriteOptionalInputs(t *testing.T) {
	model, _ := filepath.Abs("../../testdata/onnx/optional/model.onnx")
	dir := t.TempDir()
	for _, c := range []struct {
		importArgs, rewriteArgs []string
		want                    []string
	}{
		{[]string{"--targets", "trt"}, nil, []string{"plain -> model::BiasedScale", "biased -> model::BiasedScale", "trailing -> model::BiasedScale"}},
		{[]string{"--unsupported-for", "htp"}, []string{"--unsupported-for", "htp", "--for", "htp"},
			[]string{"plain -> BiasedScale of", "biased -> BiasedScale_2 of", "trailing -> BiasedScale of"}},
	} {
		opdef := filepath.Join(dir, strings.Join(c.importArgs, "")+".yaml")
		args := append([]string{"import", "onnx", model, "--op-types", "BiasedScale", "-o", opdef}, c.importArgs...)
		if code, out, errs := run(args...); code != 0 {
			t.Fatalf("import %v: exit %d\n%s%s", c.importArgs, code, out, errs)
		}
		args = append([]string{"rewrite", "onnx", model, "--op-types", "BiasedScale", "--opdef", opdef, "-o", opdef + ".onnx"}, c.rewriteArgs...)
		code, out, errs := run(args...)
		if code != 0 {
			t.Fatalf("rewrite %v: exit %d\n%s%s", c.rewriteArgs, code, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("rewrite %v: no %q in\n%s", c.rewriteArgs, w, out)
			}
		}
	}
}
