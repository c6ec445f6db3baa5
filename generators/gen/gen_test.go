package gen

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/golden"
	"github.com/opforge/opforge/generators/sharedfixtures"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/writer"
)

var update = golden.Update

const repo = "../.."

// repoOptions are the shipped examples' copy under testdata (a case of
// TestGoldenTrees): the tests never read the workspace's opdefs/ or out/,
// which belong to whoever works in this checkout.
func repoOptions() Options {
	return Options{OpDefs: repo + "/testdata/gen/examples/opdefs", Toolchains: repo + "/toolchains", Out: repo + "/testdata/gen/examples/out"}
}

func mustPlan(t *testing.T, o Options) *writer.Plan {
	t.Helper()
	var l diag.List
	p := Plan(o, &l)
	if p == nil || l.HasErrors() {
		var buf bytes.Buffer
		_ = l.WriteText(&buf)
		t.Fatalf("generation failed:\n%s", buf.String())
	}
	return p
}

// goldenTree compares (or with -update rewrites) a generated tree.
func goldenTree(t *testing.T, o Options) {
	t.Helper()
	p := mustPlan(t, o)
	if *update {
		if _, err := writer.Apply(p); err != nil {
			t.Fatal(err)
		}
		return
	}
	var l diag.List
	writer.Diff(p, &l)
	if l.HasErrors() {
		var buf bytes.Buffer
		_ = l.WriteText(&buf)
		t.Errorf("%s differs from what %s generate (go test ./generators/gen -update refreshes it):\n%s", o.Out, o.OpDefs, buf.String())
	}
}

// TestSameBytesAnywhere: generating from a copy of the opdefs at another
// absolute path, into an empty directory, gives exactly the checked-in tree.
func TestSameBytesAnywhere(t *testing.T) {
	root := t.TempDir()
	copyTree(t, repo+"/testdata/gen/examples/opdefs", filepath.Join(root, "defs", "opdefs"))
	o := Options{OpDefs: filepath.Join(root, "defs", "opdefs"), Toolchains: repo + "/toolchains", Out: filepath.Join(root, "fresh")}
	if l := regen(t, o); l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	var l diag.List
	writer.Diff(mustPlan(t, Options{OpDefs: repo + "/testdata/gen/examples/opdefs", Toolchains: repo + "/toolchains", Out: o.Out}), &l)
	if l.HasErrors() {
		t.Errorf("a fresh generation elsewhere differs from the repository's: %v", l.Sorted())
	}
	for _, p := range mustPlan(t, repoOptions()).Files.Paths() {
		a, _ := os.ReadFile(filepath.Join(repoOptions().Out, p))
		b, _ := os.ReadFile(filepath.Join(o.Out, p))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs", p)
		}
	}
}

// TestGoldenTrees generates each testdata/gen/<case>/opdefs into
// testdata/gen/<case>/out.
func TestGoldenTrees(t *testing.T) {
	cases, _ := filepath.Glob("../../testdata/gen/*/opdefs")
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	for _, c := range cases {
		dir := filepath.Dir(c)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			goldenTree(t, Options{OpDefs: c, Toolchains: repo + "/toolchains", Out: filepath.Join(dir, "out")})
		})
	}
}

// TestGoldenFixtures generates the real QNN configs of shared/fixtures
// into testdata/gen/fixtures/out.
func TestGoldenFixtures(t *testing.T) {
	goldenTree(t, Options{OpDefs: sharedfixtures.Need(t, repo+"/../shared/fixtures/qnn"), Toolchains: repo + "/toolchains", Out: repo + "/testdata/gen/fixtures/out"})
}

// TestGoldenFixturesMore generates the further real configs of
// shared/fixtures/qnn-more (textual defaults, UseQHPI, CPU packages beside
// HTP ones) into testdata/gen/fixtures-more/out.
func TestGoldenFixturesMore(t *testing.T) {
	goldenTree(t, Options{OpDefs: sharedfixtures.Need(t, repo+"/../shared/fixtures/qnn-more"), Toolchains: repo + "/toolchains", Out: repo + "/testdata/gen/fixtures-more/out"})
}

