package htp_test

import (
	"os/exec"
	"testing"
)

// TestRelationsRefusedInPython runs testdata/python/check_relations.py
// over the relations golden tree: the ExecuTorch fakes (on meta tensors)
// and, beside them, the Compass Parser's infer_shape accept shapes that
// hold each op's requires: and refuse shapes that break one, with the
// op's name. The TensorRT plugins' checks are the trt driver's.
func TestRelationsRefusedInPython(t *testing.T) {
	py := python(t, "torch", "numpy")
	out, err := exec.Command(py, "../../../testdata/python/check_relations.py", "../../../testdata/gen/relations/out").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
}
