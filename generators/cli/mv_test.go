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
	opdefs, out, args := examplesWorkspace(t)
	written := map[string]string{ // file after the rename -> a user line that must be there
		"trt/VisionOps/src/ops/TopKAlongLastKernel.cu":      "// my CUDA kernel\n",
		"trt/VisionOps/python/vision_ops_qdp.py":            "    # my Triton kernel\n",
		"reference/VisionOps/vision_ops_reference.py":       "    return torch.topk(x, k)  # my reference\n",
		"htp/VisionOps/src/ops/TopKAlongLast.cpp":           "    // my HTP code\n",
		"aipu/VisionOps/opt/aipubt_opt_top_k_along_last.py": "        pass  # my forward\n",
		"aipu/VisionOps/kernels/top_k_along_last.cl":        "// my OpenCL\n",
	}
	fill := []struct{ before, key, body string }{
		{"trt/VisionOps/src/ops/TopKLastKernel.cu", "kernels", written["trt/VisionOps/src/ops/TopKAlongLastKernel.cu"]},
		{"trt/VisionOps/python/vision_ops_qdp.py", "triton:TopKLast", written["trt/VisionOps/python/vision_ops_qdp.py"]},
		{"reference/VisionOps/vision_ops_reference.py", "reference:TopKLast", written["reference/VisionOps/vision_ops_reference.py"]},
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
		if f.before != "trt/VisionOps/python/vision_ops_qdp.py" && f.before != "reference/VisionOps/vision_ops_reference.py" {
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
		{"ExampleCustomOp", "Other", "defined in an XML config"},
	} {
		code, _, errs := run(append(append([]string{"mv"}, args...), c.from, c.to)...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("mv %s %s: %d %s", c.from, c.to, code, errs)
		}
	}
}

// TestMvPackage: opforge mv package renames a package in its opdef and
// carries its directories and the files named after it, with the code in
// them, to the new name; the other packages are untouched.
func TestMvPackage(t *testing.T) {
	_, out, args := examplesWorkspace(t)
	fillRegion(t, filepath.Join(out, "trt/VisionOps/src/ops/TopKLastKernel.cu"), "kernels", "// my CUDA kernel\n")
	fillRegion(t, filepath.Join(out, "reference/VisionOps/vision_ops_reference.py"), "reference:TopKLast", "    return x  # my reference\n")
	fillRegion(t, filepath.Join(out, "trt/VisionOps/python/vision_ops_qdp.py"), "triton:TopKLast", "    # my Triton kernel\n")
	example, _ := os.ReadFile(filepath.Join(out, "htp/ExampleOpPackage/src/ExampleOpPackageInterface.cpp"))
	code, stdout, errs := run(append(append([]string{"mv"}, args...), "package", "VisionOps", "SightOps")...)
	if code != 0 {
		t.Fatalf("mv package: %d\n%s%s", code, stdout, errs)
	}
	for path, line := range map[string]string{
		"trt/SightOps/src/ops/TopKLastKernel.cu":    "// my CUDA kernel\n",
		"trt/SightOps/python/sight_ops_qdp.py":      "    # my Triton kernel\n",
		"reference/SightOps/sight_ops_reference.py": "    return x  # my reference\n",
	} {
		data, err := os.ReadFile(filepath.Join(out, path))
		if err != nil || !strings.Contains(string(data), line) {
			t.Errorf("%s lost the user's %q (%v)", path, line, err)
		}
	}
	for _, gone := range []string{"trt/VisionOps", "htp/VisionOps", "aipu/VisionOps", "reference/VisionOps"} {
		if entries, _ := os.ReadDir(filepath.Join(out, gone)); len(entries) > 0 {
			t.Errorf("%s still holds files", gone)
		}
	}
	if now, _ := os.ReadFile(filepath.Join(out, "htp/ExampleOpPackage/src/ExampleOpPackageInterface.cpp")); string(now) != string(example) {
		t.Error("another package changed")
	}
	if code, _, errs := run(append([]string{"check"}, args...)...); code != 0 {
		t.Errorf("check after mv package: %s", errs)
	}
}

