package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/yamldef/yamldeftest"
)

// TestCheckedIsNotChecked: every YAML opdef of the diagnostics cases (a
// good part of them made to fail one target check) and of testdata's
// generator trees, loaded and checked a first time into a store
// (ir.Package.Checked) and then from it, gives the diagnostics a check
// without the store gives: a target check taken from the store is one
// that passed clean, and its warnings outside the op's own check (the
// TensorRT Python plugin's defaults) are made again.
func TestCheckedIsNotChecked(t *testing.T) {
	var paths []string
	for _, pattern := range []string{"../../testdata/diagnostics/*/*.yaml", "../../testdata/*/opdefs/*/*.yaml", "../../testdata/*/*/opdefs/*/*.yaml"} {
		m, _ := filepath.Glob(pattern)
		paths = append(paths, m...)
	}
	if len(paths) < 100 {
		t.Fatalf("only %d opdefs found", len(paths))
	}
	served := 0
	for _, path := range paths {
		var want diag.List
		Check(&want, load.Paths([]string{path}, &want)...)
		chunks := yamldeftest.NewChunks()
		for _, pass := range []string{"first", "again"} {
			var got diag.List
			ld := load.Loader{Chunks: chunks}
			Check(&got, ld.Paths([]string{path}, &got)...)
			if fmt.Sprint(got.Sorted()) != fmt.Sprint(want.Sorted()) {
				t.Fatalf("%s (%s): with the store %v\nwithout %v", path, pass, got.Sorted(), want.Sorted())
			}
		}
		served += chunks.VettedServed("checked ")
	}
	if served == 0 {
		t.Fatal("no op's check was taken from the store: the test checked nothing")
	}
	t.Logf("%d opdefs, %d target checks of ops taken from the store", len(paths), served)
}

// TestCheckedAcrossEdits: with the store kept across edits, as gen keeps
// it, an op edited between loads is checked again while the others' checks
// come from the store, and an op whose check reports something is never
// taken from it: each load gives the diagnostics a check without the store
// gives.
func TestCheckedAcrossEdits(t *testing.T) {
	op := func(i int, desc, param string) string {
		return fmt.Sprintf("  - name: Op%d\n    description: %s\n    inputs: [{name: x, type: float32, shape: [N, W]}]\n    params: [{name: %s, type: int32, default: 2, min: 1}]\n    outputs: [{name: y, type: float32, shape: [N, W]}]\n    targets: {trt: {}}\n", i, desc, param)
	}
	file := func(edit func(i int) (desc, param string)) []byte {
		var b strings.Builder
		b.WriteString("version: 1\npackage: {name: P, domain: p, version: 1.0.0}\nops:\n")
		for i := range 8 {
			desc, param := edit(i)
			b.WriteString(op(i, desc, param))
		}
		return []byte(b.String())
	}
	steps := []struct {
		name string
		edit func(i int) (desc, param string)
	}{
		// Op3's param has a name the TensorRT ONNX parser reads itself.
		{"first", func(i int) (string, string) {
			return "One.", map[bool]string{true: "plugin_version", false: "k"}[i == 3]
		}},
		{"another op edited", func(i int) (string, string) {
			return map[bool]string{true: "Edited.", false: "One."}[i == 5], map[bool]string{true: "plugin_version", false: "k"}[i == 3]
		}},
		{"the reported op fixed", func(i int) (string, string) { return map[bool]string{true: "Edited.", false: "One."}[i == 5], "k" }},
		{"reported again", func(i int) (string, string) {
			return "One.", map[bool]string{true: "plugin_version", false: "k"}[i == 3]
		}},
	}
	chunks := yamldeftest.NewChunks()
	path := filepath.Join(t.TempDir(), "p.yaml")
	for _, step := range steps {
		data := file(step.edit)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var want, got diag.List
		Check(&want, load.Paths([]string{path}, &want)...)
		before := chunks.VettedServed("checked ")
		ld := load.Loader{Chunks: chunks}
		Check(&got, ld.Paths([]string{path}, &got)...)
		if fmt.Sprint(got.Sorted()) != fmt.Sprint(want.Sorted()) {
			t.Fatalf("%s: with the store %v\nwithout %v", step.name, got.Sorted(), want.Sorted())
		}
		if step.name != "first" && chunks.VettedServed("checked ") == before {
			t.Fatalf("%s: no op's check was taken from the store", step.name)
		}
		if !strings.Contains(fmt.Sprint(want.Sorted()), "trt-param-name") != (step.name == "the reported op fixed") {
			t.Fatalf("%s: the case's diagnostics are not what it is about: %v", step.name, want.Sorted())
		}
	}
}
