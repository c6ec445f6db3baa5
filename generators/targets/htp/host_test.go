package htp_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/verify"
	"github.com/opforge/opforge/generators/verify/verifytest"
)

// needHostCompiler skips without the host harness's compiler.
func needHostCompiler(t *testing.T) {
	t.Helper()
	cxx := os.Getenv("OPFORGE_HOST_CXX")
	if cxx == "" {
		cxx = "g++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		t.Skipf("%s is not installed (the host harness's compiler; OPFORGE_HOST_CXX names another)", cxx)
	}
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

// hostWorkspace is htpWorkspace's ReLU on the host harness, its impl
// region changed by edit when set.
func hostWorkspace(t *testing.T, edit func(string) string) verify.Options {
	t.Helper()
	o := htpWorkspace(t)
	o.Targets = []string{"htp-host"}
	if edit != nil {
		src := filepath.Join(o.Out, "htp/ExampleOpPackage/src/ops/ExampleCustomOp.cpp")
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
	return o
}

// TestVerifyHTPHostVendorStyle: a region in the vendor examples' style
// (dims() structured binding, four-index element access) runs on the host
// harness, a kernel check in its engine, and passes.
func TestVerifyHTPHostVendorStyle(t *testing.T) {
	verifytest.NeedPython(t)
	needHostCompiler(t)
	rs, _ := runVerify(t, hostWorkspace(t, nil))
	if len(rs) == 0 {
		t.Fatal("no result")
	}
	for _, r := range rs {
		if r.Status != verify.Pass || r.Check != verify.Kernel || !strings.Contains(r.Engine, "host harness") {
			t.Errorf("%s [%s]: %s %s %q %q", r.Op, r.Case, r.Status, r.Reason, r.Check, r.Engine)
		}
	}
}

// TestVerifyHTPHostFailsBrokenKernels: a ReLU that lets negatives through
// fails on its values; one writing past its output's last dim is stopped
// by the harness, naming the index; one that does not compile fails,
// naming the compiler's message.
func TestVerifyHTPHostFailsBrokenKernels(t *testing.T) {
	verifytest.NeedPython(t)
	needHostCompiler(t)
	for _, c := range []struct {
		name, from, to, want string
	}{
		{"leaky", "v > 0.0f ? v : 0.0f", "v > -1.0f ? v : 0.0f", "output output differs"},
		{"past the end", "out_0(b, h, w, d) = v", "out_0(b, h, w, d + 1) = v", "element index out of bounds"},
		{"syntax", "float v = in_0(b, h, w, d);", "float v = in_0(b, h, w, d)", "error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := hostWorkspace(t, func(s string) string { return strings.Replace(s, c.from, c.to, 1) })
			rs, out := runVerify(t, o)
			if !verify.Failed(rs) || !strings.Contains(out, "FAIL ExampleOpPackage/ExampleCustomOp htp-host") || !strings.Contains(out, c.want) {
				t.Errorf("want a failure naming the op with %q:\n%s", c.want, out)
			}
		})
	}
}
