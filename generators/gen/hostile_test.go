package gen

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
)

// hostileTexts end literals, comments, docstrings and lines in some
// language opforge emits, or hold bytes its tools refuse.
var hostileTexts = []string{
	`"""`, `"""; import os; os.system("id"); """`, `"); std::abort(); ("`, `\`, `trailing \`, "x\\\nsplice",
	`\x41\u0041\N{DIGIT ONE}`, "nul\x00byte", "ctl\x01\x1b\x7f", "multi\nline\r\ntext", "\u2028sep\u2029\u0085",
	"*/ int x; /*", "??/", "$(shell id) ${X} $$", "#[[ bracket ]]", "<![CDATA[ ]]> &amp; <x/>", "| cell | `tick` ```",
	"# heading", "é€😀\ufeff", "'''", `'`, "coding: latin-1", "%s %n {0}", "\t tab",
}

// hostileOpdef is a package with text in every free-text field of an
// opdef. Enum values must differ from "other"; texts nobody accepts as
// data stay out of the schema-restricted fields.
func hostileOpdef(pkg, text string) []byte {
	q := escape.YAMLString
	// Compass IR key=value lines refuse '=' and line breaks in enum
	// values (aipu-param-value); the rest reaches every target.
	enum := "e" + strings.NewReplacer("=", "-", "\n", " ", "\r", " ").Replace(text)
	return []byte(fmt.Sprintf(`version: 1
package:
  name: %[4]s
  domain: hostile
  version: 1.0.0
  namespace: hostile
  description: %[1]s
targets:
  htp:
    supplemental:
      - backend: HTP
        runtime: %[1]s
        ops:
          - name: Hostile
            inputs: [{name: x, shape_text: %[1]s, constraints: [{id: 0, type: Description, text: %[1]s}]}]
ops:
  - name: Hostile
    description: %[1]s
    references: [{source: %[1]s, url: %[1]s, text: %[1]s}]
    types: {T: [float32, float16]}
    inputs:
      - name: x
        type: T
        shape: [N, C]
        description: %[1]s
        shape_text: %[1]s
        dynamic_shape_text: %[1]s
        constraints: [{id: 0, type: Description, text: %[1]s}]
    params:
      - {name: mode, type: enum, values: [%[2]s, other], default: other, description: %[1]s}
      - {name: first, type: enum, values: [%[2]s, other], default: %[2]s}
      - {name: alpha, type: float32, default: 1.0, description: %[1]s, shape_text: %[1]s}
    outputs:
      - {name: y, type: T, shape: [N, C], description: %[1]s}
    targets:
      trt: {qdp: true}
      htp: {backends: [HTP, %[1]s]}
      aipu: {framework_op: %[3]s, targets: [X2_1204]}
  # String params: ExecuTorch cannot pass them, so no htp.
  - name: Labelled
    description: %[1]s
    inputs:
      - {name: x, type: float32, shape: [N]}
    params:
      - {name: label, type: string, default: %[2]s, description: %[1]s}
    outputs:
      - {name: y, type: float32, shape: [N], description: %[1]s}
    targets:
      trt: {qdp: true}
      aipu: {framework_op: %[5]s, targets: [X2_1204]}
`, q(text), q(enum), q("F"+text), pkg, q("G"+text)))
}

// generateText loads an opdef from bytes and generates every target.
func generateText(t testing.TB, src []byte) (*fileset.Set, *diag.List) {
	t.Helper()
	return generateFile(t, "opdefs/hostile/hostile.yaml", src)
}

// generateFile is generateText for a file name (its extension picks the
// format).
func generateFile(t testing.TB, name string, src []byte) (*fileset.Set, *diag.List) {
	t.Helper()
	var l diag.List
	pkg := load.Parse(name, src, &l)
	if pkg == nil || l.HasErrors() {
		return nil, &l
	}
	load.Validate(pkg, &l)
	registry.Check(&l, pkg)
	if l.HasErrors() {
		return nil, &l
	}
	return Files(pkgsOf(pkg), registry.WithToolchains(repo+"/toolchains"), &l), &l
}

func diagText(l *diag.List) string {
	var buf bytes.Buffer
	_ = l.WriteText(&buf)
	return buf.String()
}

// checkParses runs the checks that need no external tool on every file:
// XML decodes, YAML and JSON unmarshal.
func checkParses(t testing.TB, set *fileset.Set) {
	t.Helper()
	for _, f := range set.Files() {
		switch filepath.Ext(f.Path) {
		case ".xml":
			d := xml.NewDecoder(bytes.NewReader(f.Data))
			for {
				_, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Errorf("%s is not XML: %v", f.Path, err)
					break
				}
			}
		case ".yaml", ".yml":
			var v any
			if err := yaml.Unmarshal(f.Data, &v); err != nil {
				t.Errorf("%s is not YAML: %v", f.Path, err)
			}
		case ".json":
			if !json.Valid(f.Data) {
				t.Errorf("%s is not JSON", f.Path)
			}
		}
	}
}

// writeSet writes set below dir.
func writeSet(t testing.TB, set *fileset.Set, dir string) {
	t.Helper()
	for _, f := range set.Files() {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHostileText puts each hostile text in every free-text field of an
// opdef, generates every target and holds every file to its language's
// tools: Python parses and holds the text as data (docstrings and string
// constants), the TensorRT plugins compile against the real headers, the
// OpenCL kernels pass clang, the Makefiles and CMakeLists parse, XML and
// YAML decode.
func TestHostileText(t *testing.T) {
	dir := t.TempDir()
	if keep := os.Getenv("OPFORGE_KEEP"); keep != "" {
		dir = keep
	}
	var cases []hostileCase
	for i, text := range hostileTexts {
		pkg := fmt.Sprintf("Hostile%d", i)
		set, l := generateText(t, hostileOpdef(pkg, text))
		if set == nil || l.HasErrors() {
			t.Errorf("text %q: generation failed:\n%s", text, diagText(l))
			continue
		}
		checkParses(t, set)
		writeSet(t, set, dir)
		enum := "e" + strings.NewReplacer("=", "-", "\n", " ", "\r", " ").Replace(text)
		cases = append(cases, hostileCase{pkg: pkg, text: text,
			contains: []string{strings.Join(strings.Fields(text), " ")},
			exact:    []string{enum, "F" + text}})
	}
	checkWithTools(t, dir, cases)
}

type hostileCase struct {
	pkg, text       string
	contains, exact []string
}

func pkgsOf(pkg *ir.Package) []*ir.Package { return []*ir.Package{pkg} }
