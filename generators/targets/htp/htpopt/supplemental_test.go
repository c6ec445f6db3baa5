package htpopt_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
	"github.com/opforge/opforge/generators/yamldef"
)

const opsYAML = `ops:
  - name: A
    inputs:
      - {name: x, type: float32, shape: [N]}
    outputs:
      - {name: y, type: float32, shape: [N]}
    targets:
      htp: {}
`

func load(t *testing.T, src string) *ir.Package {
	t.Helper()
	var l diag.List
	pkg := yamldef.Load("p.yaml", []byte(src), &l)
	if pkg == nil || l.HasErrors() {
		t.Fatalf("does not load: %v", l.Sorted())
	}
	return pkg
}

// TestSupplementalDecode: the htp package section's supplemental list is
// decoded from the core's opaque node, each item with its position.
func TestSupplementalDecode(t *testing.T) {
	src := `version: 1
package: {name: P, domain: d, version: "1.0"}
targets:
  htp:
    executorch: false
    supplemental:
      - backend: HTP
        runtime: rt
        supported_ops: [A, B]
        ops:
          - name: A
            inputs:
              - name: x
                type: [backend_specific, float32]
                layouts: [NHWC]
                shape_text: any
                only_default_supported: True
                constraints: [{id: 0x2, type: Datatype, text: fp}]
                quant_params:
                  - {encodings: [SCALE_OFFSET], axes: [0x1], scale: 1_0.5, symmetric: TRUE}
` + opsYAML
	pkg := load(t, src)
	htpopt.Decode(pkg)
	o := htpopt.OfPackage(pkg)
	if o.ExecuTorch || len(o.Supplementals) != 1 {
		t.Fatalf("options %+v", o)
	}
	s := o.Supplementals[0]
	pos := func(line, col int) diag.Pos { return diag.Pos{File: "p.yaml", Line: line, Col: col} }
	if s.Backend != "HTP" || s.Runtime != "rt" || s.Pos != pos(7, 9) {
		t.Errorf("list %+v", s)
	}
	if !reflect.DeepEqual(s.SupportedOps, []string{"A", "B"}) || !reflect.DeepEqual(s.SupportedOpsPos, []diag.Pos{pos(9, 25), pos(9, 28)}) {
		t.Errorf("supported ops %v at %v", s.SupportedOps, s.SupportedOpsPos)
	}
	if len(s.Ops) != 1 || s.Ops[0].Name != "A" || s.Ops[0].Pos != pos(11, 13) || len(s.Ops[0].Inputs) != 1 {
		t.Fatalf("ops %+v", s.Ops)
	}
	x := s.Ops[0].Inputs[0]
	want := &htpopt.SupplementalTensor{
		Name:                 "x",
		DTypes:               []ir.DType{ir.BackendSpecific, ir.Float32},
		DTypesPos:            []diag.Pos{pos(14, 24), pos(14, 42)},
		Layouts:              []ir.Layout{"NHWC"},
		ShapeText:            "any",
		OnlyDefaultSupported: new(bool),
		Constraints:          []ir.Constraint{{ID: 2, Type: "Datatype", Text: "fp", Pos: pos(18, 31)}},
		QuantParams:          []htpopt.QuantParam{{Encodings: []string{"SCALE_OFFSET"}, Axes: []string{"0x1"}, Fields: []htpopt.KeyValue{{Key: "Symmetric", Value: "TRUE"}, {Key: "Scale", Value: "1_0.5"}}}},
		Pos:                  pos(13, 17),
	}
	*want.OnlyDefaultSupported = true
	if !reflect.DeepEqual(x, want) {
		t.Errorf("tensor\n%+v\nwant\n%+v", x, want)
	}
}

