package aipu_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/buildengine"
	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/targets/aipu"
	"github.com/opforge/opforge/generators/toolchain"
	"github.com/opforge/opforge/generators/verify/verifytest"
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
	copyDir(t, "../../../testdata/gen/examples/out/aipu", filepath.Join(out, "aipu"))
	env := map[string]string{"AIPUOCC": occ}
	o := buildplan.Options{Out: out, Build: filepath.Join(root, "build"), Toolchains: "../../../toolchains", Env: toolchain.Env{
		Getenv: func(k string) string { return env[k] }, LookPath: func(string) (string, error) { return "", os.ErrNotExist }, Root: root}}
	p, err := aipu.BuildPlan(o)
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
		// VisionOps ships 3 ops and TensorOps 4.
		if len(m) != 7 {
			t.Errorf("%s plugin dir holds %d plugins, want 7", stage, len(m))
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
	p, _ = aipu.BuildPlan(o)
	if err := p.Preflight(); err == nil || !strings.Contains(err.Error(), "set AIPUOCC") || !strings.Contains(err.Error(), "CLANG") {
		t.Errorf("preflight: %v", err)
	}
}

// TestAIPUBuildChecksSyntaxWithoutAIPUOCC: without aipuocc, the build
// checks every kernel variant (once, whatever its -mcpu) with clang's
// OpenCL front end, says no Compass binary was made and makes no object;
// a syntax error fails the build at the kernel's line.
func TestAIPUBuildChecksSyntaxWithoutAIPUOCC(t *testing.T) {
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Skip("clang is not installed (Debian: apt-get install clang); the AIPU build without aipuocc is not checked")
	}
	root := t.TempDir()
	out := filepath.Join(root, "out")
	copyDir(t, "../../../testdata/gen/examples/out/aipu", filepath.Join(out, "aipu"))
	o := buildplan.Options{Out: out, Build: filepath.Join(root, "build"), Toolchains: "../../../toolchains", Env: toolchain.Env{
		Getenv: func(string) string { return "" },
		LookPath: func(n string) (string, error) {
			if n == "clang" {
				return clang, nil
			}
			return "", os.ErrNotExist
		}, Root: root}}
	run := func() (*buildplan.Plan, string, error) {
		p, err := aipu.BuildPlan(o)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		_, err = p.Run(context.Background(), &buf, 2)
		return p, buf.String(), err
	}
	p, log, err := run()
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	variants := map[string]bool{}
	var l diag.List
	for _, pkg := range load.Tree("../../../testdata/gen/examples/opdefs", &l) {
		registry.Check(&l, pkg)
		for _, k := range aipu.Kernels(pkg, nil) {
			variants[k.Source+" "+strings.Join(k.Defines, " ")] = true
		}
	}
	if len(p.Units) != len(variants) || len(variants) < 10 {
		t.Errorf("%d syntax checks for %d kernel variants", len(p.Units), len(variants))
	}
	for _, u := range p.Units {
		if u.Tool != clang || !slices.Contains(u.Args, "-fsyntax-only") || !slices.Contains(u.Args, "-cl-std=CL2.0") {
			t.Errorf("%s: %s %v", u.ID, u.Tool, u.Args)
		}
	}
	if !strings.Contains(log, "no Compass binary will be made") || !strings.Contains(p.Notes, "no Compass binary was made") {
		t.Errorf("the build does not say that no Compass binary was made:\n%s\n%s", log, p.Notes)
	}
	if objs, _ := filepath.Glob(filepath.Join(o.Build, "aipu", "*", "*", "*.o")); len(objs) > 0 {
		t.Errorf("objects made without aipuocc: %v", objs)
	}
	src := filepath.Join(out, "aipu", "VisionOps", "kernels", "top_k_last.cl")
	data, _ := os.ReadFile(src)
	const decl = "int count = min(k, L);"
	at := bytes.Index(data, []byte(decl))
	if at < 0 {
		// The golden kernel holds the placeholder: add a declaration to break.
		verifytest.FillRegion(t, src, "kernel", "  "+decl)
		data, _ = os.ReadFile(src)
		at = bytes.Index(data, []byte(decl))
	}
	line := bytes.Count(data[:at], []byte("\n")) + 1
	_ = os.WriteFile(src, bytes.Replace(data, []byte(decl), []byte(strings.TrimSuffix(decl, ";")), 1), 0o644)
	if _, log, err = run(); err == nil || !strings.Contains(log, fmt.Sprintf("top_k_last.cl:%d:", line)) || !strings.Contains(log, "error: expected ';'") {
		t.Errorf("a syntax error did not fail the build at line %d: %v\n%s", line, err, log)
	}
}

// TestAIPUPlanFollowsOpdefs: the units read from the generated Makefiles
// are exactly those the opdefs give through the AIPU generator's own kernel
// list (aipu.Kernels), in the same order, for every golden tree.
func TestAIPUPlanFollowsOpdefs(t *testing.T) {
	root := t.TempDir()
	occ := filepath.Join(root, "aipuocc")
	_ = os.WriteFile(occ, []byte(fakeAIPUOCC), 0o755)
	env := map[string]string{"AIPUOCC": occ}
	d, err := aipu.LoadToolchain("../../../toolchains")
	if err != nil {
		t.Fatal(err)
	}
	// Golden trees only: the workspace's own opdefs/ and out/ are the user's (issue 15 item 4).
	for _, tree := range []string{"../../../testdata/gen/examples", "../../../testdata/gen/aipu-features"} {
		out, _ := filepath.Abs(filepath.Join(tree, "out"))
		o := buildplan.Options{Out: out, Build: filepath.Join(root, "build"), Toolchains: "../../../toolchains", Env: toolchain.Env{
			Getenv: func(k string) string { return env[k] }, LookPath: func(string) (string, error) { return "", os.ErrNotExist }, Root: root}}
		p, err := aipu.BuildPlan(o)
		if err != nil {
			t.Fatal(err)
		}
		var l diag.List
		pkgs := load.Tree(filepath.Join(tree, "opdefs"), &l)
		registry.Check(&l, pkgs...)
		if l.HasErrors() {
			t.Fatalf("%s: %v", tree, l.Sorted())
		}
		var want []string
		for _, pkg := range pkgs {
			for _, k := range aipu.Kernels(pkg, aipu.KnownTargets) {
				src := filepath.Join(out, "aipu", filepath.FromSlash(k.Source))
				args := append(append([]string{}, d.AIPU.Flags.AIPUOCC...), "-mcpu="+k.MCPU)
				args = append(append(args, k.Defines...), "-o", buildengine.OutArg, src)
				want = append(want, fmt.Sprintf("aipu/%s/%s %s -> %s", pkg.Name, k.Object, strings.Join(args, " "),
					filepath.Join(o.Build, "aipu", pkg.Name, filepath.FromSlash(k.Object))))
			}
		}
		var got []string
		for _, u := range p.Units {
			got = append(got, fmt.Sprintf("%s %s -> %s", u.ID, strings.Join(u.Args, " "), u.Output))
			if len(u.Inputs) != 1 || u.Inputs[0] != u.Source || u.Tool != occ {
				t.Errorf("%s: inputs %v, source %s, tool %s", u.ID, u.Inputs, u.Source, u.Tool)
			}
		}
		if len(want) < 10 {
			t.Fatalf("%s: only %d kernels", tree, len(want))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: units differ from the opdefs'\n--- got\n%s\n--- want\n%s", tree, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// copyDir copies the tree src to dst (as the htp build tests do).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, _ := os.ReadFile(p)
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}