// copyTree copies src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func workspace(t *testing.T) Options {
	t.Helper()
	root := t.TempDir()
	copyTree(t, repo+"/testdata/gen/examples/opdefs", filepath.Join(root, "opdefs"))
	copyTree(t, repo+"/testdata/gen/examples/out", filepath.Join(root, "out"))
	return Options{OpDefs: filepath.Join(root, "opdefs"), Toolchains: repo + "/toolchains", Out: filepath.Join(root, "out")}
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func regen(t *testing.T, o Options) *diag.List {
	t.Helper()
	var l diag.List
	p := Plan(o, &l)
	if p != nil && !l.HasErrors() {
		if _, err := writer.Apply(p); err != nil {
			t.Fatal(err)
		}
	}
	return &l
}

// TestUserEditsSurviveOpdefChanges edits user regions in the C++ kernel
// and the package's reference module, changes the op's signature in the
// opdef, regenerates, and checks every edit is still there and the
// ExecuTorch module (whose eager implementation calls the reference) has
// the new param.
// implEnd ends a new HTP op's impl region: tests put a kernel in its place.
const implEnd = "  return GraphStatus::Success;\n  // opforge:end impl\n"

func TestUserEditsSurviveOpdefChanges(t *testing.T) {
	o := workspace(t)
	cpp := filepath.Join(o.Out, "htp/VisionOps/src/ops/TopKLast.cpp")
	py := filepath.Join(o.Out, "htp/VisionOps/executorch/vision_ops.py")
	ref := filepath.Join(o.Out, "reference/VisionOps/vision_ops_reference.py")
	kernel := "  // my kernel\n  auto [b, l] = std::make_pair(x.dim(0), x.dim(1));\n  (void)b; (void)l;\n  return GraphStatus::Success;\n"
	edit(t, cpp, implEnd, kernel+"  // opforge:end impl\n")
	edit(t, cpp, "  return 0.0f;\n", "  return 2.5f; // measured\n")
	edit(t, cpp, "// opforge:begin includes\n", "// opforge:begin includes\n#include <utility>\n")
	reference := "    return torch.topk(x, k, dim=-1, largest=(order == \"largest\"))\n"
	edit(t, ref, "    raise NotImplementedError(\"TopKLast has no reference implementation yet: write it in the region reference:TopKLast of out/reference/VisionOps/vision_ops_reference.py (opforge verify, calibration and quantization need it)\")\n", reference)
	// A new param changes the impl signature, the torch schema and the param order.
	edit(t, filepath.Join(o.OpDefs, "vision/vision_ops.yaml"),
		"      - {name: order, type: enum, values: [largest, smallest], default: largest}\n",
		"      - {name: order, type: enum, values: [largest, smallest], default: largest}\n      - {name: sorted, type: enum, values: [no, yes], default: yes}\n")
	if l := regen(t, o); l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	gotCpp, _ := os.ReadFile(cpp)
	gotPy, _ := os.ReadFile(py)
	gotRef, _ := os.ReadFile(ref)
	for _, want := range []string{kernel, "return 2.5f; // measured", "#include <utility>", "const Tensor& sorted)", `"sorted", false, &sg_opDefaultSorted`} {
		if !strings.Contains(string(gotCpp), want) {
			t.Errorf("TopKLast.cpp lost %q:\n%s", want, gotCpp)
		}
	}
	for _, want := range []string{reference, `def top_k_last(x, *, k, order="largest", sorted="yes"):`} {
		if !strings.Contains(string(gotRef), want) {
			t.Errorf("vision_ops_reference.py lacks %q", want)
		}
	}
	for _, want := range []string{"int order, int sorted) -> (Tensor, Tensor)", "def top_k_last(x, k, order=0, sorted=1):", `"sorted": _enum_value("TopKLast", "sorted", ("no", "yes",), sorted)`} {
		if !strings.Contains(string(gotPy), want) {
			t.Errorf("vision_ops.py lacks %q", want)
		}
	}
	// And the tree is now consistent: no drift.
	var l diag.List
	writer.Diff(mustPlan(t, o), &l)
	if l.HasErrors() {
		t.Errorf("drift after regeneration: %v", l.Sorted())
	}
}

