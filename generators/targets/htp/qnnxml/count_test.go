package qnnxml_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/targets/htp/qnnxml"
	"github.com/opforge/opforge/generators/yamldef"
)

// TestCountIsLost: QNN XML's Repeated says a tensor is variadic but not
// which param counts it, so writing a counted tensor warns that the count
// is dropped.
func TestCountIsLost(t *testing.T) {
	src := `version: 1
package: {name: SplitOps, domain: example, version: 1.0.0}
ops:
  - name: SplitEven
    inputs:
      - {name: x, type: float32, shape: [N]}
    outputs:
      - {name: parts, type: float32, shape: [N], variadic: true, count: n}
    params:
      - {name: n, type: int32, default: 2, min: 1, max: 8}
`
	var l diag.List
	pkg := yamldef.Load("ops.yaml", []byte(src), &l)
	if pkg == nil || l.HasErrors() {
		t.Fatalf("load: %v", l.Sorted())
	}
	var wl diag.List
	out, err := qnnxml.Write(pkg, &wl)
	if err != nil || wl.HasErrors() {
		t.Fatalf("write: %v %v", err, wl.Sorted())
	}
	var buf bytes.Buffer
	_ = wl.WriteText(&buf)
	if want := "ops.yaml:8:73: warning: \"parts\": QNN XML's Repeated has no count; count: n is dropped [qnn-xml-lossy]"; !strings.Contains(buf.String(), want) {
		t.Errorf("warnings:\n%s\nwant %s", buf.String(), want)
	}
	if !bytes.Contains(out, []byte("<Repeated>true</Repeated>")) {
		t.Errorf("the tensor is not written as repeated:\n%s", out)
	}
}
