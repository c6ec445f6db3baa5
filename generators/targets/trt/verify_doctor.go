package trt

import (
	"context"
	"os/exec"
	"strings"
	"time"

	"github.com/opforge/opforge/generators/harness"
)

// What `opforge doctor` says of the trt runners: the C++ plugins need a
// GPU and what opforge build trt needs (its own toolchain probing); the
// Python plugins need Triton, and tensorrt.plugin where a GPU runs them.

func (cppRunner) Probes() []harness.Probe { return nil }

func (cppRunner) Doctor(o harness.Options, py harness.Python) []harness.Finding {
	fs := []harness.Finding{gpuFinding(gpuOf(o, py, true), "the C++ plugins run only on one: run verify --target trt on a machine with an NVIDIA GPU and its driver")}
	d, err := LoadToolchain(o.Toolchains)
	if err != nil {
		return append(fs, harness.Finding{Status: harness.Missing, Name: "toolchain", Detail: err.Error()})
	}
	env := o.Environment()
	for _, f := range env.ResolveAll(d.Descriptor) {
		fs = append(fs, harness.FromFound(f))
	}
	return fs
}

// tensorrtVersion reads TensorRT's version once tensorrt.plugin imported it.
const tensorrtVersion = "__import__('tensorrt').__version__"

func (pythonRunner) Probes() []harness.Probe {
	return []harness.Probe{
		{Module: "triton"},
		// The stand-in core goes first on sys.path, as the runner puts it.
		{Module: "tensorrt.plugin", Path: []string{"OPFORGE_TRT_CORE"}, Facts: map[string]string{"tensorrt": tensorrtVersion}},
	}
}

func (pythonRunner) Doctor(o harness.Options, py harness.Python) []harness.Finding {
	g := gpuOf(o, py, false)
	var fs []harness.Finding
	if g.name != "" {
		fs = append(fs, gpuFinding(g, ""))
	} else {
		f := harness.Finding{Status: harness.None, Name: "GPU", Detail: "no NVIDIA GPU (" + g.looked + "): Triton's interpreter runs the kernels on CPU"}
		if g.smi != "" {
			f.Fix = "install a CUDA build of torch to run them on " + g.smi
		}
		fs = append(fs, f)
	}
	tr := py.Module("triton")
	switch {
	case !tr.OK():
		fs = append(fs, harness.Finding{Status: harness.Missing, Name: "triton", Detail: "does not import: " + tr.Error, Fix: "pip install triton into verify's Python"})
	case g.name != "":
		fs = append(fs, harness.Finding{Status: harness.OK, Name: "triton", Detail: tr.Label() + ": runs the Triton kernels on the GPU"})
	default:
		fs = append(fs, harness.Finding{Status: harness.OK, Name: "triton", Detail: tr.Label() + ": runs Triton kernels in Triton's interpreter on CPU (no GPU)"})
	}
	return append(fs, pluginFinding(o, py, g.name != ""))
}

// pluginFinding is tensorrt.plugin, which the Python plugins run on only
// on a GPU: without one it is not needed.
func pluginFinding(o harness.Options, py harness.Python, onGPU bool) harness.Finding {
	f := harness.Finding{Name: "tensorrt.plugin"}
	getenv := o.Environment().Getenv
	if _, problem := trtPythonEnv(getenv); problem != "" {
		f.Status, f.Detail = harness.Missing, problem
		return f
	}
	m := py.Module("tensorrt.plugin")
	if m.OK() {
		f.Status, f.Detail = harness.OK, "imports"
		if v := m.Fact("tensorrt"); v != "" {
			f.Detail += " (TensorRT " + v + ")"
		}
		if core := getenv("OPFORGE_TRT_CORE"); core != "" {
			f.Detail += " from the bindings in $OPFORGE_TRT_BINDINGS under the stand-in core " + core
		}
		return f
	}
	f.Detail = "does not import: " + m.Error
	f.Fix = "pip install tensorrt (TensorRT 10's Python bindings), or set OPFORGE_TRT_BINDINGS to a tensorrt bindings wheel's site-packages and OPFORGE_TRT_CORE to a stand-in core"
	if !onGPU {
		f.Status, f.Detail, f.Fix = harness.None, f.Detail+" (only needed on a GPU)", ""
		return f
	}
	f.Status = harness.Missing
	return f
}

// gpu is the NVIDIA GPU verify would run on: name and how it was seen
// ("" : none, looked saying where it was looked for); smi, a GPU
// nvidia-smi lists that torch does not see.
type gpu struct {
	name, via, looked, smi string
}

// gpuOf asks torch (the harness's CUDA), then, when trusting the driver
// alone is enough (smiCounts: the C++ runner talks to it without torch),
// nvidia-smi.
func gpuOf(o harness.Options, py harness.Python, smiCounts bool) gpu {
	torch := py.Module("torch")
	if torch.True("cuda") {
		return gpu{name: torch.Fact("device"), via: "torch.cuda"}
	}
	looked := "torch.cuda.is_available() is False"
	if !torch.OK() {
		looked = "torch does not import"
	}
	smi, where := nvidiaSMI(o)
	looked += ", " + where
	if smi == "" {
		return gpu{looked: looked}
	}
	if smiCounts {
		return gpu{name: smi, via: "nvidia-smi -L"}
	}
	return gpu{looked: looked, smi: smi}
}

func gpuFinding(g gpu, fix string) harness.Finding {
	if g.name == "" {
		return harness.Finding{Status: harness.Missing, Name: "GPU", Detail: "no NVIDIA GPU (" + g.looked + ")", Fix: fix}
	}
	return harness.Finding{Status: harness.OK, Name: "GPU", Detail: g.name + " (via " + g.via + ")"}
}

// nvidiaSMI is the first GPU `nvidia-smi -L` lists ("" : none), and
// what was seen of it.
func nvidiaSMI(o harness.Options) (name, seen string) {
	path, err := o.Environment().LookPath("nvidia-smi")
	if err != nil {
		return "", "nvidia-smi is not on PATH"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-L")
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	for _, l := range strings.Split(string(out), "\n") {
		// "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)"
		if _, rest, ok := strings.Cut(l, ": "); ok && strings.HasPrefix(l, "GPU ") {
			name, _, _ = strings.Cut(rest, " (UUID")
			return strings.TrimSpace(name), path
		}
	}
	if err != nil {
		return "", path + " -L failed: " + harness.OneLine(err.Error())
	}
	return "", path + " -L lists no GPU"
}