func snapshot(t *testing.T, root string) map[string]string {
	m := map[string]string{}
	_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			m[p] = string(b) + "@" + info.ModTime().String()
		}
		return nil
	})
	return m
}

// TestErrorLeavesOutUntouched: with any error in any opdef, out/ stays
// byte-identical (mtimes included), even though other opdefs changed.
func TestErrorLeavesOutUntouched(t *testing.T) {
	o := workspace(t)
	edit(t, filepath.Join(o.OpDefs, "vision/vision_ops.yaml"), "default: 2, min: 1, max: 8}", "default: 3, min: 1, max: 8}")
	broken := filepath.Join(o.OpDefs, "broken", "broken.yaml")
	_ = os.MkdirAll(filepath.Dir(broken), 0o755)
	_ = os.WriteFile(broken, []byte("version: 1\npackage: {name: Broken, domain: d, version: 1}\nops:\n  - name: Bad\n    outputs: [{name: y, type: T}]\n"), 0o644)
	before := snapshot(t, o.Out)
	l := regen(t, o)
	if !l.HasErrors() {
		t.Fatal("expected an error")
	}
	after := snapshot(t, o.Out)
	if len(before) != len(after) {
		t.Fatalf("file count changed %d -> %d", len(before), len(after))
	}
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s changed", p)
		}
	}
}

// TestAIPUUserEditsSurvive edits the user regions of an AIPU kernel and OPT
// plugin, adds a param to the op, regenerates, and checks every edit is
// still there while the kernel signature, the forward's bindings and the
// GBuilder arguments follow the new param.
func TestAIPUUserEditsSurvive(t *testing.T) {
	o := workspace(t)
	pkg := filepath.Join(o.Out, "aipu/VisionOps")
	cl := filepath.Join(pkg, "kernels/top_k_last.cl")
	opt := filepath.Join(pkg, "opt/aipubt_opt_top_k_last.py")
	kernel := "  int b = get_global_id(0);\n  if (b < B) values[b * k] = x[b * L];\n"
	edit(t, cl, "  // Write the kernel here.\n", kernel)
	edit(t, cl, "// opforge:begin helpers\n", "// opforge:begin helpers\nstatic inline int twice(int v) { return 2 * v; }\n")
	forward := "    out_values, out_indices = torch.topk(x, min(k, L), dim=-1, largest=(order == \"largest\"))\n" +
		"    self.outputs[0].betensor, self.outputs[1].betensor = out_values, out_indices\n"
	edit(t, opt, "    for out, result in zip(self.outputs, results):\n        out.betensor = result\n", forward)
	edit(t, opt, "# opforge:begin imports\n", "# opforge:begin imports\nimport math\n")
	edit(t, filepath.Join(o.OpDefs, "vision/vision_ops.yaml"),
		"      - {name: order, type: enum, values: [largest, smallest], default: largest}\n",
		"      - {name: order, type: enum, values: [largest, smallest], default: largest}\n      - {name: sorted, type: bool, default: true}\n")
	if l := regen(t, o); l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	gotCl, _ := os.ReadFile(cl)
	gotOpt, _ := os.ReadFile(opt)
	gotBuilder, _ := os.ReadFile(filepath.Join(pkg, "builder/aipubt_builder_top_k_last.py"))
	for _, want := range []string{kernel, "static inline int twice(int v)", "    uint order,\n    int sorted,\n    int B,"} {
		if !strings.Contains(string(gotCl), want) {
			t.Errorf("top_k_last.cl lacks %q:\n%s", want, gotCl)
		}
	}
	for _, want := range []string{forward, "import math\n", `sorted = self.get_param("sorted", optional=True, default_value=True)`} {
		if !strings.Contains(string(gotOpt), want) {
			t.Errorf("aipubt_opt_top_k_last.py lacks %q:\n%s", want, gotOpt)
		}
	}
	if !strings.Contains(string(gotBuilder), `ro.append(_raw("int32", _bool(params["sorted"])))  # sorted`) {
		t.Errorf("the GBuilder plugin does not pass sorted:\n%s", gotBuilder)
	}
	var l diag.List
	writer.Diff(mustPlan(t, o), &l)
	if l.HasErrors() {
		t.Errorf("drift after regeneration: %v", l.Sorted())
	}
}

