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

// prevalidated counts the ops checkMemo's loads read back as validated.
var prevalidated int

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
		// And a YAML package the store keeps its validated ops for
		// (ir.Package.Validated): what it read back of them is compared
		// here, with the ops validation made without it.
		if gotPkg.Validated != nil {
			for i := range gotPkg.Ops {
				if gotPkg.Validated.Prevalidated(i) {
					prevalidated++
				}
			}
		}
		gotPkg.Validated = nil
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
	prevalidated = 0
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
	if served == 0 || prevalidated == 0 {
		t.Fatalf("%d checks and %d validated ops were taken from the memo: the test checked nothing", served, prevalidated)
	}
	t.Logf("%d opdefs, %d passed shape checks and %d validated ops taken from the memo", len(paths), served, prevalidated)
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
		// An op read back as validated skips its checks, the shape
		// check's memo among them: either way its check is not run.
		before, beforeValidated := chunks.VettedServed("passed "), prevalidated
		checkMemo(t, fmt.Sprintf("step %d", step), "p.yaml", []byte(data), chunks)
		if got := chunks.VettedServed("passed ") - before + prevalidated - beforeValidated; got != 7 && data == edited || got != 8 && data == base {
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

// TestValidatedOpsFollowThePackage: ops read back as validation left
// them (ir.Package.Validated) give the package a fresh validation gives,
// ops whose outputs take their ranks from inputs among them; an edit of
// the file outside its ops validates every op again; and an op with a
// diagnostic of its own is validated (and warns) every time.
func TestValidatedOpsFollowThePackage(t *testing.T) {
	const head = "version: 1\npackage: {name: P, domain: p, version: %s}\nops:\n"
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "  - name: Op%d\n    inputs: [{name: x, type: float32, shape: [N, C]}, {name: z, type: float32, shape: [N, W]}]\n    params: [{name: k, type: int32, default: 2, min: 1}]\n    outputs: [{name: y, type: float32, shape: {like: x}}, {name: w, type: float32, shape: {broadcast: [x, z]}}]\n", i)
	}
	ops := b.String()
	chunks := yamldeftest.NewChunks()
	load := func(step, data string, want int) {
		t.Helper()
		before := prevalidated
		checkMemo(t, step, "p.yaml", []byte(data), chunks)
		if got := prevalidated - before; got != want {
			t.Fatalf("%s: %d ops read back as validated, want %d", step, got, want)
		}
	}
	base := fmt.Sprintf(head, "1.0.0") + ops
	load("first", base, 0)
	load("again", base, 5) // all but the first, which the package's check reads
	bumped := fmt.Sprintf(head, "1.0.1") + ops
	load("package edited", bumped, 0)
	load("package edited, again", bumped, 5)
	warns := strings.Replace(bumped, "name: Op3\n    inputs: [{name: x, type: float32, shape: [N, C]}, {name: z, type: float32, shape: [N, W]}]\n    params: [{name: k, type: int32, default: 2, min: 1}]\n    outputs: [{name: y, type: float32, shape: {like: x}}, {name: w, type: float32, shape: {broadcast: [x, z]}}]",
		"name: Op3\n    inputs: [{name: x, type: float32, shape: [N, C]}, {name: z, type: float32, shape: [N, W]}]\n    params: [{name: k, type: int32, default: 2, min: 0}]\n    outputs: [{name: y, type: float32, shape: {like: x}}, {name: w, type: float32, shape: [N, \"ceil_div(W, k)\"]}]", 1)
	if warns == bumped {
		t.Fatal("the edit did not apply")
	}
	for _, step := range []string{"one op warns", "one op warns, again"} {
		load(step, warns, 4)
		var l diag.List
		ld := Loader{Chunks: chunks}
		pkg := ld.Parse("p.yaml", []byte(warns), &l)
		ld.validate(pkg, &l)
		if !strings.Contains(fmt.Sprint(l.Sorted()), "division-by-zero") {
			t.Fatalf("%s: the op's warning is gone: %v", step, l.Sorted())
		}
	}
}