// TestGenNeverReplacesUnknownFiles: a file gen has no record of writing
// is never replaced without --force — one the user put where a new op's
// file goes, and every file once the manifest that knew them is gone.
func TestGenNeverReplacesUnknownFiles(t *testing.T) {
	root := t.TempDir()
	if code, _, errs := run("init", root); code != 0 {
		t.Fatal(errs)
	}
	t.Chdir(root)
	if code, _, errs := run("gen"); code != 0 {
		t.Fatal(errs)
	}
	// The user's own file where a new op's kernel will go.
	mine := "out/trt/MyOps/src/ops/Gelu2Kernel.cu"
	if err := os.WriteFile(mine, []byte("my own kernel\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opdef := "opdefs/my_ops/my_ops.yaml"
	data, _ := os.ReadFile(opdef)
	gelu := strings.Replace(string(data), "  - name: ScaledSiLU", "  - name: Gelu2\n    inputs:\n      - {name: x, type: float32, shape: [N]}\n    outputs:\n      - {name: y, type: float32, shape: [N]}\n  - name: ScaledSiLU", 1)
	if err := os.WriteFile(opdef, []byte(gelu), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run("gen")
	if now, _ := os.ReadFile(mine); code != 1 || !strings.Contains(errs, "[unknown-file]") || string(now) != "my own kernel\n" {
		t.Fatalf("gen over the user's file: %d %q\n%s", code, now, errs)
	}
	if code, _, errs := run("gen", "--force"); code != 0 {
		t.Fatalf("gen --force: %s", errs)
	}
	// The manifest goes (a bad merge), and code outside any region with
	// it: gen cannot tell it from its own, so it stops.
	kernel := "out/trt/MyOps/src/ops/ScaledSiLUKernel.cu"
	fillRegion(t, filepath.Join(root, kernel), "includes", "#include <my_header.h>\n")
	if code, _, errs := run("gen"); code != 0 {
		t.Fatal(errs)
	}
	text, _ := os.ReadFile(kernel)
	unmarked := strings.Replace(strings.Replace(string(text), "// opforge:begin includes\n", "", 1), "// opforge:end includes\n", "", 1)
	if err := os.WriteFile(kernel, []byte(unmarked), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove("out/opforge.manifest.json"); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run("gen")
	if now, _ := os.ReadFile(kernel); code != 1 || !strings.Contains(errs, "manifest") || !strings.Contains(string(now), "#include <my_header.h>") {
		t.Errorf("gen without the manifest: %d\n%s", code, errs)
	}
}

// What mv renames: an op by default or when named, a package when named,
// with the older --package flag too; anything else is a usage error, not
// a guess (a selection list, as --package is elsewhere, included).
func TestMvOperands(t *testing.T) {
	for _, c := range []struct {
		args           []string
		flag           bool
		what, from, to string
	}{
		{args: []string{"A", "B"}, what: "op", from: "A", to: "B"},
		{args: []string{"op", "A", "B"}, what: "op", from: "A", to: "B"},
		{args: []string{"package", "P", "Q"}, what: "package", from: "P", to: "Q"},
		{args: []string{"P", "Q"}, flag: true, what: "package", from: "P", to: "Q"},
		{args: []string{"package", "P", "Q"}, flag: true, what: "package", from: "P", to: "Q"},
		{args: []string{"op", "A", "B"}, flag: true},        // the flag and the word disagree
		{args: []string{"VisionOps", "A", "B"}, flag: true}, // --package VisionOps A B: not a selection
		{args: []string{"A"}},
		{args: []string{"package", "P"}},
		{args: []string{"op", "package", "P"}, what: "op", from: "package", to: "P"},
	} {
		what, from, to, ok := mvOperands(c.args, c.flag)
		if ok != (c.what != "") || what != c.what || from != c.from || to != c.to {
			t.Errorf("mv %v (--package %v): %q %q %q %v, want %q %q %q", c.args, c.flag, what, from, to, ok, c.what, c.from, c.to)
		}
	}
	if code, _, errs := run("mv", "--package", "VisionOps", "TopKLast", "TopK"); code != 2 || !strings.Contains(errs, "usage: opforge mv [op|package] OLD NEW") {
		t.Errorf("mv --package P OLD NEW: %d %s", code, errs)
	}
}
