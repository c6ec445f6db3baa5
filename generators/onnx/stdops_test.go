package onnx_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/onnx"
)

// TestStandardOpsCoverInstalledOnnx: every operator the onnx Python package
// defines in a standard domain is in opforge's list, so the list is
// refreshed when the pinned onnx version moves. Needs OPFORGE_PYTHON with
// onnx (`go tool mage test` sets it up); skips otherwise.
func TestStandardOpsCoverInstalledOnnx(t *testing.T) {
	python := os.Getenv("OPFORGE_PYTHON")
	if python == "" {
		t.Skip("OPFORGE_PYTHON is not set: this check needs a Python with onnx (`go tool mage test` sets it up)")
	}
	script := `
import onnx.defs
std = ("", "ai.onnx", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training")
print(" ".join(sorted({s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain in std})))
`
	out, err := exec.Command(python, "-c", script).CombinedOutput()
	if err != nil {
		t.Skipf("OPFORGE_PYTHON=%s cannot list onnx operators: %v\n%s", python, err, out)
	}
	var missing []string
	for _, op := range strings.Fields(string(out)) {
		if _, ok := onnx.StandardOp(op); !ok {
			missing = append(missing, op)
		}
	}
	if len(missing) > 0 {
		t.Errorf("standard ONNX ops missing from generators/onnx/stdops.go: %s", strings.Join(missing, " "))
	}
}