// TestTRTUserEditsSurvive edits the kernel regions of a TensorRT plugin,
// the regions of its plugin class (a member, its copy in clone, a resource
// taken in attachToContext, a narrowed supportsFormatCombination, custom
// tactics) and the Triton kernel of its Python plugin, changes the op (a
// new param, a new dtype: new launchers, a new launch signature),
// regenerates, and checks the user code is still there around the new
// plumbing.
func TestTRTUserEditsSurvive(t *testing.T) {
	o := workspace(t)
	cu := filepath.Join(o.Out, "trt/VisionOps/src/ops/TopKLastKernel.cu")
	py := filepath.Join(o.Out, "trt/VisionOps/python/vision_ops_qdp.py")
	kernel := "template <typename T>\n__global__ void topK(T const* x, T* values, int32_t* indices, int64_t rows, int64_t cols, int32_t k) {}\n"
	edit(t, cu, "// opforge:begin kernels\n", "// opforge:begin kernels\n"+kernel)
	launch := "    topK<<<gridSize(io.x.dims[0], 128), 128, 0, stream>>>(io.x.data, io.values.data, io.indices.data, io.x.dims[0], io.x.dims[1], params.k);\n    return cudaGetLastError();\n"
	edit(t, cu, "    (void) params;\n    (void) workspace;\n    constexpr int32_t kBlock = 256;\n", launch+"    // unreachable default kept below\n    constexpr int32_t kBlock = 256;\n")
	triton := "    # my triton kernel\n"
	edit(t, py, "# opforge:begin triton:TopKLast\n", "# opforge:begin triton:TopKLast\n"+triton)
	ph := filepath.Join(o.Out, "trt/VisionOps/src/ops/TopKLastPlugin.h")
	pc := filepath.Join(o.Out, "trt/VisionOps/src/ops/TopKLastPlugin.cpp")
	member := "    int32_t mTactic{0};\n    void* mScratch{nullptr};\n"
	edit(t, ph, "    // opforge:begin members\n", "    // opforge:begin members\n"+member)
	clone := "        plugin->mTactic = mTactic;\n"
	edit(t, pc, "        // opforge:begin clone\n", "        // opforge:begin clone\n"+clone)
	attach := "    plugin->mScratch = context->getGpuAllocator();\n"
	edit(t, pc, "    // opforge:begin attach\n    (void) context;\n", "    // opforge:begin attach\n"+attach)
	supports := "    if (pos == 0 && inOut[0].desc.type == nvinfer1::DataType::kHALF)\n    {\n        return false;\n    }\n"
	edit(t, pc, "    // opforge:begin supports\n", "    // opforge:begin supports\n"+supports)
	tactics := "    return 2;\n"
	edit(t, pc, "    // opforge:begin nb-tactics\n    return 0;\n", "    // opforge:begin nb-tactics\n"+tactics)
	edit(t, filepath.Join(o.OpDefs, "vision/vision_ops.yaml"),
		"      - {name: order, type: enum, values: [largest, smallest], default: largest}\n",
		"      - {name: order, type: enum, values: [largest, smallest], default: largest}\n      - {name: stable, type: bool, default: false}\n")
	edit(t, filepath.Join(o.OpDefs, "vision/vision_ops.yaml"),
		"  - name: TopKLast\n    description: The k largest (or smallest) values along the last axis, with their indices.\n    types:\n      T: [float32, float16]\n",
		"  - name: TopKLast\n    description: The k largest (or smallest) values along the last axis, with their indices.\n    types:\n      T: [float32, float16, int8]\n")
	if l := regen(t, o); l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	gotCu, _ := os.ReadFile(cu)
	gotPy, _ := os.ReadFile(py)
	for _, want := range []string{kernel, launch, "cudaError_t launchTopKLast_int8("} {
		if !strings.Contains(string(gotCu), want) {
			t.Errorf("TopKLastKernel.cu lacks %q", want)
		}
	}
	for _, want := range []string{triton, "order: str, stable: bool)", `"INT8, INT8, INT32"`} {
		if !strings.Contains(string(gotPy), want) {
			t.Errorf("vision_ops_qdp.py lacks %q", want)
		}
	}
	gotPh, _ := os.ReadFile(ph)
	gotPc, _ := os.ReadFile(pc)
	if !strings.Contains(string(gotPh), member) {
		t.Errorf("TopKLastPlugin.h lacks %q", member)
	}
	for _, want := range []string{clone, attach, supports, "// opforge:begin nb-tactics\n" + tactics, "stable"} {
		if !strings.Contains(string(gotPc), want) {
			t.Errorf("TopKLastPlugin.cpp lacks %q", want)
		}
	}
	header, _ := os.ReadFile(filepath.Join(o.Out, "trt/VisionOps/src/ops/TopKLastKernel.h"))
	if !strings.Contains(string(header), "bool stable{false};") {
		t.Errorf("TopKLastKernel.h lacks the new param:\n%s", header)
	}
	var l diag.List
	writer.Diff(mustPlan(t, o), &l)
	if l.HasErrors() {
		t.Errorf("drift after regeneration: %v", l.Sorted())
	}
}

