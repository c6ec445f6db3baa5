package onnximport

import (
	"testing"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/onnx/onnxtest"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/targets/trt"
	"github.com/opforge/opforge/generators/yamldef"
)

// FuzzImport: no model that reads makes the import or the rewrite plan
// panic, and whatever imports writes an opdef that loads.
func FuzzImport(f *testing.F) {
	onnxtest.AddSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer onnxtest.Deadline(5*time.Second, data)()
		m, err := onnx.Read(data)
		if err != nil {
			return
		}
		var l diag.List
		res := Import(m, "f.onnx", Options{Selection: Selection{UnsupportedFor: "trt", FrontEnds: registry.FrontEnds()}, AllowStandardNames: true}, &l)
		if res == nil {
			return
		}
		out, err := yamldef.Write(res.Package, "")
		if err != nil {
			t.Fatal(err)
		}
		var l2 diag.List
		pkg := load.Parse("f.yaml", out, &l2)
		if pkg == nil {
			t.Fatalf("imported opdef does not load: %v\n%s", l2.Sorted(), out)
		}
		Plan(m, "f.onnx", res.Calls, pkg, trt.Target{}, true, &l2)
	})
}
