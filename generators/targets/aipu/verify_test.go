package aipu_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/verify"
	"github.com/opforge/opforge/generators/verify/verifytest"
)

// examplesDir is the examples' golden tree.
const examplesDir = "../../../testdata/gen/examples"

// visionWorkspace is the examples' VisionOps with TopKLast and
// NonZeroCoords referenced, to verify on the aipu runners.
func visionWorkspace(t *testing.T) verify.Options {
	t.Helper()
	opdefs, out := verifytest.VisionWorkspace(t, examplesDir)
	return verify.Options{OpDefs: opdefs, Out: out, Packages: []string{"VisionOps"}, Runners: registry.Verifiers(),
		Ops: []string{"TopKLast", "NonZeroCoords"}, Python: os.Getenv("OPFORGE_PYTHON")}
}

// TestVerifyAIPU runs TopKLast's OPT plugin in the open-source Compass
// Optimizer: the default float forward (the reference) passes; a forward
// region that writes zeros fails.
func TestVerifyAIPU(t *testing.T) {
	verifytest.NeedPython(t)
	dir := os.Getenv("COMPASS_OPTIMIZER_DIR")
	if dir == "" {
		t.Skip("COMPASS_OPTIMIZER_DIR is not set (a checkout of github.com/Arm-China/Compass_Optimizer); the OPT plugins are not run")
	}
	o := visionWorkspace(t)
	o.Targets, o.Ops = []string{"aipu"}, []string{"TopKLast"}
	var l diag.List
	rs := verify.Run(o, &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	if len(rs) < 5 || verify.Failed(rs) || slices.ContainsFunc(rs, func(r verify.Result) bool { return r.Status != verify.Pass }) {
		var buf bytes.Buffer
		verify.WriteText(&buf, rs)
		t.Fatalf("want every case to pass:\n%s", buf.String())
	}
	opt := filepath.Join(o.Out, "aipu/VisionOps/opt/aipubt_opt_top_k_last.py")
	verifytest.FillRegion(t, opt, "forward", "    for out, shape in zip(self.outputs, (values_shape, indices_shape)):\n        out.betensor = torch.zeros(shape, dtype=dtype2torch_type(out.dtype))")
	rs = verify.Run(o, &l)
	var buf bytes.Buffer
	verify.WriteText(&buf, rs)
	if !verify.Failed(rs) || !strings.Contains(buf.String(), "FAIL VisionOps/TopKLast aipu [base]") {
		t.Fatalf("a forward writing zeros passed:\n%s", buf.String())
	}
}

// TestVerifyAIPUQuantized runs TopKLast's OPT plugin quantized (int8 inputs,
// the plugin's quantize, the forward on the integers) in the Compass
// Optimizer against the reference on the dequantized inputs: every case
// passes; a quantize that gives the values the wrong scale fails.
func TestVerifyAIPUQuantized(t *testing.T) {
	verifytest.NeedPython(t)
	if os.Getenv("COMPASS_OPTIMIZER_DIR") == "" {
		t.Skip("COMPASS_OPTIMIZER_DIR is not set (a checkout of github.com/Arm-China/Compass_Optimizer); the OPT plugins are not run")
	}
	o := visionWorkspace(t)
	o.Targets, o.Ops = []string{"aipu-quant"}, []string{"TopKLast"}
	opt := filepath.Join(o.Out, "aipu/VisionOps/opt/aipubt_opt_top_k_last.py")
	// The quantized forward: quantization keeps the order, so select on the integers.
	verifytest.FillRegion(t, opt, "forward", `    if self.quantized:
        results = _opforge_reference(x.float(), k=k, order=order)
        results = [results[0].to(dtype2torch_type(self.outputs[0].dtype)), results[1].to(dtype2torch_type(self.outputs[1].dtype))]
    else:
        results = _opforge_reference(x, k=k, order=order)
    for out, result in zip(self.outputs, results):
        out.betensor = result`)
	var l diag.List
	rs := verify.Run(o, &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	var buf bytes.Buffer
	verify.WriteText(&buf, rs)
	if len(rs) < 5 || slices.ContainsFunc(rs, func(r verify.Result) bool { return r.Status != verify.Pass }) {
		t.Fatalf("want every case to pass:\n%s", buf.String())
	}
	// A tolerance from the command line keeps the quantization step on top.
	o.Tolerances = verify.DefaultTolerances
	if rs = verify.Run(o, &l); slices.ContainsFunc(rs, func(r verify.Result) bool { return r.Status != verify.Pass }) {
		buf.Reset()
		verify.WriteText(&buf, rs)
		t.Fatalf("with --rtol/--atol at the defaults, want every case to pass:\n%s", buf.String())
	}
	o.Tolerances = nil
	data, err := os.ReadFile(opt)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(data), "    out.scale = inp.scale\n", "    out.scale = inp.scale * 2\n", 1)
	if broken == string(data) {
		t.Fatal("no scale assignment in the quantize region")
	}
	if err := os.WriteFile(opt, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	rs = verify.Run(o, &l)
	buf.Reset()
	verify.WriteText(&buf, rs)
	if !verify.Failed(rs) || !strings.Contains(buf.String(), "FAIL VisionOps/TopKLast aipu-quant [base]") || !strings.Contains(buf.String(), "output values differs") {
		t.Fatalf("a quantize with the wrong output scale passed:\n%s", buf.String())
	}
}

// TestVerifyAIPUQuantizedUnwritten: the skeleton's quantized forward (and a
// quantize region still raising NotImplementedError) is no implementation
// yet: every aipu-quant case is a skip naming the region, never a failure,
// while the float forward (the reference) still passes on aipu.
func TestVerifyAIPUQuantizedUnwritten(t *testing.T) {
	verifytest.NeedPython(t)
	if os.Getenv("COMPASS_OPTIMIZER_DIR") == "" {
		t.Skip("COMPASS_OPTIMIZER_DIR is not set (a checkout of github.com/Arm-China/Compass_Optimizer); the OPT plugins are not run")
	}
	o := visionWorkspace(t)
	o.Targets, o.Ops = []string{"aipu-quant"}, []string{"TopKLast"}
	opt := filepath.Join(o.Out, "aipu/VisionOps/opt/aipubt_opt_top_k_last.py")
	for _, tc := range []struct {
		what, region, body, reason string
	}{
		{"the skeleton's quantized forward", "", "", "the quantized forward of TopKLast is not written: region forward of "},
		{"a quantize raising NotImplementedError", "quantize", `    raise NotImplementedError("quantize of TopKLast: to do")`, "quantize of TopKLast: to do"},
	} {
		if tc.region != "" {
			verifytest.FillRegion(t, opt, tc.region, tc.body)
		}
		var l diag.List
		rs := verify.Run(o, &l)
		if l.HasErrors() {
			t.Fatal(l.Sorted())
		}
		var buf bytes.Buffer
		verify.WriteText(&buf, rs)
		if len(rs) < 5 || slices.ContainsFunc(rs, func(r verify.Result) bool {
			return r.Status != verify.Skip || !strings.Contains(r.Reason, "no aipu-quant implementation written") || !strings.Contains(r.Reason, tc.reason)
		}) {
			t.Errorf("%s: want every case a skip naming %q:\n%s", tc.what, tc.reason, buf.String())
		}
	}
	o.Targets = []string{"aipu"}
	var l diag.List
	if rs := verify.Run(o, &l); len(rs) < 5 || slices.ContainsFunc(rs, func(r verify.Result) bool { return r.Status != verify.Pass }) {
		var buf bytes.Buffer
		verify.WriteText(&buf, rs)
		t.Errorf("the float forward: want every case to pass:\n%s", buf.String())
	}
}
