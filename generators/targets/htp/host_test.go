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
	"github.com/opforge/opforge/generators/targets"
	"github.com/opforge/opforge/generators/verify"
	"github.com/opforge/opforge/generators/verify/verifytest"
)

// repoRoot holds the shipped opdefs and out/ (the impl regions as written).
const repoRoot = "../../.."

// needHostCompiler skips without the host harness's compiler.
func needHostCompiler(t *testing.T) {
	t.Helper()
	verifytest.NeedPython(t)
	cxx := os.Getenv("OPFORGE_HOST_CXX")
	if cxx == "" {
		cxx = "g++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		t.Skipf("%s is not installed (the host harness's compiler; OPFORGE_HOST_CXX names another)", cxx)
	}
}

// shippedWorkspace copies the shipped opdefs and the htp and reference
// trees of out/ for verify on htp-host; edit, when set, changes the text
// of one op source (out/htp/<path>).
func shippedWorkspace(t *testing.T, packages []string, path string, edit func(string) string) verify.Options {
	t.Helper()
	root := t.TempDir()
	verifytest.CopyTree(t, filepath.Join(repoRoot, "opdefs"), filepath.Join(root, "opdefs"))
	for _, sub := range []string{"htp", "reference"} {
		verifytest.CopyTree(t, filepath.Join(repoRoot, "out", sub), filepath.Join(root, "out", sub))
	}
	if edit != nil {
		src := filepath.Join(root, "out", "htp", path)
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		changed := edit(string(data))
		if changed == string(data) {
			t.Fatalf("the edit changed nothing in %s", src)
		}
		if err := os.WriteFile(src, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return verify.Options{OpDefs: filepath.Join(root, "opdefs"), Out: filepath.Join(root, "out"), Build: filepath.Join(root, "build"),
		Packages: packages, Targets: []string{"htp-host"}, Runners: targets.Verifiers(), Python: os.Getenv("OPFORGE_PYTHON")}
}

func runVerify(t *testing.T, o verify.Options) ([]verify.Result, string) {
	t.Helper()
	var l diag.List
	rs := verify.Run(o, &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	var buf bytes.Buffer
	verify.WriteText(&buf, rs)
	t.Log(buf.String())
	return rs, buf.String()
}

// TestVerifyHTPHostShippedOps runs every shipped op's HTP impl region,
// compiled with g++ against the host harness, on its verify cases. Every
// case passes except TensorOps' ranks 5 to 8: the opdefs take ranks up to
// 8 and the regions, written for HTP's tensors of at most 4 dims, refuse
// them (ErrorDimensions), which must show as failures naming that.
func TestVerifyHTPHostShippedOps(t *testing.T) {
	needHostCompiler(t)
	rs, _ := runVerify(t, shippedWorkspace(t, []string{"ExampleOpPackage", "TensorOps", "VisionOps"}, "", nil))
	beyond4 := regexp.MustCompile(`^rank=[5-8]$`)
	ops := map[string]int{}
	for _, r := range rs {
		ops[r.Op]++
		switch {
		case r.Package == "TensorOps" && beyond4.MatchString(r.Case):
			if r.Status != verify.Fail || !strings.Contains(r.Reason, "impl returned GraphStatus 1") {
				t.Errorf("%s [%s]: %s %s, want the region's ErrorDimensions", r.Op, r.Case, r.Status, r.Reason)
			}
		case r.Status != verify.Pass:
			t.Errorf("%s %s [%s]: %s %s", r.Op, r.Target, r.Case, r.Status, r.Reason)
		}
	}
	if len(ops) != 8 {
		t.Errorf("results for %d ops, want the 8 shipped HTP ops: %v", len(ops), ops)
	}
}

// TestVerifyHTPHostFailsBrokenKernels: a region ordering TopKLast's values
// the wrong way fails on values; one writing NonZeroCoords past its
// output's last dim is stopped by the harness, naming the index.
func TestVerifyHTPHostFailsBrokenKernels(t *testing.T) {
	needHostCompiler(t)
	swap := func(s string) string {
		return strings.Replace(s, "before = largest ? u > v : u < v;", "before = largest ? u < v : u > v;", 1)
	}
	o := shippedWorkspace(t, []string{"VisionOps"}, "VisionOps/src/ops/TopKLast.cpp", swap)
	o.Ops = []string{"TopKLast"}
	rs, out := runVerify(t, o)
	if !verify.Failed(rs) || !strings.Contains(out, "FAIL VisionOps/TopKLast htp-host [base]") || !strings.Contains(out, "output values differs") {
		t.Error("a TopKLast region sorting the wrong way did not fail on its values")
	}
	past := func(s string) string {
		return strings.Replace(s, "htpSet(coords, 0, 0, row, 1, float(x));", "htpSet(coords, 0, 0, row, 2, float(x));", 1)
	}
	o = shippedWorkspace(t, []string{"VisionOps"}, "VisionOps/src/ops/NonZeroCoords.cpp", past)
	o.Ops = []string{"NonZeroCoords"}
	rs, out = runVerify(t, o)
	if !verify.Failed(rs) || !strings.Contains(out, "element index out of bounds (index, dim) (2, 2)") {
		t.Error("a NonZeroCoords region writing past its output was not stopped")
	}
}

// TestVerifyHTPHostVendorStyle: a region in the vendor examples' style
// (dims() structured binding, four-index element access) runs too.
func TestVerifyHTPHostVendorStyle(t *testing.T) {
	needHostCompiler(t)
	o := htpWorkspace(t)
	o.Targets = []string{"htp-host"}
	rs, _ := runVerify(t, o)
	if len(rs) == 0 {
		t.Fatal("no result")
	}
	for _, r := range rs {
		if r.Status != verify.Pass {
			t.Errorf("%s [%s]: %s %s", r.Op, r.Case, r.Status, r.Reason)
		}
	}
}