// TestSupplementalCanonical: the canonical section writes the lists as
// opforge always has (block lists, short lists on one line, QuantParam
// values in their own spelling), after the options that differ from the
// defaults, or after the options as written where all are defaults.
func TestSupplementalCanonical(t *testing.T) {
	for _, c := range []struct{ name, section, want string }{
		{"options", `
  htp:
    supplemental:
      - {backend: CPU, ops: [{name: A, outputs: [{name: y, quant_params: [{encodings: [SCALE_OFFSET], min: 0o7, is_math_invariant: FALSE}]}]}]}
    interface_style: legacy
`, `targets:
  htp:
    interface_style: legacy
    supplemental:
      - backend: CPU
        ops:
          - name: A
            outputs:
              - name: y
                quant_params:
                  - encodings: [SCALE_OFFSET]
                    min: 0o7
                    is_math_invariant: FALSE
`},
		{"defaults as written", `
  htp: {executorch: true, supplemental: [{backend: HTP, ops: [{name: A}]}]}
`, `targets:
  htp: {executorch: true, supplemental: [{backend: HTP, ops: [{name: A}]}]}
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			pkg := load(t, "version: 1\npackage: {name: P, domain: d, version: \"1.0\"}\ntargets:"+c.section+opsYAML)
			htpopt.Decode(pkg)
			out, err := yamldef.Write(pkg, "")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("written as:\n%s\nwant it to contain:\n%s", out, c.want)
			}
		})
	}
}

// TestSetPackageKept: options a front end built (QNN's XML) survive
// Decode, and their canonical form is written without a check.
func TestSetPackageKept(t *testing.T) {
	pkg := load(t, "version: 1\npackage: {name: P, domain: d, version: \"1.0\"}\n"+opsYAML)
	o := htpopt.DefaultPackage()
	o.Supplementals = []*htpopt.Supplemental{{Backend: "HTP", Ops: []*htpopt.SupplementalOp{{Name: "A", Params: []*htpopt.SupplementalTensor{{Name: "p", QuantParams: []htpopt.QuantParam{{Encodings: []string{"SCALE_OFFSET"}, Fields: []htpopt.KeyValue{{Key: "Offset", Value: "-128"}}}}}}}}}}
	htpopt.SetPackage(pkg.Sections.Add(htpopt.Target, ir.Map(false), diag.Pos{}), o)
	out, err := yamldef.Write(pkg, "")
	if err != nil {
		t.Fatal(err)
	}
	want := "targets:\n  htp:\n    supplemental:\n      - backend: HTP\n        ops:\n          - name: A\n            params:\n              - name: p\n                quant_params:\n                  - encodings: [SCALE_OFFSET]\n                    offset: -128\n"
	if !strings.Contains(string(out), want) {
		t.Errorf("written as:\n%s", out)
	}
	htpopt.Decode(pkg)
	if htpopt.OfPackage(pkg) != o {
		t.Error("Decode replaced the options a front end set")
	}
}

// TestExecuTorchSpellings: every YAML spelling of a bool sets executorch
// as written. Found in review: `executorch: True` turned ExecuTorch off,
// since only a lowercase true counted as true.
func TestExecuTorchSpellings(t *testing.T) {
	for _, c := range []struct {
		value string
		want  bool
	}{{"true", true}, {"True", true}, {"TRUE", true}, {"false", false}, {"False", false}, {"FALSE", false}} {
		pkg := load(t, "version: 1\npackage: {name: P, domain: d, version: \"1.0\"}\ntargets:\n  htp: {executorch: "+c.value+"}\n"+opsYAML)
		if got := htpopt.OfPackage(pkg).ExecuTorch; got != c.want {
			t.Errorf("executorch: %s reads as %v", c.value, got)
		}
	}
}

// TestConstraintIDSpellings: a constraint id is an integer in every
// spelling the schema accepts, 2.0 and 2e0 included (as yaml.v3 decoded
// it before the supplementals moved here; 0 is wrong).
func TestConstraintIDSpellings(t *testing.T) {
	for spelling, want := range map[string]int{"2": 2, "0x1F": 31, "1_000": 1000, "2.0": 2, "2e0": 2, "-3": -3} {
		src := `version: 1
package: {name: P, domain: d, version: "1.0"}
targets:
  htp:
    supplemental:
      - backend: HTP
        ops:
          - name: A
            inputs:
              - {name: x, constraints: [{id: ` + spelling + `, type: Datatype, text: fp}]}
` + opsYAML
		pkg := load(t, src)
		htpopt.Decode(pkg)
		if got := htpopt.OfPackage(pkg).Supplementals[0].Ops[0].Inputs[0].Constraints[0].ID; got != want {
			t.Errorf("id: %s decodes as %d, want %d", spelling, got, want)
		}
	}
}
