package aipu_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/cli"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/targets/aipu"
	"github.com/opforge/opforge/generators/verify"
	"github.com/opforge/opforge/generators/verify/verifytest"
)

// needOpenCL skips the test, saying why, unless OPFORGE_PYTHON imports
// torch and pyopencl and finds an OpenCL CPU device (PoCL).
func needOpenCL(t *testing.T) {
	t.Helper()
	verifytest.NeedPython(t)
	const probe = `import pyopencl as cl
print(sum(len(p.get_devices(cl.device_type.CPU)) for p in cl.get_platforms()))`
	out, err := exec.Command(os.Getenv("OPFORGE_PYTHON"), "-c", probe).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) == "0" {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		t.Skipf("no OpenCL CPU device through pyopencl in %s (apt-get install pocl-opencl-icd ocl-icd-opencl-dev; pip install pyopencl): %s",
			os.Getenv("OPFORGE_PYTHON"), lines[len(lines)-1])
	}
}

// probeOpdef is a package the team never shipped: an elementwise op with a
// float param, a fixed array and a bool over any rank, in float32 and
// int32 (two kernel variants); and a reduction over an axis param with an
// enum.
const probeOpdef = `version: 1
package: {name: OclProbe, domain: opforge.test, version: 0.1.0}
ops:
  - name: AffineClip
    description: clamp(x * gain, limits[0], limits[1]), negated when flip, in float, truncated to T.
    types: {T: [float32, int32]}
    inputs:
      - {name: x, type: T, rank: [1, 4]}
    params:
      - {name: gain, type: float32, default: 1.5}
      - {name: limits, type: "float32[2]", default: [-2.5, 2.5]}
      - {name: flip, type: bool, default: false}
    outputs:
      - {name: y, type: T, shape: {like: x}}
    targets: {aipu: {}}
  - name: MeanAlong
    description: The sum or the mean of x along axis, which is removed.
    inputs:
      - {name: x, type: float32, rank: [1, 4]}
    params:
      - {name: axis, type: int32, default: -1, min: -4, max: 3}
      - {name: reduce, type: enum, values: [sum, mean], default: mean}
    outputs:
      - {name: y, type: float32, shape: {like: x, axis: axis, remove: true}}
    targets: {aipu: {}}
`

const (
	affineKernel = `  int n = x_dim0 * x_dim1 * x_dim2 * x_dim3;
  for (int i = (int)get_global_id(0); i < n; i += (int)get_global_size(0)) {
    float v = clamp((float)x[i] * gain, limits_0, limits_1);
    y[i] = (T_t)(flip ? -v : v);
  }`
	meanKernel = `  int d[4] = {x_dim0, x_dim1, x_dim2, x_dim3};
  int a = axis < 0 ? axis + x_rank : axis;
  if (a < 0 || a >= x_rank) return;
  int outer = 1, inner = 1;
  for (int i = 0; i < a; ++i) outer *= d[i];
  for (int i = a + 1; i < x_rank; ++i) inner *= d[i];
  int len = d[a];
  for (int o = (int)get_global_id(0); o < outer * inner; o += (int)get_global_size(0)) {
    __global const float* row = x + (o / inner) * len * inner + o % inner;
    float s = 0.0f;
    for (int j = 0; j < len; ++j) s += row[j * inner];
    y[o] = reduce == 1u ? s / (float)len : s;
  }`
)

