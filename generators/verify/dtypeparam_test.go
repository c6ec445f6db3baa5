package verify

import (
	"testing"
)

const castOpdef = `version: 1
package: {name: CastOps, domain: example, version: 1.0.0}
ops:
  - name: CastTo
    inputs:
      - {name: x, type: [float32, float16, int32], shape: [N]}
    params:
      - {name: to, type: enum, values: [float16, float32, int32], default: float32}
    outputs:
      - {name: y, type: [float32, float16, int32], shape: [N], dtype_param: to}
`

// TestCasesDTypeParam: an output whose dtype a param chooses is expected in
// the dtype each case's param value names, whatever the input's dtype (found
// on the H100: every to=float16 and to=int32 case expected float32).
func TestCasesDTypeParam(t *testing.T) {
	cs, _ := Cases(opOf(t, castOpdef))
	seen := map[string]bool{}
	for _, c := range cs {
		to, ok := c.Params[0].Value.(string)
		if !ok {
			t.Fatalf("%s: param to = %#v, want a string", c.Name, c.Params[0].Value)
		}
		want := map[string]string{"float16": "float16", "float32": "float32", "int32": "int32"}[to]
		if got := c.Outputs[0].DType; got != want {
			t.Errorf("%s: to=%s, x %s: y dtype %s, want %s", c.Name, to, c.Inputs[0].DType, got, want)
		}
		seen[to] = true
	}
	if len(seen) != 3 {
		t.Errorf("cases cover to = %v, want all three values", seen)
	}
}
