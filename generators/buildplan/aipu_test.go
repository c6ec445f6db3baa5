package buildplan

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/toolchain"
)

// fakeAIPUOCC "compiles" the source named last into the file after -o and
// logs its arguments.
const fakeAIPUOCC = `#!/bin/sh
echo "$*" >> "$FAKE_LOG"
out=""; last=""
while [ $# -gt 0 ]; do
  case "$1" in -o) out="$2"; shift;; *) last="$1";; esac
  shift
done
cat "$last" > "$out"
`

func TestAIPUBuild(t *testing.T) {
	root := t.TempDir()
	log := filepath.Join(root, "aipuocc.log")
	t.Setenv("FAKE_LOG", log)
	occ := filepath.Join(root, "aipuocc")
	_ = os.WriteFile(occ, []byte(fakeAIPUOCC), 0o755)
	out := filepath.Join(root, "out")
	copyDir(t, "../../testdata/gen/examples/out/aipu", filepath.Join(out, "aipu"))
	env := map[string]string{"AIPUOCC": occ}
	o := Options{Out: out, Build: filepath.Join(root, "build"), Toolchains: "../../toolchains", Env: toolchain.Env{
		Getenv: func(k string) string { return env[k] }, LookPath: func(string) (string, error) { return "", os.ErrNotExist }, Root: root}}
	p, err := AIPU(o, "../../testdata/gen/examples/opdefs")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := p.Run(context.Background(), &buf, 2); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	calls, _ := os.ReadFile(log)
	if n := strings.Count(string(calls), "\n"); n != len(p.Units) || n < 10 {
		t.Errorf("%d aipuocc runs for %d units", n, len(p.Units))
	}
	for _, want := range []string{"-c -target aipu -mcpu=X2_1204", "-DOPFORGE_KERNEL=vision_ops_roi_align_lite_float16", "-DOPFORGE_TYPE_T=half"} {
		if !strings.Contains(string(calls), want) {
			t.Errorf("no aipuocc run has %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(o.Build, "aipu/VisionOps/X3P_1304/vision_ops_roi_align_lite_float32.o")); err != nil {
		t.Errorf("object missing: %v", err)
	}
	for _, stage := range []string{"parser", "opt", "builder"} {
		m, _ := filepath.Glob(filepath.Join(o.Build, "aipu/plugins", stage, "aipubt_*.py"))
		if len(m) != 3 {
			t.Errorf("%s plugin dir holds %d plugins, want 3", stage, len(m))
		}
	}
	// No-op: no aipuocc run.
	_ = os.Remove(log)
	if _, err := p.Run(context.Background(), &buf, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Error("a no-op build ran aipuocc")
	}
	// Without aipuocc the preflight says how to provide it.
	delete(env, "AIPUOCC")
	p, _ = AIPU(o, "../../testdata/gen/examples/opdefs")
	if err := p.Preflight(); err == nil || !strings.Contains(err.Error(), "set AIPUOCC") {
		t.Errorf("preflight: %v", err)
	}
}
