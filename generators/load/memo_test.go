package load

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/yamldef/yamldeftest"
)

// checkMemo holds a load with what chunks remembers to a load without:
// the same package and the same diagnostics.
func checkMemo(t *testing.T, name, path string, data []byte, chunks *yamldeftest.Chunks) {
	t.Helper()
	var want, got diag.List
	wantPkg := Parse(path, data, &want)
	if wantPkg != nil {
		Validate(wantPkg, &want)
	}
	ld := Loader{Chunks: chunks}
	gotPkg := ld.Parse(path, data, &got)
	if gotPkg != nil {
		ld.validate(gotPkg, &got)
	}
	if fmt.Sprint(got.Sorted()) != fmt.Sprint(want.Sorted()) {
		t.Fatalf("%s: with the memo %v\nwithout %v", name, got.Sorted(), want.Sorted())
	}
	// The one difference: the package hands the targets' checks the
	// store (ir.Package.Checked; TestCheckedIsNotChecked in registry).
	if gotPkg != nil {
		if gotPkg.Checked == nil {
			t.Fatalf("%s: a package loaded with a store gives the targets' checks none", name)
		}
		gotPkg.Checked = nil
	}
	if !reflect.DeepEqual(gotPkg, wantPkg) {
		t.Fatalf("%s: the package loaded with the memo differs", name)
	}
}

// TestMemoIsNoMemo: every YAML opdef of the diagnostics cases (each made
// to fail one check, the shape checks' among them) and of testdata's
// opdefs, loaded a first time into a memo and then from it, gives the
// package and the diagnostics a load without the memo gives.
func TestMemoIsNoMemo(t *testing.T) {
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
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		chunks := yamldeftest.NewChunks()
		checkMemo(t, path, path, data, chunks)
		checkMemo(t, path+" again", path, data, chunks)
		served += chunks.VettedServed("passed ")
	}
	if served == 0 {
		t.Fatal("no check was taken from the memo: the test checked nothing")
	}
	t.Logf("%d opdefs, %d passed shape checks taken from the memo", len(paths), served)
}

// TestMemoKeepsWarnings: an op edited so its shape check warns is checked
// (and warns) though the others' shape checks come from the memo, and is
// not remembered as passed until the edit is undone.
func TestMemoKeepsWarnings(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\npackage: {name: P, domain: p, version: 1.0.0}\nops:\n")
	for i := range 8 {
		fmt.Fprintf(&b, "  - name: Op%d\n    inputs: [{name: x, type: float32, shape: [N, W]}]\n    params: [{name: k, type: int32, default: 2, min: 1}]\n    outputs: [{name: y, type: float32, shape: [N, \"ceil_div(W, k)\"]}]\n", i)
	}
	base := b.String()
	chunks := yamldeftest.NewChunks()
	checkMemo(t, "first", "p.yaml", []byte(base), chunks)
	edited := strings.Replace(base, "name: Op5\n    inputs: [{name: x, type: float32, shape: [N, W]}]\n    params: [{name: k, type: int32, default: 2, min: 1}]", "name: Op5\n    inputs: [{name: x, type: float32, shape: [N, W]}]\n    params: [{name: k, type: int32, default: 2, min: 0}]", 1)
	if edited == base {
		t.Fatal("the edit did not apply")
	}
	for step, data := range []string{edited, edited, base} {
		before := chunks.VettedServed("passed ")
		checkMemo(t, fmt.Sprintf("step %d", step), "p.yaml", []byte(data), chunks)
		if got := chunks.VettedServed("passed ") - before; got != 7 && data == edited || got != 8 && data == base {
			t.Errorf("step %d: %d shape checks from the memo", step, got)
		}
	}
	var l diag.List
	ld := Loader{Chunks: chunks}
	pkg := ld.Parse("p.yaml", []byte(edited), &l)
	ld.validate(pkg, &l)
	if !strings.Contains(fmt.Sprint(l.Sorted()), "p.yaml:27:") || !strings.Contains(fmt.Sprint(l.Sorted()), "division-by-zero") {
		t.Errorf("the edited op's warning: %v", l.Sorted())
	}
}
