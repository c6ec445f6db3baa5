package registry

import "testing"

// TestVerifierTargets: every verify runner is named with the target whose
// generated code it runs, so verify builds its cases from that target's
// narrowing of each op.
func TestVerifierTargets(t *testing.T) {
	m := VerifierTargets()
	for _, r := range Verifiers() {
		if m[r.Name()] == "" {
			t.Errorf("runner %s has no target", r.Name())
		}
	}
	for runner, want := range map[string]string{"executorch": "htp", "htp": "htp", "trt-python": "trt", "aipu-opencl": "aipu"} {
		if m[runner] != want {
			t.Errorf("runner %s runs %q's code, want %q", runner, m[runner], want)
		}
	}
}
