package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/ir"
)

// recordingRunner counts every call verify makes of it.
type recordingRunner struct{ calls *int }

func (recordingRunner) Name() string { return "recording" }
func (r recordingRunner) Runnable(harness.Options, *ir.Package, *ir.Op) (string, bool) {
	*r.calls++
	return "", true
}
func (r recordingRunner) Prepare(harness.Options, *ir.Package, string) harness.Prepared {
	*r.calls++
	return harness.Prepared{Skip: "a recording runner runs nothing"}
}
func (r recordingRunner) OpFields(*ir.Package, *ir.Op) map[string]any {
	*r.calls++
	return nil
}
func (r recordingRunner) Implementation() harness.Implementation {
	*r.calls++
	return harness.Implementation{}
}

// TestVerifyRunsTheTargetsChecksFirst: an opdef that loads but fails a
// target's check (a variadic input, which HTP op packages cannot take)
// stops verify with that target's diagnostic at its position, as check
// and gen would, before any runner is asked anything; the same opdef
// without the variadic input reaches the runner.
func TestVerifyRunsTheTargetsChecksFirst(t *testing.T) {
	src, err := os.ReadFile("../../testdata/diagnostics/htp-variadic/ops.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, xml string
		want      string // the error, or "" when the runner is reached
	}{
		{"variadic", string(src), "ops.xml:16:17: error: htp: variadic \"in[0]\" of op AddConst: HTP op packages cannot be generated for variadic operations [htp-variadic]"},
		{"fixed", strings.Replace(string(src), "<Repeated>true</Repeated>", "", 1), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			opdefs := filepath.Join(t.TempDir(), "opdefs")
			if err := os.MkdirAll(filepath.Join(opdefs, "addconst"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(opdefs, "addconst", "ops.xml"), []byte(c.xml), 0o644); err != nil {
				t.Fatal(err)
			}
			calls := 0
			var l diag.List
			rs := Run(Options{OpDefs: opdefs, Out: filepath.Join(t.TempDir(), "out"), Runners: []harness.Runner{recordingRunner{&calls}},
				Python: filepath.Join(t.TempDir(), "no-python")}, &l)
			var errs []string
			for _, d := range l.Sorted() {
				if d.Severity == diag.Error {
					errs = append(errs, strings.TrimPrefix(d.String(), filepath.ToSlash(filepath.Join(opdefs, "addconst"))+"/"))
				}
			}
			if c.want == "" {
				if len(errs) > 0 || calls == 0 || len(rs) == 0 {
					t.Errorf("a valid opdef: errors %q, %d runner calls, %d results", errs, calls, len(rs))
				}
				return
			}
			if len(errs) != 1 || errs[0] != c.want {
				t.Errorf("errors %q, want %q", errs, c.want)
			}
			if calls != 0 || rs != nil {
				t.Errorf("verify went on past the check: %d runner calls, results %+v", calls, rs)
			}
		})
	}
}
