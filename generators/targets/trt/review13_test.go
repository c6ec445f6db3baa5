package trt

import (
	"strings"
	"testing"
)

// TestQDPAutotuneParamSharedByOutputs: two outputs typed by the same
// dtype_param have the dtype its value names, so the Python plugin's
// autotune lists, under each value, only combinations where both outputs
// have it (the register function returns both in that dtype). Review of
// f7a2a60: each output gets a slot of its own, so under to=float32 the
// combination with z HALF is listed too.
func TestQDPAutotuneParamSharedByOutputs(t *testing.T) {
	pkg, op := opOf(t, `
  - name: TwoOuts
    inputs: [{name: x, type: float32, shape: [N]}]
    params: [{name: to, type: enum, values: [float32, float16]}]
    outputs:
      - {name: y, type: [float32, float16], shape: [N], dtype_param: to}
      - {name: z, type: [float32, float16], shape: [N], dtype_param: to}
`)
	pm := newPackageModel(pkg, pkg.Ops)
	q := newQDPOp(pkg, op, pm.Ops[0])
	want := map[string]string{`("float32",)`: `"FLOAT, FLOAT, FLOAT"`, `("float16",)`: `"FLOAT, HALF, HALF"`}
	for _, line := range strings.Split(q.Combos, caseSep) {
		for key, combo := range want {
			if strings.HasPrefix(line, "(("+strings.TrimPrefix(key, "(")) && !strings.Contains(line, combo) {
				t.Errorf("autotune lists %s under %s; the register function types both outputs %s", line, key, combo)
			}
		}
	}
}
