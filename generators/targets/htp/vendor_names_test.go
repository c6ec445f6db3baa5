package htp

import (
	"slices"
	"testing"

	"github.com/opforge/opforge/generators/ir"
)

// TestVendorNames: the impl declares the names qnn-op-package-generator
// gives its tensors (vendor doc: out_<i> for an output whose name contains
// "out", in_<i> for an input whose name contains "in", others verbatim),
// so the kernel bodies of the vendor's examples compile unchanged; a name
// that would clash with an argument is left out.
func TestVendorNames(t *testing.T) {
	tensor := func(name string) *ir.Tensor { return &ir.Tensor{Name: name, Ident: name} }
	for _, c := range []struct {
		name      string
		outs, ins []string
		params    []string
		want      []string
	}{
		{"ExampleCustomOp", []string{"output"}, []string{"input"}, nil,
			[]string{"[[maybe_unused]] auto& out_0 = output;", "[[maybe_unused]] const auto& in_0 = input;"}},
		{"SplitCustomOp", []string{"first_half", "second_half"}, []string{"input"}, nil,
			[]string{"[[maybe_unused]] const auto& in_0 = input;"}},
		{"already the vendor's", []string{"out_0"}, []string{"in_0", "in_1"}, nil, nil},
		{"the vendor's quirk: index contains in", []string{"y"}, []string{"x", "index"}, nil,
			[]string{"[[maybe_unused]] const auto& in_1 = index;"}},
		{"a param named like the alias", []string{"output"}, []string{"input"}, []string{"in_0"},
			[]string{"[[maybe_unused]] auto& out_0 = output;"}},
	} {
		op := &ir.Op{Name: c.name}
		for _, n := range c.outs {
			op.Outputs = append(op.Outputs, tensor(n))
		}
		for _, n := range c.ins {
			op.Inputs = append(op.Inputs, tensor(n))
		}
		for _, n := range c.params {
			op.Params = append(op.Params, &ir.Param{Name: n, Ident: n})
		}
		var got []string
		for _, v := range vendorNames(op) {
			got = append(got, "[[maybe_unused]] "+string(v.Qual)+"auto& "+string(v.Name)+" = "+string(v.Ident)+";")
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
