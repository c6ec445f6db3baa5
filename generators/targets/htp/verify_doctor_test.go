package htp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/toolchain"
)

func doctorOf(t *testing.T, name string) harness.Doctor {
	t.Helper()
	for _, r := range registry.Verifiers() {
		if r.Name() == name {
			d, ok := r.(harness.Doctor)
			if !ok {
				t.Fatalf("runner %s does not say what it needs (harness.Doctor)", name)
			}
			return d
		}
	}
	t.Fatalf("no runner %s", name)
	return nil
}

type want struct{ status, has string }

func checkFindings(t *testing.T, fs []harness.Finding, wants map[string]want) {
	t.Helper()
	got := map[string]harness.Finding{}
	for _, f := range fs {
		got[f.Name] = f
	}
	for name, w := range wants {
		if name == "-" { // w.has names a finding that must not be there
			continue
		}
		f, ok := got[name]
		if !ok {
			t.Errorf("no %s finding in %+v", name, fs)
			continue
		}
		if line := f.Detail + "; " + f.Fix; f.Status != w.status || !strings.Contains(line, w.has) {
			t.Errorf("%s: %s %q, want %s with %q", name, f.Status, line, w.status, w.has)
		}
	}
	if w, ok := wants["-"]; ok {
		if _, there := got[w.has]; there {
			t.Errorf("a %s finding where none belongs: %+v", w.has, fs)
		}
	}
}

// qnnPython is the probe's result for OPFORGE_QNN_PYTHON with
// onnxruntime-qnn of backend qnn ("" : onnxruntime-qnn does not import).
func qnnPython(qnn string) harness.Python {
	q := harness.Python{Path: "/qnn/python", Version: "3.11.7", Via: "$OPFORGE_QNN_PYTHON", Modules: map[string]harness.Module{
		"onnxruntime": {Name: "onnxruntime", Version: "1.32.0"},
		"onnx":        {Name: "onnx", Version: "1.23.2"},
		"numpy":       {Name: "numpy", Version: "2.4.6"},
	}}
	info := "onnxruntime_qnn.build_and_package_info"
	if qnn == "" {
		q.Modules[info] = harness.Module{Name: info, Error: "ModuleNotFoundError: No module named 'onnxruntime_qnn'"}
	} else {
		q.Modules[info] = harness.Module{Name: info, Version: "2.6.0", Facts: map[string]any{"qnn": qnn}}
	}
	return q
}

func withQNN(q harness.Python) harness.Python {
	return harness.Python{Path: "/fake/python", Modules: map[string]harness.Module{"torch": {Name: "torch", Version: "2.9.1"}},
		Others: map[string]harness.Python{"OPFORGE_QNN_PYTHON": q}}
}

// qnnHeaders is a QNN SDK whose QnnSdkBuildId.h says version ("" : no
// such file).
func qnnHeaders(t *testing.T, version string) string {
	t.Helper()
	root := t.TempDir()
	_ = os.MkdirAll(filepath.Join(root, "include/QNN"), 0o755)
	_ = os.WriteFile(filepath.Join(root, "include/QNN/QnnOpPackage.h"), nil, 0o644)
	if version != "" {
		id := `#define QNN_SDK_BUILD_ID "v` + version + `.250930123456_12345"` + "\n"
		_ = os.WriteFile(filepath.Join(root, "include/QNN/QnnSdkBuildId.h"), []byte(id), 0o644)
	}
	return root
}

