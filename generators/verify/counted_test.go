package verify

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestCasesCountedOutput: a counted output is as many case outputs as its
// param says in the case, each named <output>_<k> and shaped with # at k.
func TestCasesCountedOutput(t *testing.T) {
	cs := casesOf(t, `version: 1
package: {name: Anchors, domain: example, version: 1.0.0}
ops:
  - name: Priors
    verify:
      cases:
        - {name: three, params: {layers: 3, sizes: [4, 2, 1]}}
    outputs:
      - {name: boxes, type: float32, shape: [2, "sizes[#] * sizes[#] * (3 + min(#, 1))", 1], variadic: true, count: layers}
    params:
      - {name: layers, type: int32, default: 2, min: 1, max: 8}
      - {name: sizes, type: "int32[]", default: [5, 3], min: 1}
`)
	want := map[string][][]int64{"three": {{2, 48, 1}, {2, 16, 1}, {2, 4, 1}}}
	seen := 0
	for _, c := range cs {
		shapes, ok := want[c.Name]
		if !ok {
			continue
		}
		seen++
		var got [][]int64
		for k, o := range c.Outputs {
			if o.Name != "boxes_"+string(rune('0'+k)) {
				t.Errorf("case %q output %d is named %s", c.Name, k, o.Name)
			}
			got = append(got, o.Shape)
		}
		if !slices.EqualFunc(got, shapes, slices.Equal) {
			t.Errorf("case %q: outputs %v, want %v", c.Name, got, shapes)
		}
	}
	if seen != 1 {
		t.Fatalf("no case named three among %d", len(cs))
	}
	// Every case (the param sweeps too) has its layers' worth of outputs.
	for _, c := range cs {
		for _, p := range c.Params {
			if n, ok := p.Value.(int64); p.Name == "layers" && (!ok || int64(len(c.Outputs)) != n) {
				t.Errorf("case %q has %d outputs; layers is %v", c.Name, len(c.Outputs), p.Value)
			}
		}
	}
}

// TestCasesNoInputsMarshalAsLists: an op without inputs (a prior-box
// generator) hands the runners "inputs": [], not null, which they iterate
// (the H200 run of GridAnchor_TRT died on null).
func TestCasesNoInputsMarshalAsLists(t *testing.T) {
	cs := casesOf(t, `version: 1
package: {name: Anchors, domain: example, version: 1.0.0}
ops:
  - name: Priors
    outputs:
      - {name: boxes, type: float32, shape: [2, 4]}
`)
	if len(cs) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cs {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{`"inputs":[]`, `"params":[]`} {
			if !strings.Contains(string(b), key) {
				t.Errorf("case %q marshals without %s: %s", c.Name, key, b)
			}
		}
	}
}
