package onnximport

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/yamldef"
)

// FuzzImport: no model that reads makes the import or the rewrite plan
// panic, and whatever imports writes an opdef that loads.
func FuzzImport(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(goldenDir, "*", "model.onnx"))
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				panic(fmt.Sprintf("import took over 5s: %q", data))
			}
		}()
		m, err := onnx.Read(data)
		if err != nil {
			return
		}
		var l diag.List
		res := Import(m, "f.onnx", Options{Selection: Selection{UnsupportedFor: "trt"}, AllowStandardNames: true}, &l)
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
		Plan(m, "f.onnx", res.Calls, pkg, true, &l2)
	})
}
