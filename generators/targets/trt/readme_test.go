package trt

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeSnippetsRun runs the Python snippets of every golden package
// README as written (testdata/trt/readme_snippets.py): the ONNX node
// passes onnx.checker in a model importing its domain, every nvtripy call
// is taken by exactly the intended overload of the real tp.plugin
// (nvtripy's own dispatch), and add_plugin_v3 gets the shape tensors in
// its second list. A README in the old positional nvtripy form must fail.
func TestReadmeSnippetsRun(t *testing.T) {
	py := python(t)
	if out, err := exec.Command(py, "-c", "import onnx, importlib.util as u; assert u.find_spec('nvtripy')").CombinedOutput(); err != nil {
		t.Skipf("%s lacks onnx or nvtripy (testdata/requirements*.txt; go tool mage test installs them): %s", py, strings.TrimSpace(string(out)))
	}
	script := filepath.Join(repo, "testdata", "trt", "readme_snippets.py")
	var readmes []string
	for _, p := range packages(t) {
		readmes = append(readmes, filepath.Join(p.dir, "README.md"))
	}
	out, err := exec.Command(py, append([]string{script}, readmes...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"onnx.checker accepts", "dispatches to the C++ plugin form", "dispatches to the Python plugin form", "takes 1 shape tensor(s) in the second list"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no snippet checked %q:\n%s", want, out)
		}
	}

	// The harness must fail a call both overloads take.
	data, err := os.ReadFile(readmes[0])
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(t.TempDir(), "Pkg", "README.md")
	if err := os.MkdirAll(filepath.Dir(broken), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte(strings.ReplaceAll(string(data), "tp.plugin(name=", "tp.plugin(")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(py, script, broken).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "dispatches") {
		t.Fatalf("the positional nvtripy call passed the harness: %v\n%s", err, out)
	}
}
