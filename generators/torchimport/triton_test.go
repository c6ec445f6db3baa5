package torchimport

import (
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/registry"
)

// TestTritonLaunchesRead imports triton_ops with real torch and triton:
// launches it maps become torch.triton (args in the kernel's order, an
// input's count as the output shaped like it, the grid's block, the
// helpers' sources first), and the ones it cannot bring along (an
// argument it cannot express, two launches) import without a kernel and
// with a warning saying why; a grid of another form is brought with one.
func TestTritonLaunchesRead(t *testing.T) {
	py := python(t)
	type want struct {
		args    []string
		block   string
		source  []string // in this order
		warning string   // "" none
	}
	cases := []struct {
		module string
		op     string
		want   *want // nil: not brought along
		warn   string
	}{
		{"testdata/tritonops.py", "opf_triton::tadd", &want{args: []string{"x", "y", "out", "numel(out)"}, block: "BLOCK_SIZE", source: []string{"def add_kernel("}}, ""},
		{"testdata/tritonops.py", "opf_triton::axpy", &want{args: []string{"x", "y", "out", "alpha", "numel(out)"}, block: "BLOCK", source: []string{"def _scale(", "def axpy_kernel("}}, ""},
		{"testdata/tritonodd.py", "opf_odd::strided", nil, "x.stride(0) is not an input"},
		{"testdata/tritonodd.py", "opf_odd::twice", nil, "launches 2 Triton kernels"},
		{"testdata/tritonodd.py", "opf_odd::fixed_grid", &want{args: []string{"x", "out", "numel(out)", "1"}}, "the launch grid (4, 1) is not (cdiv(count, BLOCK),)"},
	}
	byModule := map[string][]string{}
	for _, c := range cases {
		byModule[c.module] = append(byModule[c.module], c.op)
	}
	results := map[string]*Result{}
	for module, ops := range byModule {
		rep, err := Inspect(py, module, ops, []string{"float32"})
		if err != nil {
			t.Fatal(err)
		}
		var l diag.List
		res := Build(rep, Options{Module: module, Targets: registry.ImportTargets, Source: "opdefs/x/x.yaml"}, &l)
		if res == nil {
			t.Fatalf("%s: nothing imported: %v", module, l.Sorted())
		}
		results[module] = res
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			res := results[c.module]
			name := pascal(strings.SplitN(c.op, "::", 2)[1])
			op := res.Package.Op(name)
			if op == nil {
				t.Fatalf("no op %s", name)
			}
			var warnings []string
			for _, w := range res.Warnings {
				if w.Op == name && w.Code == "torch-triton" {
					warnings = append(warnings, w.Message)
				}
			}
			if c.warn != "" && !slices.ContainsFunc(warnings, func(m string) bool { return strings.Contains(m, c.warn) }) {
				t.Errorf("warnings %q lack %q", warnings, c.warn)
			}
			if c.warn == "" && len(warnings) > 0 {
				t.Errorf("unexpected warnings %q", warnings)
			}
			k := op.Torch.Triton
			if c.want == nil {
				if k != nil {
					t.Errorf("brought along %+v; want nothing", k)
				}
				return
			}
			if k == nil {
				t.Fatalf("not brought along (warnings %q)", warnings)
			}
			if !slices.Equal(k.Args, c.want.args) || k.Block != c.want.block {
				t.Errorf("args %q block %q; want %q %q", k.Args, k.Block, c.want.args, c.want.block)
			}
			at := 0
			for _, s := range c.want.source {
				i := strings.Index(k.Source[at:], s)
				if i < 0 {
					t.Errorf("source lacks %q after offset %d:\n%s", s, at, k.Source)
					break
				}
				at += i
			}
			// The Python plugin runs the kernel: its section leaves it on.
			if sec := op.Sections.Get("trt"); sec == nil || sec.Node.Get("qdp") != nil {
				t.Errorf("the trt section %+v turns the Python plugin off", sec)
			}
		})
	}
}
