package htp_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/verify"
	"github.com/opforge/opforge/generators/verify/verifytest"
)

// examplesDir is the examples' golden tree.
const examplesDir = "../../../testdata/gen/examples"

// htpWorkspace copies the examples' ExampleOpPackage with a ReLU written in
// its reference and in its HTP impl region.
func htpWorkspace(t *testing.T) verify.Options {
	t.Helper()
	root := t.TempDir()
	verifytest.CopyTree(t, examplesDir+"/opdefs/executorch_example", filepath.Join(root, "opdefs", "executorch_example"))
	verifytest.CopyTree(t, examplesDir+"/out/htp/ExampleOpPackage", filepath.Join(root, "out", "htp", "ExampleOpPackage"))
	verifytest.CopyTree(t, examplesDir+"/out/reference/ExampleOpPackage", filepath.Join(root, "out", "reference", "ExampleOpPackage"))
	verifytest.FillRegion(t, filepath.Join(root, "out/reference/ExampleOpPackage/example_op_package_reference.py"), "reference:ExampleCustomOp", "    return torch.relu(input)")
	verifytest.FillRegion(t, filepath.Join(root, "out/htp/ExampleOpPackage/src/ops/ExampleCustomOp.cpp"), "impl", `  out_0.set_dims(in_0);
  auto [b_in, h_in, w_in, d_in] = in_0.dims();
  for (size_t b = 0; b < b_in; b++)
    for (size_t h = 0; h < h_in; h++)
      for (size_t w = 0; w < w_in; w++)
        for (size_t d = 0; d < d_in; d++) {
          float v = in_0(b, h, w, d);
          out_0(b, h, w, d) = v > 0.0f ? v : 0.0f;
        }
  return GraphStatus::Success;`)
	return verify.Options{OpDefs: filepath.Join(root, "opdefs"), Out: filepath.Join(root, "out"), Build: filepath.Join(root, "build"),
		Targets: []string{"htp"}, Runners: registry.Verifiers(), Python: os.Getenv("OPFORGE_PYTHON")}
}

