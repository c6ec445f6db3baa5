package verify

import (
	"testing"
)

const codedOpdef = `version: 1
package: {name: CodeOps, domain: example, version: 1.0.0}
ops:
  - name: Coded
    types: {T: [float32, float16]}
    inputs:
      - {name: x, type: T, shape: [N], dtype_param: dtype}
    params:
      - {name: dtype, type: int32, dtype_code: onnx, codes: [1, 10]}
      - {name: out_type, type: int32, dtype_code: onnx, codes: [6, 1], default: 6}
    outputs:
      - {name: y, type: T, shape: [N]}
      - {name: z, type: [int32, float32], shape: [N], dtype_param: out_type}
`

// TestCasesDTypeCode: a dtype code param binding an input's type variable
// takes, in every case, the code of the dtype the case gives the input
// (the plugin refuses any other pairing), and both dtypes are tried; an
// output typed by a code param has the dtype its code names.
func TestCasesDTypeCode(t *testing.T) {
	cs, _ := Cases(opOf(t, codedOpdef))
	seen := map[int64]bool{}
	for _, c := range cs {
		code, ok := c.Params[0].Value.(int64)
		if !ok {
			t.Fatalf("%s: param dtype = %#v, want an int", c.Name, c.Params[0].Value)
		}
		want := map[int64]string{1: "float32", 10: "float16"}[code]
		if c.Inputs[0].DType != want || c.Outputs[0].DType != want {
			t.Errorf("%s: dtype=%d, x %s, y %s: want both %s", c.Name, code, c.Inputs[0].DType, c.Outputs[0].DType, want)
		}
		seen[code] = true
		out := c.Params[1].Value.(int64)
		if wantZ := map[int64]string{6: "int32", 1: "float32"}[out]; c.Outputs[1].DType != wantZ {
			t.Errorf("%s: out_type=%d: z %s, want %s", c.Name, out, c.Outputs[1].DType, wantZ)
		}
	}
	if len(seen) != 2 {
		t.Errorf("cases cover dtype = %v, want codes 1 and 10", seen)
	}
}
