package reference

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNVIDIAROIAlignReference runs the shipped ROIAlign_TRT port's reference
// (out/reference/NvidiaPorts) against ONNX's RoiAlign in onnx.reference,
// which NVIDIA's README says ROIAlign_TRT follows, over every mode,
// coordinate mode and sampling ratio (testdata/python/check_roialign_reference.py).
func TestNVIDIAROIAlignReference(t *testing.T) {
	python := os.Getenv("OPFORGE_PYTHON")
	if python == "" {
		t.Skip("OPFORGE_PYTHON is not set: the check needs a Python with torch and onnx")
	}
	out, err := exec.Command(python, "../../testdata/python/check_roialign_reference.py", shippedPortsReference(t)).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "cases match") {
		t.Fatalf("unexpected output:\n%s", out)
	}
	t.Log(strings.TrimSpace(string(out)))
}

// TestNVIDIAModulatedDeformConvReference runs the shipped
// ModulatedDeformConv2d port's reference (out/reference/NvidiaPorts)
// against a naive computation written independently (numpy loops in
// float64; testdata/python/check_mdc_reference.py) over groups, deformable
// groups, non-square strides, padding and dilation, with and without bias.
func TestNVIDIAModulatedDeformConvReference(t *testing.T) {
	python := os.Getenv("OPFORGE_PYTHON")
	if python == "" {
		t.Skip("OPFORGE_PYTHON is not set: the check needs a Python with torch and numpy")
	}
	out, err := exec.Command(python, "../../testdata/python/check_mdc_reference.py", shippedPortsReference(t)).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "cases match") {
		t.Fatalf("unexpected output:\n%s", out)
	}
	t.Log(strings.TrimSpace(string(out)))
}

// shippedPortsReference is the ports' reference module as shipped in the
// workspace's out/. These two tests check code the project ships as an
// example, not opforge itself, so a workspace that removed the example (a
// user's) skips them with the reason instead of failing: opforge's own
// tests never depend on what a user keeps in opdefs/ or out/.
func shippedPortsReference(t *testing.T) string {
	t.Helper()
	const path = "../../out/reference/NvidiaPorts/nvidia_ports_reference.py"
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		t.Skip("this workspace does not ship the NvidiaPorts example (out/reference/NvidiaPorts is absent)")
	}
	return path
}
