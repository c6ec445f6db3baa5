package htp_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/cli"
)

// The kernel the test writes into ExampleCustomOp's impl region: ReLU over a
// 4-D tensor with the HTP core Tensor API, under the vendor generator's
// tensor names (out_0, in_0) the skeleton declares.
const reluKernel = `  // opforge:begin impl
  out_0.set_dims(in_0);
  auto [b_in, h_in, w_in, d_in] = in_0.dims();
  for (size_t b = 0; b < b_in; b++)
    for (size_t h = 0; h < h_in; h++)
      for (size_t w = 0; w < w_in; w++)
        for (size_t d = 0; d < d_in; d++) {
          float v = in_0(b, h, w, d);
          out_0(b, h, w, d) = v > 0.0f ? v : 0.0f;
        }
  return GraphStatus::Success;
  // opforge:end impl`

var implRegion = regexp.MustCompile(`(?s)  // opforge:begin impl\n.*?  // opforge:end impl`)

// TestOpPackageRunsInQualcommHTPBackend builds the shipped ExampleOpPackage
// for x86 with opforge build (the QNN headers of QNN_SDK_ROOT, the libnative
// stand-in of testdata/htp), with a ReLU written in its impl region, and
// runs a model whose Relu node opforge rewrite onnx --for htp retargeted to
// the op inside Qualcomm's HTP backend
// (the x86 libQnnHtp.so of the onnxruntime-qnn wheel) through ONNX Runtime's
// QNN execution provider with the package registered (op_packages), CPU
// fallback disabled; the output must equal max(x, 0).
//
// An HTP op package is bound to its backend's C++ ABI, not only to the C
// API: the headers must be the backend's QNN version. When they are not,
// the run is still attempted and the test skips naming the versions, the
// symbols the backend lacks and how far the run got; with matching versions
// every failure fails the test.
//
// OPFORGE_QNN_PYTHON: a Python with onnxruntime, onnxruntime-qnn, onnx,
// numpy (and onnxruntime-extensions for onnxruntime-qnn < 2.7); QNN_SDK_ROOT:
// a tree with include/QNN (HTP/core included).
func TestOpPackageRunsInQualcommHTPBackend(t *testing.T) {
	py := os.Getenv("OPFORGE_QNN_PYTHON")
	if py == "" {
		t.Skip("OPFORGE_QNN_PYTHON is not set: point it at a Python with onnxruntime, onnxruntime-qnn, onnx and numpy (pip install onnxruntime-qnn onnx numpy onnxruntime-extensions)")
	}
	root := os.Getenv("QNN_SDK_ROOT")
	if root == "" {
		t.Skip("QNN_SDK_ROOT is not set: point it at a tree with include/QNN (the QNN HTP headers)")
	}
	inc := filepath.Join(root, "include", "QNN")
	if _, err := os.Stat(filepath.Join(inc, "HTP", "core", "op_register_ext.h")); err != nil {
		t.Skipf("QNN_SDK_ROOT=%s has no include/QNN/HTP/core", root)
	}
	cxx, err := exec.LookPath("clang++")
	if err != nil {
		t.Skip("clang++ is not installed (the x86 HTP build's compiler)")
	}
	probe := exec.Command(cxx, "-std=c++17", "-stdlib=libc++", "-x", "c++", "-fsyntax-only", "-")
	probe.Stdin = strings.NewReader("#include <vector>\n")
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("clang++ -stdlib=libc++ cannot compile <vector> (install libc++-dev and libc++abi-dev): %v\n%s", err, out)
	}
	script, err := filepath.Abs("../../../testdata/htp/qnn_ep_run.py")
	if err != nil {
		t.Fatal(err)
	}
	standin, err := filepath.Abs("../../../testdata/htp/libnative/include")
	if err != nil {
		t.Fatal(err)
	}
	opdef, err := os.ReadFile("../../../testdata/gen/examples/opdefs/executorch_example/example_op_package_htp.xml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, script, "versions").CombinedOutput()
	if err != nil {
		t.Skipf("%s cannot load onnxruntime and onnxruntime-qnn: %v\n%s", py, err, out)
	}
	fields := strings.Fields(string(out))
	if len(fields) != 4 {
		t.Fatalf("qnn_ep_run.py versions printed %q", out)
	}
	ortVersion, wheelVersion, backendQNN, backendLib := fields[0], fields[1], fields[2], fields[3]
	headerQNN := qnnBuildID(t, inc)
	matching := majorMinor(headerQNN) == majorMinor(backendQNN)
	t.Logf("headers: QNN %s (%s); backend: QNN %s (onnxruntime-qnn %s, onnxruntime %s, %s)", headerQNN, inc, backendQNN, wheelVersion, ortVersion, backendLib)

	// A workspace holding the shipped opdef: gen, the kernel, gen again
	// (the region must survive), then opforge build htp for x86.
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "opdefs", "executorch_example"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "opdefs", "executorch_example", "example_op_package_htp.xml"), opdef, 0o644); err != nil {
		t.Fatal(err)
	}
	hex := filepath.Join(t.TempDir(), "hexagon-sdk-6.0.0")
	native := filepath.Join(hex, "tools", "HEXAGON_Tools", "8.8.02", "Tools", "libnative")
	for _, d := range []string{filepath.Join(native, "lib"), filepath.Join(hex, "incs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(native, "lib", "libnative.a"), []byte("!<arch>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(standin, filepath.Join(native, "include")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HEXAGON_SDK_ROOT", hex)
	t.Setenv("X86_CXX", cxx)
	t.Setenv("OPFORGE_COMPILER_LAUNCHER", "")
	t.Chdir(ws)
	opforge := func(args ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := cli.Main(args, &stdout, &stderr); code != 0 {
			t.Fatalf("opforge %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		}
	}
	opforge("gen")
	src := filepath.Join("out", "htp", "ExampleOpPackage", "src", "ops", "ExampleCustomOp.cpp")
	code, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if !implRegion.Match(code) {
		t.Fatalf("%s has no impl region", src)
	}
	if err := os.WriteFile(src, implRegion.ReplaceAll(code, []byte(reluKernel)), 0o644); err != nil {
		t.Fatal(err)
	}
	opforge("gen")
	if kept, _ := os.ReadFile(src); !bytes.Contains(kept, []byte("out_0(b, h, w, d) = v > 0.0f")) {
		t.Fatal("gen lost the kernel written in the impl region")
	}
	opforge("build", "htp", "--arch", "x86", "--package", "ExampleOpPackage")
	lib := filepath.Join(ws, "build", "htp", "ExampleOpPackage", "x86_64-linux-clang", "libQnnExampleOpPackage.so")
	if _, err := os.Stat(lib); err != nil {
		t.Fatalf("opforge build htp left no library: %v", err)
	}

	// What the package imports that the backend (with the libraries it
	// brings) does not export: a version mismatch shows here first.
	missing := unresolved(t, lib, backendLib)
	if len(missing) > 0 {
		t.Logf("%d symbol(s) of the package resolve in no library of the backend:\n  %s", len(missing), strings.Join(demangle(missing), "\n  "))
	}

	// The QNN half of the TPAT flow: a model's Relu node retargeted to the
	// package's op by opforge rewrite onnx --for htp.
	plain := filepath.Join(ws, "relu.onnx")
	if out, err := exec.Command(py, script, "model", plain).CombinedOutput(); err != nil {
		t.Fatalf("writing the model: %v\n%s", err, out)
	}
	model := filepath.Join(ws, "example_custom_op.onnx")
	opforge("rewrite", "onnx", plain, "--nodes", "r0", "--rename", "Relu=ExampleCustomOp",
		"--opdef", filepath.Join("opdefs", "executorch_example", "example_op_package_htp.xml"), "--for", "htp", "-o", model)
	run := exec.Command(py, script, "run", model, lib, "ExampleCustomOp", "ExampleOpPackageInterfaceProvider")
	out, err = run.CombinedOutput()
	log := string(out)
	if err == nil {
		t.Logf("the op ran in the HTP backend:\n%s", grepLines(log, "onnxruntime ", "schema:", "op_packages=", "Successfully register", "output ", "max abs error"))
		return
	}
	stage := "the session was not created"
	switch {
	case strings.Contains(log, "max abs error"):
		stage = "the op ran and its output differs from max(x, 0)"
	case strings.Contains(log, "session created"):
		stage = "the session was created, the run failed"
	case strings.Contains(log, "Starting stage: Graph Optimizations"):
		stage = "the package registered, the backend failed in graph preparation (Graph Optimizations)"
	case strings.Contains(log, "Successfully register the op package"):
		stage = "the package registered with the backend, graph finalization failed"
	}
	msg := "run: " + err.Error() + "; " + stage + "\n" + lastLines(grepOut(log), 12)
	if !matching {
		t.Skipf("headers QNN %s, backend QNN %s: an op package must be built with its backend's headers; %s", headerQNN, backendQNN, msg)
	}
	t.Fatal(msg)
}

func qnnBuildID(t *testing.T, inc string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(inc, "QnnSdkBuildId.h"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`QNN_SDK_BUILD_ID "v([0-9.]+)`).FindSubmatch(data)
	if m == nil {
		t.Fatalf("no QNN_SDK_BUILD_ID in %s", inc)
	}
	return strings.TrimSuffix(string(m[1]), ".")
}

func majorMinor(v string) string {
	p := strings.SplitN(v, ".", 3)
	if len(p) < 2 {
		return v
	}
	return p[0] + "." + p[1]
}

// unresolved lists the C++ symbols lib imports that neither the backend
// nor a library next to it (the wheel's libc++ copies) exports.
func unresolved(t *testing.T, lib, backend string) []string {
	t.Helper()
	if _, err := exec.LookPath("nm"); err != nil {
		t.Log("nm is not installed: the symbol check is left out")
		return nil
	}
	defined := map[string]bool{}
	libs := []string{backend}
	more, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(backend)), "onnxruntime_qnn.libs", "*.so*"))
	libs = append(libs, more...)
	for _, l := range libs {
		out, err := exec.Command("nm", "-D", "--defined-only", l).Output()
		if err != nil {
			t.Fatalf("nm %s: %v", l, err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) == 3 {
				defined[strings.SplitN(f[2], "@", 2)[0]] = true
			}
		}
	}
	out, err := exec.Command("nm", "-D", "--undefined-only", lib).Output()
	if err != nil {
		t.Fatalf("nm %s: %v", lib, err)
	}
	var missing []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "U" {
			name := strings.SplitN(f[1], "@", 2)[0]
			// Only the HTP core's C++ symbols: the C and C++ runtimes come
			// from the host.
			if strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "_ZNSt") && !strings.HasPrefix(name, "_ZNKSt") && !defined[name] {
				missing = append(missing, name)
			}
		}
	}
	sort.Strings(missing)
	return missing
}

func demangle(names []string) []string {
	cmd := exec.Command("c++filt")
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n"))
	out, err := cmd.Output()
	if err != nil {
		return names
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

func grepLines(s string, keys ...string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		for _, k := range keys {
			if strings.Contains(line, k) {
				keep = append(keep, line)
				break
			}
		}
	}
	return strings.Join(keep, "\n")
}

// grepOut drops ONNX Runtime's graph-transformer chatter from a run's log.
func grepOut(s string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		if !strings.Contains(line, "GraphTransformer") && !strings.Contains(line, "TraceSessionOptions") && strings.TrimSpace(line) != "" {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
