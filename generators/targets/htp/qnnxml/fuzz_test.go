package qnnxml_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/targets/htp/qnnxml"
)

// FuzzLoadXML: no input makes the loader, the checks or the writer panic,
// and whatever loads without errors writes out and loads again.
func FuzzLoadXML(f *testing.F) {
	seeds, _ := filepath.Glob("../../../../../shared/fixtures/qnn/*/*.xml")
	more, _ := filepath.Glob("../../../../testdata/diagnostics/*/*.xml")
	for _, s := range append(seeds, more...) {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				panic(fmt.Sprintf("loading took over 3s: %q", data))
			}
		}()
		var l diag.List
		pkg := load.Parse("f.xml", data, &l)
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
		out, err := qnnxml.Write(pkg, &l)
		if err != nil || l.HasErrors() {
			return
		}
		var l2 diag.List
		if load.Parse("g.xml", out, &l2) == nil || l2.HasErrors() {
			t.Fatalf("written package does not load again: %v\n%s", l2.Sorted(), out)
		}
	})
}
