package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/onnx/onnxtest"
	"github.com/opforge/opforge/generators/onnximport"
	"github.com/opforge/opforge/generators/yamldef"
)

// hostileModel is a model whose graph and node names, domain and value names
// are text from an untrusted ONNX file.
func hostileModel(text string) []byte {
	f32 := func(name string) onnxtest.Value {
		return onnxtest.Value{Name: name, Elem: onnxtest.Float, Dims: []any{"N", 4}}
	}
	return onnxtest.Model{
		Opsets: []onnxtest.Opset{{Domain: "", Version: 17}, {Domain: "x" + text, Version: 1}},
		Graph: onnxtest.Graph{
			Name: "g" + text,
			Nodes: []onnxtest.Node{{
				Name: text, OpType: "HostileOp", Domain: "x" + text,
				Inputs: []string{"in" + text}, Outputs: []string{"out" + text},
				Attrs: []onnxtest.Attr{{Name: "k", Type: onnxtest.AttrInt, I: 2}},
			}},
			Inputs:  []onnxtest.Value{f32("in" + text)},
			Outputs: []onnxtest.Value{f32("out" + text)},
		},
	}.Bytes()
}

// TestHostileONNXNames imports models whose names are hostile text, writes
// the opdef as `opforge import` does, loads it back and generates every
// target: what the model names reach must be refused with diagnostics or
// stay data, under the same tool checks as TestHostileText.
func TestHostileONNXNames(t *testing.T) {
	dir := t.TempDir()
	var cases []hostileCase
	for i, text := range hostileTexts {
		pkg := fmt.Sprintf("Onnx%d", i)
		m, err := onnx.Read(hostileModel(text))
		if err != nil {
			t.Fatalf("text %q: %v", text, err)
		}
		var l diag.List
		res := onnximport.Import(m, "model.onnx", onnximport.Options{Selection: onnximport.Selection{OpTypes: []string{"HostileOp"}}, Package: pkg, Domain: "hostile", Targets: onnximport.Targets}, &l)
		if res == nil || l.HasErrors() {
			t.Logf("text %q refused by import:\n%s", text, diagText(&l))
			continue
		}
		data, err := yamldef.Write(res.Package, "")
		if err != nil {
			t.Fatalf("text %q: writing the opdef: %v", text, err)
		}
		set, gl := generateText(t, data)
		if set == nil || gl.HasErrors() {
			t.Errorf("text %q: the imported opdef does not generate:\n%s\n%s", text, diagText(gl), data)
			continue
		}
		checkParses(t, set)
		writeSet(t, set, dir)
		// The node name reaches the description: the AIPU docstrings.
		cases = append(cases, hostileCase{pkg: pkg, text: text, contains: []string{strings.Join(strings.Fields(text), " ")}})
	}
	if len(cases) == 0 {
		t.Fatal("every hostile model was refused")
	}
	if keep := os.Getenv("OPFORGE_KEEP"); keep != "" {
		_ = os.CopyFS(filepath.Join(keep, "onnx"), os.DirFS(dir))
	}
	checkWithTools(t, dir, cases)
}
