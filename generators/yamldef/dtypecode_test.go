package yamldef

import (
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
)

// TestFormatOrdersDTypeCode: opforge fmt puts dtype_code and codes after
// a param's type, as the canonical writer writes them.
func TestFormatOrdersDTypeCode(t *testing.T) {
	src := `version: 1
package: {name: P, domain: example, version: 1.0.0}
ops:
  - name: A
    inputs: [{name: x, type: [float32, float16], shape: [N], dtype_param: t}]
    params: [{codes: [1, 10], name: t, dtype_code: onnx, default: 1, type: int32}]
    outputs: [{name: y, type: float32, shape: [N]}]
`
	var l diag.List
	out, ok := Format("p.yaml", []byte(src), &l)
	if !ok {
		t.Fatal(l.Sorted())
	}
	if want := "{name: t, type: int32, dtype_code: onnx, codes: [1, 10], default: 1}"; !strings.Contains(string(out), want) {
		t.Errorf("formatted opdef lacks %q:\n%s", want, out)
	}
}
