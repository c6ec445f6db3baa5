package yamldef_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/yamldef"
)

// FuzzLoadYAML: no input makes the loader, the checks or the writer panic,
// and whatever loads without errors writes out and loads again.
func FuzzLoadYAML(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/gen/examples/opdefs/*/*.yaml")
	more, _ := filepath.Glob("../../testdata/diagnostics/*/*.yaml")
	for _, s := range append(seeds, more...) {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("version: 1\npackage: {name: P, domain: d, version: 1}\nops: [{name: A, outputs: [{name: y, type: T, shape: [\"min(N\"]}]}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var l diag.List
		pkg := load.Parse("f.yaml", data, &l)
		if pkg == nil {
			if !l.HasErrors() {
				t.Fatal("no package and no error")
			}
			return
		}
		load.Validate(pkg, &l)
		registry.Check(&l, pkg)
		if l.HasErrors() {
			return
		}
		out, err := yamldef.Write(pkg, "")
		if err != nil {
			t.Fatal(err)
		}
		var l2 diag.List
		if load.Parse("g.yaml", out, &l2) == nil || l2.HasErrors() {
			t.Fatalf("written package does not load again: %v\n%s", l2.Sorted(), out)
		}
		if formatted, ok := yamldef.Format("f.yaml", data, &diag.List{}); ok {
			again, _ := yamldef.Format("f.yaml", formatted, &diag.List{})
			if string(again) != string(formatted) {
				t.Fatalf("fmt is not idempotent:\n%s\n---\n%s", formatted, again)
			}
		}
	})
}