// TestBuiltInToolchains: in a repository without toolchains/, the
// descriptors built into the binary serve, and the output is the same.
func TestBuiltInToolchains(t *testing.T) {
	goldenTree(t, Options{OpDefs: repo + "/testdata/gen/htp-params/opdefs", Toolchains: filepath.Join(t.TempDir(), "toolchains"), Out: repo + "/testdata/gen/htp-params/out"})
}

// The file set gen writes is refused when no file system could hold it,
// whatever made its names.
func TestCheckWritable(t *testing.T) {
	set := fileset.New()
	_ = set.Add(&fileset.File{Path: "htp/P/src/ops/Foo.cpp", Source: "opdefs/p.yaml"})
	_ = set.Add(&fileset.File{Path: "htp/P/src/ops/foo.cpp", Source: "opdefs/p.yaml"})
	_ = set.Add(&fileset.File{Path: "trt/P/" + strings.Repeat("x", 256) + ".h", Source: "opdefs/p.yaml"})
	// Lowered, the Kelvin sign is an ASCII k: the paths are hashed by
	// their lowered UTF-8, not by their bytes.
	_ = set.Add(&fileset.File{Path: "trt/P/kernel.h", Source: "opdefs/p.yaml"})
	_ = set.Add(&fileset.File{Path: "trt/P/\u212Aernel.h", Source: "opdefs/p.yaml"})
	_ = set.Add(&fileset.File{Path: "trt/P/Other.h", Source: "opdefs/p.yaml"})
	var l diag.List
	checkWritable(set, &l)
	var text strings.Builder
	_ = l.WriteText(&text)
	if n := strings.Count(text.String(), "[path-collision]"); n != 2 {
		t.Errorf("%d path collisions, want 2:\n%s", n, text.String())
	}
	for _, want := range []string{"[path-collision]", "[name-too-long]", "htp/P/src/ops/Foo.cpp and htp/P/src/ops/foo.cpp", "trt/P/kernel.h and trt/P/\u212Aernel.h"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("missing %s in\n%s", want, text.String())
		}
	}
}
