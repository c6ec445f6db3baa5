package yamldef

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/yamldef/yamldeftest"
)

// schemaEdit breaks or mends one line the way the schema or convert
// notices: a dtype, key or tag it refuses, or a number too large.
func schemaEdit(r *rand.Rand, lines []string) []string {
	out := append([]string(nil), lines...)
	if len(out) == 0 {
		return out
	}
	i := r.Intn(len(out))
	switch r.Intn(5) {
	case 0:
		out[i] = strings.Replace(out[i], "float32", "float33", 1)
	case 1:
		out[i] = strings.Replace(out[i], "float33", "float32", 1)
	case 2:
		out[i] = strings.Replace(out[i], "name: ", "bogus: 1, name: ", 1)
	case 3:
		out[i] = strings.Replace(out[i], "description: ", "description: !!custom ", 1)
	default:
		out[i] = strings.Replace(out[i], "default: ", "default: 99999999999999999999999, x: ", 1)
	}
	return out
}

// keepBuilt keeps pkg's models as a validation that passed none of its
// ops would (ir.ValidatedOps.Keep): as built, these tests validating
// nothing. It then drops the store from pkg, which Load's has not.
func keepBuilt(pkg *ir.Package) {
	if pkg != nil && pkg.Validated != nil {
		pkg.Validated.Keep(nil)
		pkg.Validated = nil
	}
}

// checkLoadWith holds LoadWith of data, with what chunks holds (trees and
// vetted items), to Load: the same package and the same diagnostics.
func checkLoadWith(t *testing.T, name string, data []byte, chunks Chunks) {
	t.Helper()
	var want, got diag.List
	wantPkg := Load("f.yaml", data, &want)
	gotPkg := LoadWith("f.yaml", data, chunks, &got)
	keepBuilt(gotPkg)
	if fmt.Sprint(got.Sorted()) != fmt.Sprint(want.Sorted()) {
		t.Fatalf("%s: LoadWith gave %v, Load %v\n%s", name, got.Sorted(), want.Sorted(), data)
	}
	if !reflect.DeepEqual(gotPkg, wantPkg) {
		t.Fatalf("%s: LoadWith's package differs from Load's\n%s", name, data)
	}
}

// TestLoadWithVettedIsLoad: over random edit sequences of every YAML opdef
// under testdata, edits the schema refuses among them, a file loaded with
// its vetted items neither converted, nor checked, nor hashed again gives
// the package and the diagnostics Load gives.
func TestLoadWithVettedIsLoad(t *testing.T) {
	r := editRand(t)
	skipped, models := 0, 0
	for path, data := range opdefTexts(t) {
		chunks := yamldeftest.NewChunks()
		checkLoadWith(t, path, data, chunks)
		checkLoadWith(t, path+" again", data, chunks)
		lines := strings.Split(string(data), "\n")
		for step := 0; step < 12; step++ {
			if r.Intn(3) == 0 {
				lines = schemaEdit(r, lines)
			} else {
				lines = editLines(r, lines)
			}
			checkLoadWith(t, fmt.Sprintf("%s, step %d", path, step), []byte(strings.Join(lines, "\n")), chunks)
		}
		skipped += chunks.VettedServed("")
		models += chunks.VettedServed("model ")
	}
	t.Logf("%d vetted records served, %d of them models", skipped, models)
	if skipped == 0 || models == 0 {
		t.Fatal("no vetted item or no model was served: the test checked nothing")
	}
}

// TestVettedItemsSkipWork: a file loaded again with one op changed takes
// every other op's verdict and digest from the store, and an item that
// breaks the schema is reported as Load reports it, at its line.
func TestVettedItemsSkipWork(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\npackage: {name: P, domain: p, version: 1.0.0}\nops:\n")
	for i := range 20 {
		fmt.Fprintf(&b, "  - name: Op%d\n    inputs: [{name: x, type: float32, shape: [N]}]\n    outputs: [{name: y, type: float32, shape: [N]}]\n", i)
	}
	data := b.String()
	chunks := yamldeftest.NewChunks()
	checkLoadWith(t, "first", []byte(data), chunks)
	// The first item's model is not kept: a load never reads it back.
	models := chunks.VettedLen("model ")
	if vetted := chunks.VettedLen("") - models; vetted != 20 || models != 19 {
		t.Fatalf("%d items vetted and %d models kept, want 20 and 19", vetted, models)
	}
	before, beforeModels := chunks.VettedServed(""), chunks.VettedServed("model ")
	edited := strings.Replace(data, "name: Op7\n    inputs: [{name: x, type: float32", "name: Op7\n    inputs: [{name: x, type: float16", 1)
	checkLoadWith(t, "one op changed", []byte(edited), chunks)
	// Every op but the first (always checked with the package) and the
	// changed one is read back as its model, with its verdict.
	served := chunks.VettedServed("model ") - beforeModels
	if vetted := chunks.VettedServed("") - before - served; vetted != 18 || served != 18 {
		t.Fatalf("%d vetted items and %d models served, want 18 and 18", vetted, served)
	}
	broken := strings.Replace(data, "name: Op12\n    inputs: [{name: x,", "name: Op12\n    inputs: [{name: x, bogus: 1,", 1)
	var l diag.List
	if LoadWith("f.yaml", []byte(broken), chunks, &l) != nil || !strings.Contains(fmt.Sprint(l.Sorted()), "f.yaml:41:") {
		t.Fatalf("broken op: %v", l.Sorted())
	}
}

// TestModelsFollowTheirFile: found by an independent review. The builder
// makes an ONNX origin's model path from the file's directory, so an op's
// model read back in another file must be that file's, as Load gives it;
// and an empty literal block closing an item has no body line, so no
// op's model depends on the item after it.
func TestModelsFollowTheirFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\npackage: {name: P, domain: p, version: 1.0.0}\nops:\n")
	for i := range 4 {
		fmt.Fprintf(&b, "  - name: Op%d\n    onnx: {model: m.onnx, op_type: Relu}\n    inputs: [{name: x, type: float32, shape: [N]}]\n    outputs: [{name: y, type: float32, shape: [N]}]\n", i)
	}
	data := []byte(b.String())
	chunks := yamldeftest.NewChunks()
	for _, file := range []string{"dir1/a.yaml", "dir2/a.yaml", "dir1/a.yaml"} {
		var want, got diag.List
		wantPkg := Load(file, data, &want)
		gotPkg := LoadWith(file, data, chunks, &got)
		keepBuilt(gotPkg)
		if fmt.Sprint(got.Sorted()) != fmt.Sprint(want.Sorted()) || !reflect.DeepEqual(gotPkg, wantPkg) {
			t.Fatalf("%s: LoadWith differs from Load (diagnostics %v, want %v)", file, got.Sorted(), want.Sorted())
		}
	}
	if chunks.VettedServed("model ") == 0 {
		t.Fatal("no model was read back: the test checked nothing")
	}

	const op = "  - name: %s\n    inputs: [{name: x, type: float32, shape: [N]}]\n    outputs: [{name: y, type: float32, shape: [N]}]\n"
	head := "version: 1\npackage: {name: P, domain: p, version: 1.0.0}\nops:\n" + fmt.Sprintf(op, "A")
	empty := fmt.Sprintf(op, "B") + "    description: |\n\n"
	with := head + empty + fmt.Sprintf(op, "C")
	without := head + empty
	chunks = yamldeftest.NewChunks()
	for i, text := range []string{with, without, with, without} {
		checkLoadWith(t, fmt.Sprintf("step %d", i), []byte(text), chunks)
	}
}
