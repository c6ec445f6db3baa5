package htp

import (
	"fmt"
	"strings"

	"github.com/opforge/opforge/generators/harness"
)

// What `opforge doctor` says of the htp runners: ExecuTorch needs torch
// alone; the HTP runner needs onnxruntime-qnn in the Python
// OPFORGE_QNN_PYTHON names and QNN headers of its backend's version (an op
// package runs only in the backend of its headers' version).

func (executorchRunner) Probes() []harness.Probe { return nil }

func (executorchRunner) Doctor(_ harness.Options, py harness.Python) []harness.Finding {
	torch := py.Module("torch")
	if !torch.OK() {
		return []harness.Finding{{Status: harness.Missing, Name: "torch", Detail: "does not import: " + torch.Error, Fix: "pip install torch into verify's Python"}}
	}
	return []harness.Finding{{Status: harness.OK, Name: "torch", Detail: torch.Label() + ": torch.export runs the ExecuTorch ops' eager implementations on CPU"}}
}

// qnnPython is the variable naming the Python with onnxruntime-qnn.
const qnnPython = "OPFORGE_QNN_PYTHON"

// qnnInfo is onnxruntime-qnn's build information: the wheel's version and
// the QNN version of its backend.
const qnnInfo = "onnxruntime_qnn.build_and_package_info"

// qnnModules are what runners/htp_qnn.py imports, as pip names them.
var qnnModules = []struct{ module, pip string }{
	{"onnxruntime", "onnxruntime"}, {qnnInfo, "onnxruntime-qnn"}, {"onnx", "onnx"}, {"numpy", "numpy"},
}

func (qnnRunner) Probes() []harness.Probe {
	var ps []harness.Probe
	for _, m := range qnnModules {
		p := harness.Probe{Module: m.module, Interpreter: qnnPython}
		if m.module == qnnInfo {
			p.Facts = map[string]string{"qnn": "m.qnn_version"}
		}
		ps = append(ps, p)
	}
	return ps
}

func (qnnRunner) Doctor(o harness.Options, py harness.Python) []harness.Finding {
	backend, pyFinding := qnnBackend(py.Interpreter(qnnPython))
	fs := []harness.Finding{pyFinding}
	d, err := LoadToolchain(o.Toolchains)
	if err != nil {
		return append(fs, harness.Finding{Status: harness.Missing, Name: "toolchain", Detail: err.Error()})
	}
	h := o.Environment().ResolveSDK(*d.SDK("qnn"))
	headers := harness.FromFound(h)
	headers.Name = "QNN headers"
	fs = append(fs, headers)
	if backend == "" || !h.OK() {
		return fs
	}
	match := harness.Finding{Name: "QNN versions"}
	switch {
	case h.Version == "":
		match.Status, match.Detail = harness.Missing, "the headers' version cannot be read; the backend is QNN "+backend
		match.Fix = "set QNN_SDK_ROOT to the QNN SDK (QAIRT) " + backend
	case majorMinor(h.Version) != majorMinor(backend):
		match.Status = harness.Missing
		match.Detail = fmt.Sprintf("headers %s, backend %s: an op package runs only in the backend of its headers' version", h.Version, backend)
		match.Fix = fmt.Sprintf("set QNN_SDK_ROOT to a QNN SDK (QAIRT) %s, or install the onnxruntime-qnn built with QNN %s", majorMinor(backend), majorMinor(h.Version))
	default:
		match.Status, match.Detail = harness.OK, fmt.Sprintf("headers %s and backend %s match", h.Version, backend)
	}
	return append(fs, match)
}

// qnnBackend is the QNN version of onnxruntime-qnn's backend ("" : none
// found) and the finding of the Python that holds it.
func qnnBackend(q harness.Python) (string, harness.Finding) {
	f := harness.Finding{Name: "QNN Python"}
	fix := "set " + qnnPython + " to a Python with onnxruntime-qnn, onnx and numpy (pip install onnxruntime-qnn onnx numpy)"
	if q.Path == "" {
		f.Status, f.Detail, f.Fix = harness.Missing, q.Problem, fix
		return "", f
	}
	var have, missing, pips []string
	for _, m := range qnnModules {
		mod := q.Module(m.module)
		if !mod.OK() {
			missing = append(missing, m.pip+" ("+mod.Error+")")
			pips = append(pips, m.pip)
			continue
		}
		label := m.pip + " " + mod.Version
		if m.module == qnnInfo {
			label += " (QNN " + mod.Fact("qnn") + ")"
		}
		have = append(have, strings.TrimSpace(label))
	}
	backend := q.Module(qnnInfo).Fact("qnn")
	if len(missing) > 0 {
		f.Status = harness.Missing
		f.Detail = q.Describe() + ": does not import " + strings.Join(missing, ", ")
		f.Fix = "pip install " + strings.Join(pips, " ") + " into it"
		if q.Problem != "" {
			f.Detail = q.Describe() + ": " + q.Problem
			f.Fix = ""
		}
		return backend, f
	}
	f.Status, f.Detail = harness.OK, q.Describe()+": "+strings.Join(have, ", ")
	return backend, f
}
