package load_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/sharedfixtures"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/targets/htp/qnnxml"
	"github.com/opforge/opforge/generators/yamldef"
)

// fixtureDirs hold the real QNN configs: every one the vendor generator
// accepts must load.
var fixtureDirs = []string{"../../../shared/fixtures/qnn", "../../../shared/fixtures/qnn-more"}

func fixtures(t *testing.T) []string {
	t.Helper()
	var all []string
	for _, dir := range fixtureDirs {
		files, err := load.Files(sharedfixtures.Need(t, dir))
		if err != nil || len(files) == 0 {
			t.Fatalf("no QNN fixtures under %s: %v", dir, err)
		}
		all = append(all, files...)
	}
	return all
}

func mustLoad(t *testing.T, name string, data []byte) *ir.Package {
	t.Helper()
	var l diag.List
	pkg := load.Parse(name, data, &l)
	if pkg != nil {
		load.Validate(pkg, &l)
		registry.Check(&l, pkg)
	}
	if pkg == nil || l.HasErrors() {
		var buf bytes.Buffer
		_ = l.WriteText(&buf)
		t.Fatalf("%s does not load:\n%s", name, buf.String())
	}
	return pkg
}

// TestFixturesLoad: every real QNN config loads unchanged, without errors.
func TestFixturesLoad(t *testing.T) {
	for _, f := range fixtures(t) {
		var l diag.List
		pkg := load.File(f, &l)
		registry.Check(&l, pkg)
		if pkg == nil || l.HasErrors() {
			var buf bytes.Buffer
			_ = l.WriteText(&buf)
			t.Errorf("%s: %s", f, buf.String())
		}
	}
}

// TestRoundTripXMLYAMLXML: XML -> YAML -> XML keeps the meaning of every
// fixture. Meaning is compared through the canonical YAML rendering, which
// writes every field of the IR, and through the canonical XML.
// roundTripGaps are the fixtures whose XML -> YAML -> XML trip is known to
// lose a fact: the YAML format has no place for it yet. They still load
// and generate (TestFixturesLoad, gen's TestGoldenFixturesMore).
var roundTripGaps = map[string]string{
	"SoftmaxOpPackageCpu.xml": "YAML has no place for a textual QNN default (N-1)",
	"TMANOpPackageHtp.xml":    `Domain="" is valid XML but the YAML schema requires a non-empty domain`,
	"CustomOpPackageHtp.xml":  "a multi-line <Content> is re-flowed when the XML writer writes it back",
}

func TestRoundTripXMLYAMLXML(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if why, ok := roundTripGaps[filepath.Base(f)]; ok {
				t.Skipf("known round-trip gap: %s", why)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first := mustLoad(t, "in.xml", data)
			y, err := yamldef.Write(first, "")
			if err != nil {
				t.Fatal(err)
			}
			second := mustLoad(t, "mid.yaml", y)
			var l diag.List
			x, err := qnnxml.Write(second, &l)
			if err != nil || l.HasErrors() {
				t.Fatalf("writing XML: %v %v", err, l.Sorted())
			}
			if l.Len() != 0 {
				t.Errorf("XML-sourced package lost facts on the way back: %v", l.Sorted())
			}
			third := mustLoad(t, "out.xml", x)
			y3, _ := yamldef.Write(third, "")
			if !bytes.Equal(y, y3) {
				t.Errorf("meaning changed:\n--- after XML->YAML\n%s\n--- after XML->YAML->XML\n%s", y, y3)
			}
			var l1 diag.List
			x1, _ := qnnxml.Write(first, &l1)
			if !bytes.Equal(x1, x) {
				t.Errorf("canonical XML differs after the round trip:\n%s\n---\n%s", x1, x)
			}
		})
	}
}

// TestYAMLToXMLNamesLostFacts: converting a YAML package that uses what
// QNN XML cannot say warns about each such fact.
func TestYAMLToXMLNamesLostFacts(t *testing.T) {
	data, err := os.ReadFile("../../testdata/gen/examples/opdefs/vision/vision_ops.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pkg := mustLoad(t, "vision_ops.yaml", data)
	var l diag.List
	if _, err := qnnxml.Write(pkg, &l); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_ = l.WriteText(&buf)
	for _, want := range []string{"no type variables", "symbolic shapes", "data-dependent", "value range", "array length", "the settings of the trt, aipu target(s) are dropped"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no warning mentions %q:\n%s", want, buf.String())
		}
	}
}

// TestYAMLRoundTrip: YAML -> IR -> YAML is a fixed point after one pass.
func TestYAMLRoundTrip(t *testing.T) {
	for _, c := range []struct {
		file string
		// Facts the written YAML must keep.
		keeps []string
	}{
		{"vision/vision_ops.yaml", nil},
		{"nvidia_ports/nvidia_ports.yaml", []string{"range: [0, N - 1]", "R: 8 * N + 8", "- {name: groups3, params: {group: 3, deformable_group: 3}}", "CO: group * (CG + 1)", "atol: 0.0001", "dtype_code: trt", "codes: [0, 1, 3, 7]", "dtype_param: type_id"}},
		// Per-target narrowing and acknowledgements are written back.
		{"../../narrowed/opdefs/narrow/narrow_ops.yaml", []string{"types: {T: [float32, float16]}", "ranks: {x: [1, 4]}", "types: {mask: [int32], T: [float16]}", "acknowledge: [qdp-default]"}},
	} {
		data, err := os.ReadFile("../../testdata/gen/examples/opdefs/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		y1, _ := yamldef.Write(mustLoad(t, "a.yaml", data), "")
		y2, _ := yamldef.Write(mustLoad(t, "b.yaml", y1), "")
		if !bytes.Equal(y1, y2) {
			t.Errorf("%s: YAML writer is not stable:\n%s\n---\n%s", c.file, y1, y2)
		}
		for _, k := range c.keeps {
			if !bytes.Contains(y1, []byte(k)) {
				t.Errorf("%s: the written YAML lost %q:\n%s", c.file, k, y1)
			}
		}
	}
}

// TestHTPSectionRoundTrips: the htp target's options survive the canonical
// writer, torch_name included (the writer dropped it while the options
// were typed in ir), and the defaults are left out.
func TestHTPSectionRoundTrips(t *testing.T) {
	src := `version: 1
package: {name: P, domain: example, version: 1.0.0}
targets:
  htp: {interface_style: legacy, executorch: false}
ops:
  - name: A
    inputs: [{name: x, type: float32, shape: [N]}]
    outputs: [{name: y, type: float32, shape: [N]}]
    targets: {htp: {backends: [HTP, CPU], torch_name: a_op}}
  - name: B
    inputs: [{name: x, type: float32, shape: [N]}]
    outputs: [{name: y, type: float32, shape: [N]}]
    targets: {htp: {backends: [HTP]}}
`
	pkg := mustLoad(t, "p.yaml", []byte(src))
	y, err := yamldef.Write(pkg, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"interface_style: legacy", "executorch: false", "htp: {backends: [HTP, CPU], torch_name: a_op}", "htp: {}"} {
		if !strings.Contains(string(y), want) {
			t.Errorf("written opdef lacks %q:\n%s", want, y)
		}
	}
	again := mustLoad(t, "p2.yaml", y)
	y2, _ := yamldef.Write(again, "")
	if !bytes.Equal(y, y2) {
		t.Errorf("not a fixed point:\n%s\n---\n%s", y, y2)
	}
}
