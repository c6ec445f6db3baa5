package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fillRegion puts body into the region key of the file at path.
func fillRegion(t *testing.T, path, key, body string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	begin := strings.Index(text, "opforge:begin "+key+"\n")
	if begin < 0 {
		t.Fatalf("%s has no region %s", path, key)
	}
	lineEnd := begin + strings.Index(text[begin:], "\n") + 1
	end := strings.Index(text[lineEnd:], "opforge:end "+key) + lineEnd
	endLine := strings.LastIndex(text[:end], "\n") + 1
	text = text[:lineEnd] + body + text[endLine:]
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMvCarriesUserCode: opforge mv renames an op in its opdef and carries
// the code written for it — in its own files (renamed) and in the
// package-wide files (region keys renamed) — to the new name, on every
// target; afterwards the tree is exactly what the opdefs generate.
func TestMvCarriesUserCode(t *testing.T) {
	root := t.TempDir()
	opdefs, out := filepath.Join(root, "opdefs"), filepath.Join(root, "out")
	if err := os.CopyFS(opdefs, os.DirFS("../../testdata/gen/examples/opdefs")); err != nil {
		t.Fatal(err)
	}
	args := []string{"--opdefs", opdefs, "--toolchains", "../../toolchains", "--out", out}
	if code, _, errs := run(append([]string{"gen", "--cache", filepath.Join(root, "build", "c.json")}, args...)...); code != 0 {
		t.Fatal(errs)
	}
	written := map[string]string{ // file after the rename -> a user line that must be there
		"trt/VisionOps/src/ops/TopKAlongLastKernel.cu":      "// my CUDA kernel\n",
		"trt/VisionOps/python/vision_ops_qdp.py":            "    # my Triton kernel\n",
		"htp/VisionOps/executorch/vision_ops.py":            "    return torch.topk(x, k)  # my reference\n",
		"htp/VisionOps/src/ops/TopKAlongLast.cpp":           "    // my HTP code\n",
		"aipu/VisionOps/opt/aipubt_opt_top_k_along_last.py": "        pass  # my forward\n",
		"aipu/VisionOps/kernels/top_k_along_last.cl":        "// my OpenCL\n",
	}
	fill := []struct{ before, key, body string }{
		{"trt/VisionOps/src/ops/TopKLastKernel.cu", "kernels", written["trt/VisionOps/src/ops/TopKAlongLastKernel.cu"]},
		{"trt/VisionOps/python/vision_ops_qdp.py", "triton:TopKLast", written["trt/VisionOps/python/vision_ops_qdp.py"]},
		{"htp/VisionOps/executorch/vision_ops.py", "reference:TopKLast", written["htp/VisionOps/executorch/vision_ops.py"]},
		{"htp/VisionOps/src/ops/TopKLast.cpp", "impl", written["htp/VisionOps/src/ops/TopKAlongLast.cpp"]},
		{"aipu/VisionOps/opt/aipubt_opt_top_k_last.py", "forward", written["aipu/VisionOps/opt/aipubt_opt_top_k_along_last.py"]},
		{"aipu/VisionOps/kernels/top_k_last.cl", "kernel", written["aipu/VisionOps/kernels/top_k_along_last.cl"]},
	}
	for _, f := range fill {
		fillRegion(t, filepath.Join(out, f.before), f.key, f.body)
	}
	code, stdout, errs := run(append(append([]string{"mv"}, args...), "TopKLast", "TopKAlongLast")...)
	if code != 0 {
		t.Fatalf("mv: %d\n%s%s", code, stdout, errs)
	}
	for path, line := range written {
		data, err := os.ReadFile(filepath.Join(out, path))
		if err != nil || !strings.Contains(string(data), line) {
			t.Errorf("%s lost the user's %q (%v)", path, line, err)
		}
	}
	for _, f := range fill {
		if f.before != "trt/VisionOps/python/vision_ops_qdp.py" && f.before != "htp/VisionOps/executorch/vision_ops.py" {
			if _, err := os.Stat(filepath.Join(out, f.before)); !os.IsNotExist(err) {
				t.Errorf("%s is still there: %v", f.before, err)
			}
		}
	}
	opdef, _ := os.ReadFile(filepath.Join(opdefs, "vision", "vision_ops.yaml"))
	if !strings.Contains(string(opdef), "- name: TopKAlongLast\n") || strings.Contains(string(opdef), "TopKLast\n") {
		t.Errorf("the opdef was not renamed")
	}
	if code, _, errs := run(append([]string{"check"}, args...)...); code != 0 {
		t.Errorf("check after mv: %s", errs)
	}
	// A tree that differs from what the opdefs generate is not renamed.
	fillRegion(t, filepath.Join(out, "trt/VisionOps/src/ops/RoiAlignLiteKernel.cu"), "kernels", "// edited\n")
	data, _ := os.ReadFile(filepath.Join(out, "trt/VisionOps/src/ops/RoiAlignLitePlugin.cpp"))
	_ = os.WriteFile(filepath.Join(out, "trt/VisionOps/src/ops/RoiAlignLitePlugin.cpp"), append(data, "// hand edit\n"...), 0o644)
	code, _, errs = run(append(append([]string{"mv"}, args...), "RoiAlignLite", "RoiAlign")...)
	if code != 1 || !strings.Contains(errs, "run opforge gen first") {
		t.Errorf("mv on a drifted tree: %d %s", code, errs)
	}
	for _, c := range []struct{ from, to, want string }{
		{"NoSuchOp", "X", "no op NoSuchOp"},
		{"PadCropResize", "RoiAlignLite", "already has an op RoiAlignLite"},
		{"ExampleCustomOp", "Other", "QNN XML config"},
	} {
		code, _, errs := run(append(append([]string{"mv"}, args...), c.from, c.to)...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("mv %s %s: %d %s", c.from, c.to, code, errs)
		}
	}
}

// TestMvPackage: opforge mv --package renames a package in its opdef and
// carries its directories and the files named after it, with the code in
// them, to the new name; the other packages are untouched.
func TestMvPackage(t *testing.T) {
	root := t.TempDir()
	opdefs, out := filepath.Join(root, "opdefs"), filepath.Join(root, "out")
	if err := os.CopyFS(opdefs, os.DirFS("../../testdata/gen/examples/opdefs")); err != nil {
		t.Fatal(err)
	}
	args := []string{"--opdefs", opdefs, "--toolchains", "../../toolchains", "--out", out}
	if code, _, errs := run(append([]string{"gen", "--cache", filepath.Join(root, "build", "c.json")}, args...)...); code != 0 {
		t.Fatal(errs)
	}
	fillRegion(t, filepath.Join(out, "trt/VisionOps/src/ops/TopKLastKernel.cu"), "kernels", "// my CUDA kernel\n")
	fillRegion(t, filepath.Join(out, "htp/VisionOps/executorch/vision_ops.py"), "reference:TopKLast", "    return x  # my reference\n")
	fillRegion(t, filepath.Join(out, "trt/VisionOps/python/vision_ops_qdp.py"), "triton:TopKLast", "    # my Triton kernel\n")
	example, _ := os.ReadFile(filepath.Join(out, "htp/ExampleOpPackage/src/ExampleOpPackageInterface.cpp"))
	code, stdout, errs := run(append(append([]string{"mv", "--package"}, args...), "VisionOps", "SightOps")...)
	if code != 0 {
		t.Fatalf("mv --package: %d\n%s%s", code, stdout, errs)
	}
	for path, line := range map[string]string{
		"trt/SightOps/src/ops/TopKLastKernel.cu": "// my CUDA kernel\n",
		"trt/SightOps/python/sight_ops_qdp.py":   "    # my Triton kernel\n",
		"htp/SightOps/executorch/sight_ops.py":   "    return x  # my reference\n",
	} {
		data, err := os.ReadFile(filepath.Join(out, path))
		if err != nil || !strings.Contains(string(data), line) {
			t.Errorf("%s lost the user's %q (%v)", path, line, err)
		}
	}
	for _, gone := range []string{"trt/VisionOps", "htp/VisionOps", "aipu/VisionOps"} {
		if entries, _ := os.ReadDir(filepath.Join(out, gone)); len(entries) > 0 {
			t.Errorf("%s still holds files", gone)
		}
	}
	if now, _ := os.ReadFile(filepath.Join(out, "htp/ExampleOpPackage/src/ExampleOpPackageInterface.cpp")); string(now) != string(example) {
		t.Error("another package changed")
	}
	if code, _, errs := run(append([]string{"check"}, args...)...); code != 0 {
		t.Errorf("check after mv --package: %s", errs)
	}
}
