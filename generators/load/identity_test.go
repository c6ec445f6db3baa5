package load_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/targets/trt"
	"github.com/opforge/opforge/generators/yamldef"
)

// TestYAMLRoundTripKeepsPluginIdentity: writing a YAML opdef back keeps
// every op's TensorRT plugin identity (plugin_name, plugin_version, the
// empty plugin_namespace, the package's empty namespace), which `opforge
// import onnx` and `fmt` rely on.
func TestYAMLRoundTripKeepsPluginIdentity(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/gen/*/opdefs/*/*.yaml")
	empty := "\x00"
	files = append(files, empty)
	checked := 0
	for _, f := range files {
		var data []byte
		if f == empty {
			data = []byte("version: 1\npackage: {name: P, domain: d, version: 1.0.0, namespace: \"\"}\nops:\n  - name: A\n    inputs: [{name: x, type: float32, shape: [N]}]\n    outputs: [{name: y, type: float32, shape: [N]}]\n    targets: {trt: {qdp: false, plugin_name: A_TRT, plugin_version: \"2\"}}\n")
		} else {
			var err error
			if data, err = os.ReadFile(f); err != nil {
				t.Fatal(err)
			}
		}
		first := mustLoad(t, "a.yaml", data)
		y, err := yamldef.Write(first, "")
		if err != nil {
			t.Fatal(err)
		}
		second := mustLoad(t, "b.yaml", y)
		ids := func(pkg *ir.Package) []trt.PluginIdentity {
			var out []trt.PluginIdentity
			for _, op := range pkg.Ops {
				if trt.OpOptions(op) != nil {
					out = append(out, trt.PluginID(pkg, op))
				}
			}
			return out
		}
		if a, b := ids(first), ids(second); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: plugin identities changed by the YAML writer:\n%v\n%v\n%s", f, a, b, y)
		}
		checked += len(ids(first))
	}
	if checked < 5 {
		t.Fatalf("only %d plugin identities checked", checked)
	}
}
