package aipu

import (
	"strings"

	"github.com/opforge/opforge/generators/harness"
)

// What `opforge doctor` says of the aipu runners: the OPT runners need a
// Compass_Optimizer checkout that imports in verify's Python; the OpenCL
// runner needs pyopencl and an OpenCL platform.

// optFramework is what runners/aipu_verify.py imports of the Optimizer.
const optFramework = "AIPUBuilder.Optimizer.framework"

func (optRunner) Probes() []harness.Probe {
	return []harness.Probe{{Module: optFramework, Path: []string{"COMPASS_OPTIMIZER_DIR"}}}
}

func (optRunner) Doctor(o harness.Options, py harness.Python) []harness.Finding {
	f := harness.Finding{Name: "COMPASS_OPTIMIZER_DIR"}
	dir := o.Environment().Getenv("COMPASS_OPTIMIZER_DIR")
	if dir == "" {
		f.Status, f.Detail = harness.Missing, "not set"
		f.Fix = "set it to a checkout of github.com/Arm-China/Compass_Optimizer"
		return []harness.Finding{f}
	}
	m := py.Module(optFramework)
	if !m.OK() {
		f.Status, f.Detail = harness.Missing, dir+": "+optFramework+" does not import: "+m.Error
		f.Fix = "point it at a Compass_Optimizer checkout and install what the Optimizer imports into verify's Python"
		return []harness.Finding{f}
	}
	f.Status, f.Detail = harness.OK, dir+": "+optFramework+" imports"
	return []harness.Finding{f}
}

// openCLDoctor is what doctor says of a runner of the kernels in OpenCL
// (pyopencl on an OpenCL platform, PoCL on a CPU where nothing else is);
// the aipu-opencl runner embeds it.
type openCLDoctor struct{}

// openCLPlatforms lists each platform as "name, version: devices".
const openCLPlatforms = `['%s, %s: %s' % (p.name, ' '.join(p.version.split(',')[0].split()), ', '.join(d.name for d in p.get_devices())) for p in m.get_platforms()]`

// openCLInstall is what installs PoCL and the OpenCL ICD loader on Debian
// or Ubuntu.
const openCLInstall = "apt-get install pocl-opencl-icd ocl-icd-opencl-dev"

func (openCLDoctor) Probes() []harness.Probe {
	return []harness.Probe{{Module: "pyopencl", Facts: map[string]string{"platforms": openCLPlatforms}}}
}

func (openCLDoctor) Doctor(_ harness.Options, py harness.Python) []harness.Finding {
	m := py.Module("pyopencl")
	platform := harness.Finding{Status: harness.Missing, Name: "OpenCL platform", Fix: openCLInstall}
	if !m.OK() {
		platform.Detail = "not probed: pyopencl does not import"
		return []harness.Finding{
			{Status: harness.Missing, Name: "pyopencl", Detail: "does not import: " + m.Error, Fix: "pip install pyopencl into verify's Python"},
			platform,
		}
	}
	fs := []harness.Finding{{Status: harness.OK, Name: "pyopencl", Detail: m.Label()}}
	switch p := m.Fact("platforms"); {
	case m.FactErrors["platforms"] != "":
		platform.Detail = "none: " + m.FactErrors["platforms"]
	case p == "":
		platform.Detail = "none: pyopencl lists no platform"
	default:
		platform.Status, platform.Detail, platform.Fix = harness.OK, strings.TrimSpace(p), ""
	}
	return append(fs, platform)
}
