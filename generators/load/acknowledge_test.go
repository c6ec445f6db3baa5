package load_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
)

// warnRE finds the warning codes the sources can emit.
var warnRE = regexp.MustCompile(`Warnf\(.*?, "([a-z][a-z0-9-]+)", "`)

// notAcknowledgeable are warnings an opdef cannot acknowledge, and why.
var notAcknowledgeable = map[string]string{
	"acknowledge-stale":        "about an acknowledgement itself",
	"no-opdefs":                "about the opdefs tree, not a file",
	"onnx-select":              "about an ONNX model",
	"stale-unverified":         "about the generated tree",
	"toolchain":                "about a toolchain descriptor",
	"executorch-assumed-shape": "reported while generating, after acknowledgements apply (and only for QNN XML, which has none)",
	"qnn-xml-lossy":            "reported by convert's XML writer",
}

// TestAcknowledgeableWarnings holds registry.AcknowledgeableWarnings() to
// the sources: every warning a loaded opdef's checks report is listed
// (or named above with why not), and every listed code is a warning.
func TestAcknowledgeableWarnings(t *testing.T) {
	emitted := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		for _, m := range warnRE.FindAllSubmatch(src, -1) {
			emitted[string(m[1])] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for code := range emitted {
		if _, why := notAcknowledgeable[code]; !why && !slices.Contains(registry.AcknowledgeableWarnings(), code) {
			t.Errorf("warning %q is neither in registry.AcknowledgeableWarnings() nor in notAcknowledgeable", code)
		}
	}
	for _, code := range registry.AcknowledgeableWarnings() {
		if !emitted[code] {
			t.Errorf("registry.AcknowledgeableWarnings() lists %q, which no Warnf reports", code)
		}
	}
}

// TestAcknowledgedInJSON: an acknowledged warning leaves the text output
// for one count line, while JSON still lists it, marked.
func TestAcknowledgedInJSON(t *testing.T) {
	dir := filepath.Join(casesDir, "acknowledge-stale")
	files, err := load.Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	var l diag.List
	registry.Check(&l, load.Paths(files, &l)...)
	var js bytes.Buffer
	if err := l.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var ds []struct {
		Severity     string
		Code         string
		Acknowledged bool
	}
	if err := json.Unmarshal(js.Bytes(), &ds); err != nil {
		t.Fatal(err)
	}
	acked, warnings := 0, 0
	for _, d := range ds {
		if d.Severity == "warning" {
			warnings++
		}
		if d.Acknowledged {
			acked++
			if d.Severity != "warning" || d.Code != "qdp-default" {
				t.Errorf("acknowledged %+v", d)
			}
		}
	}
	var text bytes.Buffer
	if err := l.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if acked == 0 || strings.Contains(text.String(), "Gain must pass") || !strings.Contains(text.String(), "acknowledged warning(s) not shown") {
		t.Errorf("%d acknowledged in JSON; text output:\n%s", acked, text.String())
	}
	if _, shown := l.Counts(); shown+acked != warnings {
		t.Errorf("Counts gives %d warnings beside %d acknowledged of %d", shown, acked, warnings)
	}
}
