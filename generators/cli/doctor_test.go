package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorVerifySection: opforge doctor ends with a verify section
// naming every registry runner, and says what is missing without failing
// (exit 0, as for missing SDKs); a bad flag is a usage error.
func TestDoctorVerifySection(t *testing.T) {
	code, out, errs := run("doctor", "--python", filepath.Join(t.TempDir(), "no-python"), "--timeout", "5s")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	build := strings.Index(out, "piece(s) missing")
	verify := strings.Index(out, "verify (Python probe ")
	if verify < 0 || build > verify {
		t.Errorf("no verify section after the build section:\n%s", out)
	}
	for _, w := range []string{"  missing  python                       no Python interpreter", "verify trt\n", "verify trt-python\n", "verify executorch\n", "verify htp\n", "verify aipu\n", "verify aipu-quant\n", "verify runner(s) cannot run here"} {
		if !strings.Contains(out, w) {
			t.Errorf("doctor does not say %q:\n%s", w, out)
		}
	}
	if code, _, _ := run("doctor", "--timeout", "soon"); code != 2 {
		t.Errorf("--timeout soon: exit %d, want 2", code)
	}
}
