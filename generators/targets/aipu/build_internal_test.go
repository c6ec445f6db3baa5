package aipu

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
