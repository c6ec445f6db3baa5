package buildplan

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/build"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/targets"
	"github.com/opforge/opforge/generators/targets/aipu"
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
	p, err := AIPU(o)
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
	p, _ = AIPU(o)
	if err := p.Preflight(); err == nil || !strings.Contains(err.Error(), "set AIPUOCC") {
		t.Errorf("preflight: %v", err)
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
	d, err := toolchain.Load("../../toolchains", "aipu")
	if err != nil {
		t.Fatal(err)
	}
	// Golden trees only: the workspace's own opdefs/ and out/ are the user's (issue 15 item 4).
	for _, tree := range []string{"../../testdata/gen/examples", "../../testdata/gen/aipu-features"} {
		out, _ := filepath.Abs(filepath.Join(tree, "out"))
		o := Options{Out: out, Build: filepath.Join(root, "build"), Toolchains: "../../toolchains", Env: toolchain.Env{
			Getenv: func(k string) string { return env[k] }, LookPath: func(string) (string, error) { return "", os.ErrNotExist }, Root: root}}
		p, err := AIPU(o)
		if err != nil {
			t.Fatal(err)
		}
		var l diag.List
		pkgs := load.Tree(filepath.Join(tree, "opdefs"), &l)
		targets.Check(&l, pkgs...)
		if l.HasErrors() {
			t.Fatalf("%s: %v", tree, l.Sorted())
		}
		var want []string
		for _, pkg := range pkgs {
			for _, k := range aipu.Kernels(pkg, aipu.KnownTargets) {
				src := filepath.Join(out, "aipu", filepath.FromSlash(k.Source))
				args := append(append([]string{}, d.AIPU.Flags.AIPUOCC...), "-mcpu="+k.MCPU)
				args = append(append(args, k.Defines...), "-o", build.OutArg, src)
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

// TestAIPUMakefileErrors: a package Makefile that is not what the
// generator writes stops the plan with its line, never a partial build.
func TestAIPUMakefileErrors(t *testing.T) {
	const rule = "$(BUILD)/X1_1204/k_float32.o: kernels/k.cl | check-aipuocc\n\t@mkdir -p $(@D)\n"
	const cmd = "\t$(OPFORGE_COMPILER_LAUNCHER) $(AIPUOCC) -c -target aipu -mcpu=X1_1204 -DOPFORGE_KERNEL=k_float32 $(AIPUOCC_FLAGS) -o $@ $<\n"
	for _, tc := range []struct{ name, makefile, want string }{
		{"good", rule + cmd, ""},
		{"no command", rule, "has no aipuocc command"},
		{"two rules", rule + rule + cmd, "Makefile:3: kernel rule without an aipuocc command"},
		{"no mcpu", rule + strings.Replace(cmd, "-mcpu=X1_1204 ", "", 1), "Makefile:3: aipuocc command without -mcpu"},
		{"no source", "$(BUILD)/X1_1204/k.o:  | check-aipuocc\n" + cmd, "Makefile:1: malformed kernel rule"},
	} {
		mk := filepath.Join(t.TempDir(), "Makefile")
		_ = os.WriteFile(mk, []byte(tc.makefile), 0o644)
		rules, err := readKernelRules(mk)
		switch {
		case tc.want == "" && (err != nil || len(rules) != 1 || rules[0].mcpu != "X1_1204" || rules[0].source != "kernels/k.cl" ||
			rules[0].object != "X1_1204/k_float32.o" || strings.Join(rules[0].defines, " ") != "-DOPFORGE_KERNEL=k_float32"):
			t.Errorf("%s: %+v, %v", tc.name, rules, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := readKernelRules(filepath.Join(t.TempDir(), "Makefile")); err == nil || !strings.Contains(err.Error(), "run opforge gen first") {
		t.Errorf("missing Makefile: %v", err)
	}
}
