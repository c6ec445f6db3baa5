package load

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir/ircodec"
	"github.com/opforge/opforge/generators/yamldef/yamldeftest"
)

// checkMemo holds a load with what chunks remembers to a load without:
// the same package and the same diagnostics. It returns how many ops the
// load read back as validated.
func checkMemo(t *testing.T, name, path string, data []byte, chunks *yamldeftest.Chunks) (prevalidated int) {
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
			for _, op := range gotPkg.Ops {
				if gotPkg.Validated.Prevalidated(op) {
					prevalidated++
				}
			}
		}
		gotPkg.Validated = nil
	}
	if !reflect.DeepEqual(gotPkg, wantPkg) {
		t.Fatalf("%s: the package loaded with the memo differs", name)
	}
	return prevalidated
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
	served, prevalidated := 0, 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		chunks := yamldeftest.NewChunks()
		checkMemo(t, path, path, data, chunks)
		prevalidated += checkMemo(t, path+" again", path, data, chunks)
		served += chunks.VettedServed("passed ")
		checkCleanOpsPrevalidated(t, path, data, chunks)
	}
	if served == 0 || prevalidated == 0 {
		t.Fatalf("%d checks and %d validated ops were taken from the memo: the test checked nothing", served, prevalidated)
	}
	t.Logf("%d opdefs, %d passed shape checks and %d validated ops taken from the memo", len(paths), served, prevalidated)
}

