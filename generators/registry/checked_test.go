package registry

import (
	"fmt"
	"path/filepath"
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
