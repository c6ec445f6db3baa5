package trt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/yamldef"
)

// ruleFormatCases are the driver's `fmtcase` lines of an op with format
// rules: for every dtype combination and every vectorized format the op
// lists, whether supportsFormatCombination must accept the combination
// (some rule admits the format for the leading tensor's dtype, the case's
// rank and param values) or refuse it. Formats the leading tensor's rank
// cannot take are left out (the tensors would all be LINEAR).
func ruleFormatCases(op *ir.Op, all []*ioTensor, combos []combo, values map[string]value, lines []string) []string {
	rules := OpOptions(op).FormatRules
	if !anyConditional(rules) || len(op.Inputs) == 0 {
		return nil
	}
	rank := len(inputDims(lines, 0))
	var out []string
	for _, c := range combos {
		types := make([]int64, len(c.DTypes))
		for i, d := range c.DTypes {
			types[i] = int64(dataType(d))
		}
		for _, f := range OpOptions(op).Formats {
			lead := formatFor(f, rank)
			if lead == "LINEAR" {
				continue
			}
			fs := make([]int64, len(all))
			for i, t := range all {
				if t.Rule != ruleSize {
					fs[i] = int64(tensorFormats[formatFor(lead, rankOfCase(t, lines))])
				}
			}
			accept := 0
			if ruleAdmits(rules, f, c.DTypes[0], rank, func(pc ParamCond) bool { return condHolds(op.Param(pc.Param), pc, values[pc.Param]) }) {
				accept = 1
			}
			out = append(out, fmt.Sprintf("fmtcase %d %d%s %d%s", accept, len(types), ints(types), len(fs), ints(fs)))
		}
	}
	return out
}

// condHolds evaluates a rule's condition on the value the case gives the
// param: an enum by its value name, a bool as 0 or 1, a number as itself.
func condHolds(p *ir.Param, c ParamCond, v value) bool {
	var x, want float64
	switch {
	case p.Kind == ir.ParamEnum:
		if c.Op == "==" {
			return v.text == c.Value
		}
		return v.text != c.Value
	case p.Kind == ir.ParamBool:
		x = float64(v.ints[0])
		if c.Value == "true" {
			want = 1
		}
	default:
		fmt.Sscan(c.Value, &want)
		if len(v.floats) > 0 {
			x = v.floats[0]
		} else {
			x = float64(v.ints[0])
		}
	}
	switch c.Op {
	case "==":
		return x == want
	case "!=":
		return x != want
	case "<":
		return x < want
	case "<=":
		return x <= want
	case ">":
		return x > want
	}
	return x >= want
}

// TestFormatRulesRoundTrip: the rules decode from the section as written
// and the canonical section writes them back in the same form.
func TestFormatRulesRoundTrip(t *testing.T) {
	const src = `version: 1
package: {name: P, domain: example, version: 1.0.0}
ops:
  - name: A
    types: {T: [float32, float16, int8]}
    inputs: [{name: x, type: T, rank: [4, 5]}]
    params: [{name: ld, type: int32, default: 16}, {name: mode, type: enum, values: [a, b], default: a}]
    outputs: [{name: y, type: T, shape: {like: x}}]
    targets:
      trt:
        formats: [linear, {format: dhwc8, when: {dtype: float16, rank: 5}}, {format: cdhw32, when: {dtype: [int8, float16], rank: [4, 5], param: ["ld < 32", "mode == b"]}}]
        qdp: false
`
	var l diag.List
	pkg := yamldef.Load("p.yaml", []byte(src), &l)
	if pkg == nil || l.HasErrors() {
		t.Fatalf("does not load: %v", l.Sorted())
	}
	Target{}.Check(pkg, l.ForTarget("trt"))
	if l.HasErrors() {
		t.Fatalf("check: %v", l.Sorted())
	}
	o := OpOptions(pkg.Ops[0])
	if got := strings.Join(o.Formats, ","); got != "LINEAR,DHWC8,CDHW32" {
		t.Errorf("formats %s", got)
	}
	r := o.FormatRules[2]
	if len(r.DTypes) != 2 || len(r.Ranks) != 2 || len(r.Params) != 2 || r.Params[1].Param != "mode" || r.Params[1].Value != "b" || r.Pos.Line != 11 {
		t.Errorf("rule %+v", r)
	}
	want := `{formats: [linear, {format: dhwc8, when: {dtype: float16, rank: 5}}, {format: cdhw32, when: {dtype: [int8, float16], rank: [4, 5], param: [ld < 32, mode == b]}}], qdp: false}`
	if got := pkg.Ops[0].Sections.Get("trt").Written().FlowText(); got != want {
		t.Errorf("canonical section\n got %s\nwant %s", got, want)
	}
}

// TestRuleAdmits holds the verdict the Python plugin and the driver use to
// the rules: a rule admits its format only where each condition holds.
func TestRuleAdmits(t *testing.T) {
	rules := []FormatRule{{Format: "LINEAR"}, {Format: "CHW4", DTypes: []ir.DType{ir.Int8}, Params: []ParamCond{{Param: "ld", Op: "<", Value: "32"}}}, {Format: "DHWC8", DTypes: []ir.DType{ir.Float16}, Ranks: []int{5}}}
	ld := func(v int64) func(ParamCond) bool {
		return func(c ParamCond) bool { return condHolds(&ir.Param{Kind: ir.ParamScalar}, c, value{ints: []int64{v}}) }
	}
	for _, c := range []struct {
		f    string
		dt   ir.DType
		rank int
		vals func(ParamCond) bool
		want bool
	}{
		{"LINEAR", ir.Float32, 4, ld(1), true},
		{"CHW4", ir.Int8, 4, ld(16), true},
		{"CHW4", ir.Int8, 4, ld(32), false},
		{"CHW4", ir.Float16, 4, ld(16), false},
		{"DHWC8", ir.Float16, 5, nil, true},
		{"DHWC8", ir.Float16, 4, nil, false},
		{"DHWC8", ir.Float16, ir.RankAny, nil, true},
		{"CHW32", ir.Int8, 4, nil, false},
	} {
		if got := ruleAdmits(rules, c.f, c.dt, c.rank, c.vals); got != c.want {
			t.Errorf("%s %s rank %d: %v, want %v", c.f, c.dt, c.rank, got, c.want)
		}
	}
}

// qdpAutotuneCount is how many combinations the Python plugin's autotune
// must list: each dtype combination in each format its rules admit for
// the leading tensor's dtype and rank and the attribute values.
func qdpAutotuneCount(op *ir.Op, l *ioLayout, combos []combo, values map[string]value) int {
	o, all, n := OpOptions(op), l.All(), 0
	holds := func(pc ParamCond) bool { return condHolds(op.Param(pc.Param), pc, values[pc.Param]) }
	for _, c := range combos {
		for _, f := range o.Formats {
			if len(all) == 0 || ruleAdmits(o.FormatRules, f, c.DTypes[0], all[0].Rank, holds) {
				n++
			}
		}
	}
	return n
}
