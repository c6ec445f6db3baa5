package verify

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
)

const opdefCasesOpdef = `version: 1
package: {name: CaseOps, domain: example, version: 1.0.0}
ops:
  - name: Mix
    verify:
      sizes:
        W: K + 2
      cases:
        - {name: tail, dims: {N: 1027}, params: {alpha: -2.0}}
        - {dims: {K: 11}, shapes: {x: [7, 13], r: [2, 3, 5]}, types: {T: float16, idx: int64}}
        - {name: base, params: {mode: b, pads: [1, 2]}}
    types: {T: [float32, float16]}
    inputs:
      - {name: x, type: T, shape: [N, W]}
      - {name: k, type: T, shape: [K]}
      - {name: r, type: T, rank: any}
      - {name: idx, type: [int32, int64], shape: [N]}
    params:
      - {name: alpha, type: float32, default: 1.0}
      - {name: mode, type: enum, values: [a, b], default: a}
      - {name: pads, type: "int32[2]", default: [0, 0]}
    outputs:
      - {name: y, type: T, shape: [N, "W - K + 1 + pads[0] + pads[1]"]}
      - {name: z, type: T, shape: {like: r}}
`

// TestOpdefCases: the opdef's cases come last, under their names (one
// named as a generated case gets " (opdef)"; an unnamed one is named by
// what it sets), with the symbols, shapes, params and dtypes they set and
// everything else as in the base case.
func TestOpdefCases(t *testing.T) {
	cs, notes := Cases(opOf(t, opdefCasesOpdef))
	byName := map[string]Case{}
	var names []string
	for _, c := range cs {
		byName[c.Name] = c
		names = append(names, c.Name)
	}
	want := []string{"tail", "K=11,x=(7,13),r=(2,3,5),T=float16,idx=int64", "base (opdef)"}
	if len(names) < 3 || !slices.Equal(names[len(names)-3:], want) {
		t.Fatalf("cases %q, want the last three %q (notes %v)", names, want, notes)
	}
	for _, tc := range []struct {
		name       string
		x, r, y, z []int64
		dtypes     [2]string // x's, idx's
		param      string    // the param the case sets, as shown
		value      string
	}{
		{"tail", []int64{1027, 5}, []int64{3, 3, 3, 3}, []int64{1027, 3}, []int64{3, 3, 3, 3}, [2]string{"float32", "int32"}, "alpha", "-2"},
		// x [7, 13] binds N = 7; W = K + 2 = 13.
		{"K=11,x=(7,13),r=(2,3,5),T=float16,idx=int64", []int64{7, 13}, []int64{2, 3, 5}, []int64{7, 3}, []int64{2, 3, 5}, [2]string{"float16", "int64"}, "alpha", "1"},
		{"base (opdef)", []int64{3, 5}, []int64{3, 3, 3, 3}, []int64{3, 6}, []int64{3, 3, 3, 3}, [2]string{"float32", "int32"}, "pads", "(1,2)"},
	} {
		c := byName[tc.name]
		if !slices.Equal(c.Inputs[0].Shape, tc.x) || !slices.Equal(c.Inputs[2].Shape, tc.r) || !slices.Equal(c.Outputs[0].Shape, tc.y) || !slices.Equal(c.Outputs[1].Shape, tc.z) {
			t.Errorf("%s: x %v r %v y %v z %v, want %v %v %v %v", tc.name, c.Inputs[0].Shape, c.Inputs[2].Shape, c.Outputs[0].Shape, c.Outputs[1].Shape, tc.x, tc.r, tc.y, tc.z)
		}
		if c.Inputs[0].DType != tc.dtypes[0] || c.Inputs[3].DType != tc.dtypes[1] || c.Outputs[0].DType != tc.dtypes[0] {
			t.Errorf("%s: dtypes x %s idx %s y %s, want %v", tc.name, c.Inputs[0].DType, c.Inputs[3].DType, c.Outputs[0].DType, tc.dtypes)
		}
		i := slices.IndexFunc(c.Params, func(p Param) bool { return p.Name == tc.param })
		if got := show(c.Params[i].Value); got != tc.value {
			t.Errorf("%s: %s = %s, want %s", tc.name, tc.param, got, tc.value)
		}
	}
	if k := byName["K=11,x=(7,13),r=(2,3,5),T=float16,idx=int64"].Inputs[1].Shape; !slices.Equal(k, []int64{11}) {
		t.Errorf("k %v, want [11] (W = K + 2 = 13)", k)
	}
	if m := byName["base (opdef)"].Params[1]; m.Value != "b" || m.Index != 1 {
		t.Errorf("mode %+v, want b (index 1)", m)
	}
}

// TestOpdefCasesRun: an opdef's case runs through the runner like verify's
// own, reported under its name: the reference passes it, outputs off by
// one fail it.
func TestOpdefCasesRun(t *testing.T) {
	needPython(t)
	for _, tc := range []struct {
		mode, want string
	}{
		{"same", "PASS VisionOps/TopKLast fake [tail]"},
		{"off", "FAIL VisionOps/TopKLast fake [tail]"},
	} {
		o := fakeWorkspace(t, fakeRunner{mode: tc.mode})
		opdef := filepath.Join(o.OpDefs, "vision", "vision_ops.yaml")
		data, err := os.ReadFile(opdef)
		if err != nil {
			t.Fatal(err)
		}
		withCase := strings.Replace(string(data), "  - name: TopKLast\n", "  - name: TopKLast\n    verify: {cases: [{name: tail, dims: {L: 1027}, params: {k: 300, order: smallest}, types: {T: float16}}]}\n", 1)
		if err := os.WriteFile(opdef, []byte(withCase), 0o644); err != nil {
			t.Fatal(err)
		}
		var l diag.List
		rs := Run(o, &l)
		if l.HasErrors() {
			t.Fatal(l.Sorted())
		}
		var buf bytes.Buffer
		WriteText(&buf, rs)
		if !strings.Contains(buf.String(), tc.want) {
			t.Errorf("mode %s: want %q:\n%s", tc.mode, tc.want, buf.String())
		}
	}
}
