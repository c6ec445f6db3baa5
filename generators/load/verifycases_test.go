package load_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/yamldef"
)

const verifyCasesSrc = `version: 1
package: {name: P, domain: example, version: 1.0.0}
ops:
  - name: Scale
    verify:
      cases:
        - {name: tail, dims: {N: 1027}, params: {alpha: -2.0}}
        - {shapes: {x: [7, 13]}, types: {T: float16}}
        - {name: everything, dims: {N: 5}, shapes: {x: [5, 9], r: [2, 3, 4]}, params: {alpha: 0.5, mode: b, pads: [1, 2]}, types: {T: float16}}
    types: {T: [float32, float16]}
    inputs:
      - {name: x, type: T, shape: [N, C]}
      - {name: r, type: T, rank: any}
    params:
      - {name: alpha, type: float32, default: 1.0}
      - {name: mode, type: enum, values: [a, b], default: a}
      - {name: pads, type: "int32[2]", default: [0, 0]}
    outputs:
      - {name: y, type: T, shape: [N, C]}
      - {name: z, type: T, shape: {like: r}}
`

// TestVerifyCasesRoundTrip: the opdef's verify cases load with every field
// (name, dims, shapes, params, types) and the canonical writer keeps them
// all, short ones on one line, as a fixed point.
func TestVerifyCasesRoundTrip(t *testing.T) {
	pkg := mustLoad(t, "p.yaml", []byte(verifyCasesSrc))
	cs := pkg.Ops[0].Verify.Cases
	if len(cs) != 3 {
		t.Fatalf("%d cases, want 3", len(cs))
	}
	if got := caseText(cs[0]); got != "tail dims[N=1027] shapes[] params[alpha=-2.0] types[]" {
		t.Errorf("case 1 read as %s", got)
	}
	if got := caseText(cs[2]); got != "everything dims[N=5] shapes[x=[5 9] r=[2 3 4]] params[alpha=0.5 mode=b pads=[1 2]] types[T=float16]" {
		t.Errorf("case 3 read as %s", got)
	}
	y, err := yamldef.Write(pkg, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- {name: tail, dims: {N: 1027}, params: {alpha: -2.0}}",
		"- {shapes: {x: [7, 13]}, types: {T: float16}}",
		"- name: everything\n",
		"shapes: {x: [5, 9], r: [2, 3, 4]}",
		"params: {alpha: 0.5, mode: b, pads: [1, 2]}",
	} {
		if !strings.Contains(string(y), want) {
			t.Errorf("written opdef lacks %q:\n%s", want, y)
		}
	}
	again := mustLoad(t, "p2.yaml", y)
	for i, c := range again.Ops[0].Verify.Cases {
		if caseText(c) != caseText(cs[i]) {
			t.Errorf("case %d after the round trip: %s, want %s", i+1, caseText(c), caseText(cs[i]))
		}
	}
	y2, _ := yamldef.Write(again, "")
	if !bytes.Equal(y, y2) {
		t.Errorf("not a fixed point:\n%s\n---\n%s", y, y2)
	}
}

func caseText(c ir.VerifyCase) string {
	var dims, shapes, params, types []string
	for _, d := range c.Dims {
		dims = append(dims, fmt.Sprintf("%s=%d", d.Symbol, d.Value))
	}
	for _, s := range c.Shapes {
		shapes = append(shapes, fmt.Sprintf("%s=%v", s.Input, s.Dims))
	}
	for _, p := range c.Params {
		params = append(params, p.Name+"="+litText(p.Value))
	}
	for _, ty := range c.Types {
		types = append(types, ty.Name+"="+string(ty.DType))
	}
	return fmt.Sprintf("%s dims[%s] shapes[%s] params[%s] types[%s]", c.Name, strings.Join(dims, " "), strings.Join(shapes, " "), strings.Join(params, " "), strings.Join(types, " "))
}

func litText(l *ir.Literal) string {
	if l.Kind == ir.LitList {
		var s []string
		for _, e := range l.List {
			s = append(s, litText(e))
		}
		return "[" + strings.Join(s, " ") + "]"
	}
	return l.Text
}
