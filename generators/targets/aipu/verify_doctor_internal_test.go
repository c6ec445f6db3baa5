package aipu

import (
	"os"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/toolchain"
)

// TestAIPUDoctor: what doctor says of the aipu runners, from fake probe
// results: the OPT runners' Compass_Optimizer checkout (set, importable),
// and the OpenCL runner's pyopencl and platform, with the install lines
// for what is missing.
func TestAIPUDoctor(t *testing.T) {
	py := func(mods ...harness.Module) harness.Python {
		p := harness.Python{Path: "/fake/python", Modules: map[string]harness.Module{}}
		for _, m := range mods {
			p.Modules[m.Name] = m
		}
		return p
	}
	opt := harness.Module{Name: optFramework}
	optBroken := harness.Module{Name: optFramework, Error: "ModuleNotFoundError: No module named 'tqdm'"}
	pocl := harness.Module{Name: "pyopencl", Version: "2026.1.4", Facts: map[string]any{"platforms": []any{"Portable Computing Language, OpenCL 3.0 PoCL 3.1+debian Linux: pthread-skylake"}}}
	noPlatform := harness.Module{Name: "pyopencl", Version: "2026.1.4", FactErrors: map[string]string{"platforms": "LogicError: clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR"}}
	noPyOpenCL := harness.Module{Name: "pyopencl", Error: "ModuleNotFoundError: No module named 'pyopencl'"}
	type want struct{ status, has string }
	var runners = map[string]harness.Doctor{
		"aipu":        optRunner{name: "aipu", class: "AIPU"},
		"aipu-quant":  optRunner{name: "aipu-quant", class: "AIPUQuantized"},
		"aipu-opencl": openCLDoctor{},
	}
	for _, c := range []struct {
		name, runner string
		vars         map[string]string
		py           harness.Python
		want         map[string]want
	}{
		{"aipu without COMPASS_OPTIMIZER_DIR", "aipu", nil, py(opt), map[string]want{
			"COMPASS_OPTIMIZER_DIR": {harness.Missing, "not set; set it to a checkout of github.com/Arm-China/Compass_Optimizer"},
		}},
		{"aipu-quant with an Optimizer that imports", "aipu-quant", map[string]string{"COMPASS_OPTIMIZER_DIR": "/src/Compass_Optimizer"}, py(opt), map[string]want{
			"COMPASS_OPTIMIZER_DIR": {harness.OK, "/src/Compass_Optimizer: AIPUBuilder.Optimizer.framework imports"},
		}},
		{"aipu with an Optimizer that does not import", "aipu", map[string]string{"COMPASS_OPTIMIZER_DIR": "/src/Compass_Optimizer"}, py(optBroken), map[string]want{
			"COMPASS_OPTIMIZER_DIR": {harness.Missing, "does not import: ModuleNotFoundError: No module named 'tqdm'"},
		}},
		{"opencl on PoCL", "aipu-opencl", nil, py(pocl), map[string]want{
			"pyopencl":        {harness.OK, "pyopencl 2026.1.4"},
			"OpenCL platform": {harness.OK, "Portable Computing Language, OpenCL 3.0 PoCL 3.1+debian Linux: pthread-skylake"},
		}},
		{"opencl without a platform", "aipu-opencl", nil, py(noPlatform), map[string]want{
			"OpenCL platform": {harness.Missing, "PLATFORM_NOT_FOUND_KHR; apt-get install pocl-opencl-icd ocl-icd-opencl-dev"},
		}},
		{"opencl without pyopencl", "aipu-opencl", nil, py(noPyOpenCL), map[string]want{
			"pyopencl":        {harness.Missing, "pip install pyopencl"},
			"OpenCL platform": {harness.Missing, "apt-get install pocl-opencl-icd ocl-icd-opencl-dev"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := harness.Options{Env: toolchain.Env{Getenv: func(k string) string { return c.vars[k] },
				LookPath: func(string) (string, error) { return "", os.ErrNotExist }}}
			got := map[string]harness.Finding{}
			for _, f := range runners[c.runner].Doctor(o, c.py) {
				got[f.Name] = f
			}
			for name, w := range c.want {
				f := got[name]
				if line := f.Detail + "; " + f.Fix; f.Status != w.status || !strings.Contains(line, w.has) {
					t.Errorf("%s: %s %q, want %s with %q", name, f.Status, line, w.status, w.has)
				}
			}
		})
	}
}

// TestAIPUProbes: the OPT runners import the Optimizer from
// COMPASS_OPTIMIZER_DIR; the OpenCL runner lists pyopencl's platforms.
func TestAIPUProbes(t *testing.T) {
	p := optRunner{}.Probes()
	if len(p) != 1 || p[0].Module != optFramework || len(p[0].Path) != 1 || p[0].Path[0] != "COMPASS_OPTIMIZER_DIR" {
		t.Errorf("OPT probes: %+v", p)
	}
	p = openCLDoctor{}.Probes()
	if len(p) != 1 || p[0].Module != "pyopencl" || !strings.Contains(p[0].Facts["platforms"], "get_platforms()") {
		t.Errorf("OpenCL probes: %+v", p)
	}
}