// TestHTPDoctor: what doctor says of the htp runners, from fake probe
// results: ExecuTorch's torch; onnxruntime-qnn in OPFORGE_QNN_PYTHON and
// its QNN version; the QNN headers as opforge build htp finds them; and
// whether the two versions match.
func TestHTPDoctor(t *testing.T) {
	sdk := qnnHeaders(t, "2.50.0")
	for _, c := range []struct {
		name, runner string
		vars         map[string]string
		py           harness.Python
		want         map[string]want
	}{
		{"executorch with torch", "executorch", nil, withQNN(qnnPython("2.50.40")), map[string]want{
			"torch": {harness.OK, "torch 2.9.1: torch.export runs the ExecuTorch ops' eager implementations on CPU"},
		}},
		{"executorch without torch", "executorch", nil, harness.Python{Path: "/p", Modules: map[string]harness.Module{"torch": {Name: "torch", Error: "ModuleNotFoundError: No module named 'torch'"}}}, map[string]want{
			"torch": {harness.Missing, "pip install torch"},
		}},
		{"htp with matching versions", "htp", map[string]string{"QNN_SDK_ROOT": sdk}, withQNN(qnnPython("2.50.40")), map[string]want{
			"QNN Python":   {harness.OK, "/qnn/python 3.11.7 (via $OPFORGE_QNN_PYTHON): onnxruntime 1.32.0, onnxruntime-qnn 2.6.0 (QNN 2.50.40), onnx 1.23.2, numpy 2.4.6"},
			"QNN headers":  {harness.OK, sdk + " 2.50.0 (via $QNN_SDK_ROOT)"},
			"QNN versions": {harness.OK, "headers 2.50.0 and backend 2.50.40 match"},
		}},
		{"htp with mismatched versions", "htp", map[string]string{"QNN_SDK_ROOT": qnnHeaders(t, "2.43.0")}, withQNN(qnnPython("2.47.0")), map[string]want{
			"QNN versions": {harness.Missing, "headers 2.43.0, backend 2.47.0: an op package runs only in the backend of its headers' version; set QNN_SDK_ROOT to a QNN SDK (QAIRT) 2.47, or install the onnxruntime-qnn built with QNN 2.43"},
		}},
		{"htp without OPFORGE_QNN_PYTHON", "htp", map[string]string{"QNN_SDK_ROOT": sdk}, withQNN(harness.Python{Via: "$OPFORGE_QNN_PYTHON", Problem: "OPFORGE_QNN_PYTHON is not set"}), map[string]want{
			"QNN Python":  {harness.Missing, "OPFORGE_QNN_PYTHON is not set; set OPFORGE_QNN_PYTHON to a Python with onnxruntime-qnn"},
			"QNN headers": {harness.OK, sdk},
			"-":           {"", "QNN versions"},
		}},
		{"htp without onnxruntime-qnn", "htp", map[string]string{"QNN_SDK_ROOT": sdk}, withQNN(qnnPython("")), map[string]want{
			"QNN Python": {harness.Missing, "does not import onnxruntime-qnn (ModuleNotFoundError: No module named 'onnxruntime_qnn'); pip install onnxruntime-qnn into it"},
			"-":          {"", "QNN versions"},
		}},
		{"htp without QNN headers", "htp", nil, withQNN(qnnPython("2.50.40")), map[string]want{
			"QNN headers": {harness.Missing, "set QNN_SDK_ROOT"},
			"-":           {"", "QNN versions"},
		}},
		{"htp-host without its compiler", "htp-host", map[string]string{"OPFORGE_HOST_CXX": "g++-none"}, withQNN(qnnPython("2.50.40")), map[string]want{
			"host compiler": {harness.Missing, "the host harness's compiler g++-none is not installed (set OPFORGE_HOST_CXX to a C++17 g++ with _Float16); apt-get install g++"},
		}},
		{"htp when the QNN Python timed out", "htp", map[string]string{"QNN_SDK_ROOT": sdk},
			withQNN(harness.Python{Path: "/qnn/python", Via: "$OPFORGE_QNN_PYTHON", Problem: "the probe did not finish within 1m0s (doctor --timeout); it was importing onnxruntime"}), map[string]want{
				"QNN Python": {harness.Missing, "/qnn/python (via $OPFORGE_QNN_PYTHON): the probe did not finish within 1m0s"},
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := harness.Options{Toolchains: "../../../toolchains", Env: toolchain.Env{
				Getenv:   func(k string) string { return c.vars[k] },
				LookPath: func(string) (string, error) { return "", os.ErrNotExist },
				Root:     t.TempDir(),
			}}
			checkFindings(t, doctorOf(t, c.runner).Doctor(o, c.py), c.want)
		})
	}
}

// TestHTPProbesQNNPython: the HTP runner's modules are probed in the
// Python OPFORGE_QNN_PYTHON names, not in verify's.
func TestHTPProbesQNNPython(t *testing.T) {
	ps := doctorOf(t, "htp").Probes()
	if len(ps) == 0 {
		t.Fatal("no probes")
	}
	for _, p := range ps {
		if p.Interpreter != "OPFORGE_QNN_PYTHON" {
			t.Errorf("%s probed in %q, want OPFORGE_QNN_PYTHON", p.Module, p.Interpreter)
		}
	}
}