// TestVerifyOpenCLCatchesKernelBugs generates the probe package, writes its
// references and correct kernels, and verifies every case passes on
// aipu-opencl; then plants one bug at a time in the OpenCL kernel only (the
// reference and the OPT plugin untouched) and checks verify fails naming
// the op: the last element left unwritten, negative axes counted wrong,
// a syntax error (reported with the kernel's file and line). Without
// pyopencl or an OpenCL platform, every case is a skip.
func TestVerifyOpenCLCatchesKernelBugs(t *testing.T) {
	needOpenCL(t)
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "opdefs", "probe"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "opdefs", "probe", "ocl_probe.yaml"), []byte(probeOpdef), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(ws)
	var stdout, stderr bytes.Buffer
	if code := cli.Main([]string{"gen"}, &stdout, &stderr); code != 0 {
		t.Fatalf("opforge gen: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	ref := filepath.Join("out", "reference", "OclProbe", "ocl_probe_reference.py")
	verifytest.FillRegion(t, ref, "reference:AffineClip", `    v = (x.to(torch.float32) * gain).clamp(limits[0], limits[1])
    return (-v if flip else v).to(x.dtype)`)
	verifytest.FillRegion(t, ref, "reference:MeanAlong", `    return x.mean(dim=axis) if reduce == "mean" else x.sum(dim=axis)`)
	o := verify.Options{OpDefs: "opdefs", Out: "out", Runners: registry.Verifiers(), Targets: []string{"aipu-opencl"}, Python: os.Getenv("OPFORGE_PYTHON")}
	run := func() ([]verify.Result, string) {
		t.Helper()
		var l diag.List
		rs := verify.Run(o, &l)
		if l.HasErrors() {
			t.Fatal(l.Sorted())
		}
		var buf bytes.Buffer
		verify.WriteText(&buf, rs)
		return rs, buf.String()
	}

	// The generated placeholders are no kernel: every op skips, nothing passes.
	rs, text := run()
	if len(rs) != 2 || slices.ContainsFunc(rs, func(r verify.Result) bool {
		return r.Status != verify.Skip || !strings.Contains(r.Reason, "no OpenCL kernel written")
	}) {
		t.Fatalf("want both ops skipped for their placeholder kernels:\n%s", text)
	}

	affine := filepath.Join("out", "aipu", "OclProbe", "kernels", "affine_clip.cl")
	mean := filepath.Join("out", "aipu", "OclProbe", "kernels", "mean_along.cl")
	verifytest.FillRegion(t, affine, "kernel", affineKernel)
	verifytest.FillRegion(t, mean, "kernel", meanKernel)
	rs, text = run()
	perOp := map[string]int{}
	for _, r := range rs {
		if r.Status != verify.Pass {
			t.Fatalf("want every case to pass with the correct kernels:\n%s", text)
		}
		perOp[r.Op]++
	}
	// AffineClip: float32 and int32 (both variants), ranks 1 to 4, flip both ways; MeanAlong:
	// every axis of rank 3, sum and mean.
	if perOp["AffineClip"] < 5 || perOp["MeanAlong"] < 6 || !strings.Contains(text, "T=int32") || !strings.Contains(text, "axis=-3") {
		t.Fatalf("too few cases ran:\n%s", text)
	}

	// Without pyopencl, or without an OpenCL platform, every case is a skip saying what to install.
	shadow := t.TempDir()
	if err := os.WriteFile(filepath.Join(shadow, "pyopencl.py"), []byte("raise ImportError('no pyopencl here')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, env := range [][2]string{{"PYTHONPATH", shadow}, {"OCL_ICD_VENDORS", t.TempDir()}} {
		old, had := os.LookupEnv(env[0])
		os.Setenv(env[0], env[1])
		rs, text = run()
		if had {
			os.Setenv(env[0], old)
		} else {
			os.Unsetenv(env[0])
		}
		if len(rs) != perOp["AffineClip"]+perOp["MeanAlong"] || slices.ContainsFunc(rs, func(r verify.Result) bool {
			return r.Status != verify.Skip || !strings.Contains(r.Reason, "apt-get install pocl-opencl-icd")
		}) {
			t.Fatalf("with %s=%s, want every case skipped, saying what to install:\n%s", env[0], env[1], text)
		}
	}

	// plant replaces old by new in file, which must hold old, runs verify
	// and puts the file back.
	plant := func(file, old, new string) ([]verify.Result, string) {
		t.Helper()
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("%s has no %q", file, old)
		}
		if err := os.WriteFile(file, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(file, data, 0o644)
		return run()
	}
	onlyFails := func(rs []verify.Result, op string) bool {
		return verify.Failed(rs) && !slices.ContainsFunc(rs, func(r verify.Result) bool { return r.Status == verify.Fail && r.Op != op })
	}

	// The last element never written: every AffineClip case fails, in both variants, and the
	// CLI exits 1.
	data, _ := os.ReadFile(affine)
	// In the kernel's body: the file's comments show the same loop.
	planted := strings.Replace(affineKernel, "i < n;", "i < n - 1;", 1)
	if !bytes.Contains(data, []byte(affineKernel)) {
		t.Fatalf("%s does not hold the kernel written into it", affine)
	}
	_ = os.WriteFile(affine, bytes.Replace(data, []byte(affineKernel), []byte(planted), 1), 0o644)
	stdout.Reset()
	stderr.Reset()
	code := cli.Main([]string{"verify", "--target", "aipu-opencl"}, &stdout, &stderr)
	_ = os.WriteFile(affine, data, 0o644)
	text = stdout.String()
	if code != 1 || strings.Contains(text, "FAIL OclProbe/MeanAlong") || strings.Contains(text, "PASS OclProbe/AffineClip") ||
		!strings.Contains(text, "FAIL OclProbe/AffineClip aipu-opencl [base]") || !strings.Contains(text, "FAIL OclProbe/AffineClip aipu-opencl [T=int32]") ||
		!strings.Contains(text, "unwritten") {
		t.Fatalf("a kernel leaving the last element unwritten: opforge verify exit %d, want 1 with every AffineClip case failed\n%s%s", code, text, stderr.String())
	}

	// Negative axes always taken as the last one: the cases at axis -2 and -3 fail, -1 passes.
	rs, text = plant(mean, "axis < 0 ? axis + x_rank : axis", "axis < 0 ? x_rank - 1 : axis")
	if !onlyFails(rs, "MeanAlong") || !strings.Contains(text, "FAIL OclProbe/MeanAlong aipu-opencl [rank=3 axis=-2]") || !strings.Contains(text, "PASS OclProbe/MeanAlong aipu-opencl [base]") {
		t.Fatalf("a kernel reducing the wrong axis passed:\n%s", text)
	}

	// A syntax error: the op's cases fail with the compiler's diagnostic at the kernel's line.
	rs, text = plant(mean, "float s = 0.0f;", "float s = 0.0f")
	data, _ = os.ReadFile(mean)
	line := bytes.Count(data[:bytes.Index(data, []byte("float s = 0.0f;"))], []byte("\n")) + 1
	if !onlyFails(rs, "MeanAlong") || !strings.Contains(text, "the kernel does not build (variant ocl_probe_mean_along") ||
		!strings.Contains(text, fmt.Sprintf("%s:%d:", filepath.ToSlash(mean), line)) || !strings.Contains(text, ": error: ") {
		t.Fatalf("a kernel that does not compile did not fail with its diagnostic:\n%s", text)
	}
}

// TestOpenCLProbeRealPython: the OpenCL probe's platform expression runs
// in a real pyopencl: it lists the platforms, or the finding says why
// there is none; never an error of the expression itself.
func TestOpenCLProbeRealPython(t *testing.T) {
	if os.Getenv("OPFORGE_PYTHON") == "" {
		t.Skip("OPFORGE_PYTHON is not set (a Python with torch): doctor's probe is not run")
	}
	doctor := openCLRunner(t)
	py := verify.RunProbes(verify.DoctorOptions{}, doctor.Probes())
	m := py.Module("pyopencl")
	if !m.OK() {
		t.Skipf("pyopencl does not import in OPFORGE_PYTHON (%s): pip install pyopencl to run this test", m.Error)
	}
	for _, e := range m.FactErrors {
		if strings.Contains(e, "NameError") || strings.Contains(e, "AttributeError") || strings.Contains(e, "TypeError") || strings.Contains(e, "SyntaxError") {
			t.Errorf("the platforms expression fails: %s", e)
		}
	}
	fs := doctor.Doctor(harness.Options{}, py)
	last := fs[len(fs)-1]
	if last.Status == harness.OK && !regexp.MustCompile(`^[^,]+, OpenCL \d+\.\d+ .*: .+`).MatchString(last.Detail) {
		t.Errorf("the platforms are not name, version: devices: %q", last.Detail)
	}
	t.Logf("%s %s %s", last.Status, last.Name, last.Detail)
}

// openCLRunner is the aipu-opencl runner as doctor sees it.
func openCLRunner(t *testing.T) harness.Doctor {
	t.Helper()
	for _, r := range (aipu.Target{}).Verifiers() {
		if d, ok := r.(harness.Doctor); ok && r.Name() == "aipu-opencl" {
			return d
		}
	}
	t.Fatal("the aipu target has no aipu-opencl runner with a doctor")
	return nil
}