// TestVerifyHTPSkipsWithoutPieces: with no Python for Qualcomm's backend
// the HTP target is a skip that says what to set, never a pass.
func TestVerifyHTPSkipsWithoutPieces(t *testing.T) {
	verifytest.NeedPython(t)
	t.Setenv("OPFORGE_QNN_PYTHON", "")
	var l diag.List
	rs := verify.Run(htpWorkspace(t), &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	if len(rs) == 0 {
		t.Fatal("no result")
	}
	for _, r := range rs {
		if r.Status != verify.Skip || !strings.Contains(r.Reason, "OPFORGE_QNN_PYTHON is not set") {
			t.Errorf("%s %s: %s %q, want a skip naming OPFORGE_QNN_PYTHON", r.Op, r.Target, r.Status, r.Reason)
		}
	}
}

// TestVerifyHTPInQualcommBackend builds ExampleOpPackage (a ReLU) for x86
// and runs it in Qualcomm's x86 HTP backend through ONNX Runtime's QNN
// execution provider, against the reference. With headers of the
// backend's QNN version every case must pass; with other headers the
// package cannot run there, and the result must be a skip naming both
// versions and the stage the run reached.
//
// OPFORGE_QNN_PYTHON: a Python with onnxruntime, onnxruntime-qnn, onnx and
// numpy; QNN_SDK_ROOT: QNN headers; HEXAGON_SDK_ROOT, or else the libnative
// stand-in of testdata/htp, and clang++ with libc++ for the x86 build.
func TestVerifyHTPInQualcommBackend(t *testing.T) {
	verifytest.NeedPython(t)
	if os.Getenv("OPFORGE_QNN_PYTHON") == "" {
		t.Skip("OPFORGE_QNN_PYTHON is not set: point it at a Python with onnxruntime, onnxruntime-qnn, onnx and numpy")
	}
	root := os.Getenv("QNN_SDK_ROOT")
	if root == "" {
		t.Skip("QNN_SDK_ROOT is not set: point it at a tree with include/QNN (the QNN HTP headers)")
	}
	if _, err := exec.LookPath("clang++"); err != nil {
		t.Skip("clang++ is not installed (the x86 HTP build's compiler)")
	}
	if os.Getenv("HEXAGON_SDK_ROOT") == "" {
		standin, _ := filepath.Abs("../../../testdata/htp/libnative/include")
		hex := filepath.Join(t.TempDir(), "hexagon-sdk-6.0.0")
		native := filepath.Join(hex, "tools", "HEXAGON_Tools", "8.8.02", "Tools", "libnative")
		for _, d := range []string{filepath.Join(native, "lib"), filepath.Join(hex, "incs")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(native, "lib", "libnative.a"), []byte("!<arch>\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(standin, filepath.Join(native, "include")); err != nil {
			t.Fatal(err)
		}
		t.Setenv("HEXAGON_SDK_ROOT", hex)
	}
	t.Setenv("X86_CXX", "clang++")
	t.Setenv("OPFORGE_COMPILER_LAUNCHER", "")
	var l diag.List
	rs := verify.Run(htpWorkspace(t), &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	var buf bytes.Buffer
	verify.WriteText(&buf, rs)
	t.Log(buf.String())
	mismatch := regexp.MustCompile(`built with QNN [0-9.]+ headers \(QNN_SDK_ROOT=.*\) and the backend .* is QNN [0-9.]+`)
	// The stage the run reached, as htp_verify.py names it (headers far from
	// the backend's version stop before registration, as 2.36.1 against 2.50.40).
	stage := regexp.MustCompile(`the package did not run|the package registered|the session was created`)
	for _, r := range rs {
		switch {
		case r.Status == verify.Pass:
		case r.Status == verify.Skip && mismatch.MatchString(r.Reason) && stage.MatchString(r.Reason):
			t.Logf("not the backend's QNN version; the run reached: %s", r.Reason)
		default:
			t.Errorf("%s %s [%s]: %s %s", r.Op, r.Target, r.Case, r.Status, r.Reason)
		}
	}
	if len(rs) == 0 {
		t.Error("no result")
	}
}

// visionWorkspace is the examples' VisionOps with TopKLast and
// NonZeroCoords referenced (the ExecuTorch eager implementations call the
// references), to verify on executorch; edit, when not nil, then changes
// the ExecuTorch module's text.
func visionWorkspace(t *testing.T, edit func(string) string) verify.Options {
	t.Helper()
	opdefs, out := verifytest.VisionWorkspace(t, examplesDir)
	if edit != nil {
		et := filepath.Join(out, "htp/VisionOps/executorch/vision_ops.py")
		data, err := os.ReadFile(et)
		if err != nil {
			t.Fatal(err)
		}
		changed := edit(string(data))
		if changed == string(data) {
			t.Fatalf("the edit changed nothing in %s", et)
		}
		if err := os.WriteFile(et, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return verify.Options{OpDefs: opdefs, Out: out, Packages: []string{"VisionOps"}, Runners: registry.Verifiers(),
		Ops: []string{"TopKLast", "NonZeroCoords"}, Targets: []string{"executorch"}, Python: os.Getenv("OPFORGE_PYTHON")}
}

// TestVerifyExecuTorch runs filled-in ops through torch.export and the
// eager implementation (which calls the reference with the params the
// torch schema carries turned back into the reference's), against the
// references: every case passes.
func TestVerifyExecuTorch(t *testing.T) {
	verifytest.NeedPython(t)
	var l diag.List
	rs := verify.Run(visionWorkspace(t, nil), &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	var buf bytes.Buffer
	verify.WriteText(&buf, rs)
	t.Log(buf.String())
	pass := 0
	for _, r := range rs {
		if r.Status != verify.Pass {
			t.Errorf("%s %s [%s]: %s %s", r.Op, r.Target, r.Case, r.Status, r.Reason)
		}
		pass++
	}
	if pass < 9 {
		t.Errorf("%d results, want every case of both ops", pass)
	}
}

// TestVerifyBrokenFails: an ExecuTorch module that hands the reference the
// wrong enum value (its value names swapped) fails, naming the op, the case
// and the error.
func TestVerifyBrokenFails(t *testing.T) {
	verifytest.NeedPython(t)
	swap := func(s string) string {
		return strings.Replace(s, `("largest", "smallest",)`, `("smallest", "largest",)`, 1)
	}
	var l diag.List
	rs := verify.Run(visionWorkspace(t, swap), &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	if !verify.Failed(rs) {
		t.Fatal("a broken implementation passed verify")
	}
	var buf bytes.Buffer
	verify.WriteText(&buf, rs)
	out := buf.String()
	t.Log(out)
	for _, want := range []string{"FAIL VisionOps/TopKLast executorch [base] max_abs=", "output values differs beyond rtol=0.0001 atol=1e-05", "PASS VisionOps/NonZeroCoords executorch [base]"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var js bytes.Buffer
	if err := verify.WriteJSON(&js, rs); err != nil || !strings.Contains(js.String(), `"status": "fail"`) {
		t.Errorf("json: %v\n%s", err, js.String())
	}
}

// TestVerifyOpTolerance: an op's own tolerance (opdef verify: atol) widens
// its float comparisons and nothing else: the broken TopKLast's values now
// pass, its indices still compare exactly and fail.
func TestVerifyOpTolerance(t *testing.T) {
	verifytest.NeedPython(t)
	swap := func(s string) string {
		return strings.Replace(s, `("largest", "smallest",)`, `("smallest", "largest",)`, 1)
	}
	o := visionWorkspace(t, swap)
	opdef := filepath.Join(o.OpDefs, "vision", "vision_ops.yaml")
	data, err := os.ReadFile(opdef)
	if err != nil {
		t.Fatal(err)
	}
	widened := strings.Replace(string(data), "  - name: TopKLast\n", "  - name: TopKLast\n    verify: {atol: 100}\n", 1)
	if widened == string(data) {
		t.Fatal("no TopKLast in the examples' opdef")
	}
	if err := os.WriteFile(opdef, []byte(widened), 0o644); err != nil {
		t.Fatal(err)
	}
	var l diag.List
	rs := verify.Run(o, &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	var buf bytes.Buffer
	verify.WriteText(&buf, rs)
	out := buf.String()
	if strings.Contains(out, "output values differs") || !strings.Contains(out, "output indices differs (exact for int32)") {
		t.Errorf("atol 100 should pass the values and leave the indices exact:\n%s", out)
	}
}