// checkCleanOpsPrevalidated: every op of a YAML opdef past the first
// (which the package's check reads) that validation passes with no
// diagnostic in its lines, and that the codec carries, is read back
// prevalidated by a load from chunks, which a load of it has filled.
func checkCleanOpsPrevalidated(t *testing.T, path string, data []byte, chunks *yamldeftest.Chunks) {
	t.Helper()
	var l diag.List
	ld := Loader{Chunks: chunks}
	pkg := ld.Parse(path, data, &l)
	if pkg == nil || pkg.Validated == nil {
		return
	}
	pre := make([]bool, len(pkg.Ops))
	for i, op := range pkg.Ops {
		pre[i] = pkg.Validated.Prevalidated(op)
	}
	ld.validate(pkg, &l)
	for i, op := range pkg.Ops {
		if i == 0 || pre[i] {
			continue
		}
		if _, ok := ircodec.Encode(op, path, op.Pos.Line, op.LastLine); !ok {
			continue
		}
		own := slices.ContainsFunc(l.Sorted(), func(d diag.Diagnostic) bool {
			return d.Pos.File == path && d.Pos.Line >= op.Pos.Line && d.Pos.Line <= op.LastLine
		})
		if !own {
			t.Errorf("%s: op %s passed validation clean and was not read back prevalidated", path, op.Name)
		}
	}
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
		before := chunks.VettedServed("passed ")
		prevalidated := checkMemo(t, fmt.Sprintf("step %d", step), "p.yaml", []byte(data), chunks)
		if got := chunks.VettedServed("passed ") - before + prevalidated; got != 7 && data == edited || got != 8 && data == base {
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
// ops whose outputs take their ranks from inputs among them, also after
// an edit of the file outside its ops (which their own checks do not
// read); and an op with a diagnostic of its own is validated (and warns)
// every time.
func TestValidatedOpsFollowThePackage(t *testing.T) {
	const head = "version: 1\npackage: {name: P, domain: p, version: %s}\nops:\n"
	const op = "  - name: Op%d\n    inputs: [{name: x, type: float32, shape: [N, C]}, {name: z, type: float32, shape: [N, W]}]\n    params: [{name: k, type: int32, default: 2, min: %d}]\n    outputs: [{name: y, type: float32, shape: {like: x}}, {name: w, type: float32, shape: %s}]\n"
	ops := func(warns int) string {
		var b strings.Builder
		for i := range 6 {
			if i == warns {
				fmt.Fprintf(&b, op, i, 0, `[N, "ceil_div(W, k)"]`)
				continue
			}
			fmt.Fprintf(&b, op, i, 1, "{broadcast: [x, z]}")
		}
		return b.String()
	}
	chunks := yamldeftest.NewChunks()
	load := func(step, data string, want int) {
		t.Helper()
		if got := checkMemo(t, step, "p.yaml", []byte(data), chunks); got != want {
			t.Fatalf("%s: %d ops read back as validated, want %d", step, got, want)
		}
	}
	base := fmt.Sprintf(head, "1.0.0") + ops(-1)
	load("first", base, 0)
	load("again", base, 5) // all but the first, which the package's check reads
	load("package edited", fmt.Sprintf(head, "1.0.1")+ops(-1), 5)
	warns := fmt.Sprintf(head, "1.0.1") + ops(3)
	for step, want := range []int{4, 4} {
		models := chunks.VettedServed("model ")
		load(fmt.Sprintf("one op warns, %d", step), warns, want)
		// The op that warns is kept as built (built again from its text,
		// validation having changed it) and read back so the second time.
		if got := chunks.VettedServed("model ") - models; got != step {
			t.Fatalf("step %d: %d models as built read back, want %d", step, got, step)
		}
		var l diag.List
		ld := Loader{Chunks: chunks}
		pkg := ld.Parse("p.yaml", []byte(warns), &l)
		ld.validate(pkg, &l)
		if !strings.Contains(fmt.Sprint(l.Sorted()), "division-by-zero") {
			t.Fatalf("step %d: the op's warning is gone: %v", step, l.Sorted())
		}
	}
}

// onnxOpsFile is the path and text of an opdef in dir with three ops
// imported from the ONNX model m.onnx there.
func onnxOpsFile(dir string) (string, []byte) {
	var b strings.Builder
	b.WriteString("version: 1\npackage: {name: P, domain: p, version: 1.0.0}\nops:\n")
	for _, n := range []string{"A", "B", "C"} {
		b.WriteString("  - name: " + n + "\n    onnx: {model: m.onnx, op_type: Relu}\n    inputs: [{name: x, type: float32, shape: [N]}]\n    outputs: [{name: y, type: float32, shape: [N]}]\n")
	}
	return filepath.Join(dir, "p.yaml"), []byte(b.String())
}

// TestValidatedOpsSeeTheONNXModelGo: found by an independent review. An
// op's check of its ONNX origin reads the file system, which no key of a
// validated op covers: an op read back as validated still warns once the
// model it was imported from is gone.
func TestValidatedOpsSeeTheONNXModelGo(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.onnx")
	if err := os.WriteFile(model, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	path, data := onnxOpsFile(dir)
	chunks := yamldeftest.NewChunks()
	checkMemo(t, "first", path, data, chunks)
	if got := checkMemo(t, "again", path, data, chunks); got != 2 {
		t.Fatalf("%d ops read back as validated, want 2: the test checks nothing", got)
	}
	if err := os.Remove(model); err != nil {
		t.Fatal(err)
	}
	if got := checkMemo(t, "model gone", path, data, chunks); got != 2 {
		t.Fatalf("%d ops read back as validated, want 2", got)
	}
	var l diag.List
	ld := Loader{Chunks: chunks}
	pkg := ld.Parse(path, data, &l)
	ld.validate(pkg, &l)
	if got := strings.Count(fmt.Sprint(l.Sorted()), "onnx-origin"); got != 3 {
		t.Errorf("%d onnx-origin warnings, want 3: %v", got, l.Sorted())
	}
}

// TestValidatedOpsAfterTheONNXModelComes: found by an independent review.
// Ops that warn because their ONNX model is missing are kept as built and
// validated (and warn) on every load; once the model is there they pass
// clean, are kept as validated, and the next load reads them back so.
func TestValidatedOpsAfterTheONNXModelComes(t *testing.T) {
	dir := t.TempDir()
	path, data := onnxOpsFile(dir)
	chunks := yamldeftest.NewChunks()
	for _, step := range []string{"model missing", "model missing, again"} {
		if got := checkMemo(t, step, path, data, chunks); got != 0 {
			t.Fatalf("%s: %d ops read back as validated, want 0", step, got)
		}
	}
	if chunks.VettedServed("model ") == 0 {
		t.Fatal("the ops that warn were not read back as built: the test checks nothing")
	}
	if err := os.WriteFile(filepath.Join(dir, "m.onnx"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for step, want := range []int{0, 2} {
		if got := checkMemo(t, fmt.Sprintf("model there, %d", step), path, data, chunks); got != want {
			t.Fatalf("model there, %d: %d ops read back as validated, want %d", step, got, want)
		}
	}
}
