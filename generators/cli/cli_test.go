package cli

import (
	"bytes"
	"fmt"
	"time"

	"github.com/opforge/opforge/generators/sharedfixtures"

	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/filelock"
)

func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestValidateExitCodesAndJSON(t *testing.T) {
	if code, _, errs := run("validate", "../../testdata/gen/examples/opdefs"); code != 0 {
		t.Errorf("shipped opdefs: exit %d\n%s", code, errs)
	}
	bad := "../../testdata/diagnostics/unknown-symbol"
	code, _, errs := run("validate", bad)
	if code != 1 || !strings.Contains(errs, "[unknown-symbol]") {
		t.Errorf("bad opdef: exit %d\n%s", code, errs)
	}
	code, out, _ := run("validate", "--format", "json", bad)
	var diags []map[string]any
	if err := json.Unmarshal([]byte(out), &diags); err != nil || code != 1 || len(diags) == 0 {
		t.Errorf("json: exit %d, %v: %s", code, err, out)
	}
	// The case's op is also a target's warning (aipu-builtin): find the rule's own error.
	found := false
	for _, d := range diags {
		found = found || d["code"] == "unknown-symbol" && d["severity"] == "error"
	}
	if !found {
		t.Errorf("json diagnostics lack the unknown-symbol error: %v", diags)
	}
	if code, _, _ := run("validate", "--format", "yaml"); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	if code, _, _ := run("frobnicate"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
}

func TestConvertWritesNothingOnError(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.yaml")
	code, _, _ := run("convert", "../../testdata/diagnostics/xml-enum/ops.xml", "-o", out)
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("convert wrote %s despite errors", out)
	}
	fixture := sharedfixtures.Need(t, "../../../shared/fixtures/qnn") + "/onnxruntime/MyAddOpPackageHtp.xml"
	code, _, errs := run("convert", fixture, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, _ := os.ReadFile(out)
	if !strings.HasPrefix(string(data), "# yaml-language-server: $schema=") || !strings.Contains(string(data), "'in[0]'") {
		t.Errorf("converted YAML:\n%s", data)
	}
}

func TestFmtCheck(t *testing.T) {
	if code, out, errs := run("fmt", "--check", "../../testdata/gen/examples/opdefs/vision/vision_ops.yaml"); code != 0 {
		t.Errorf("shipped opdef is not canonical: %s %s", out, errs)
	}
	messy := filepath.Join(t.TempDir(), "m.yaml")
	src := "# top\nops:\n  - outputs: [{name: y, type: float32}]   # keep me\n    name: A\npackage: {version: 1, domain: d, name: P}\nversion: 1\n"
	_ = os.WriteFile(messy, []byte(src), 0o644)
	if code, _, _ := run("fmt", "--check", messy); code != 1 {
		t.Errorf("--check on a messy file: exit %d, want 1", code)
	}
	if code, _, errs := run("fmt", "-w", messy); code != 0 {
		t.Fatal(errs)
	}
	got, _ := os.ReadFile(messy)
	for _, want := range []string{"# top", "# keep me", "version: 1\npackage:"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("formatted file lacks %q:\n%s", want, got)
		}
	}
	if code, _, _ := run("fmt", "--check", messy); code != 0 {
		t.Errorf("fmt is not idempotent:\n%s", got)
	}
}

func TestCheckDetectsDrift(t *testing.T) {
	root := t.TempDir()
	outDir := filepath.Join(root, "out")
	args := []string{"--opdefs", "../../testdata/gen/examples/opdefs", "--toolchains", "../../toolchains", "--out", outDir}
	genArgs := append([]string{"gen", "--cache", filepath.Join(root, "cache.json")}, args...)
	if code, _, errs := run(genArgs...); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := run(append([]string{"check"}, args...)...); code != 0 {
		t.Fatalf("fresh tree: %s", errs)
	}
	_ = os.WriteFile(filepath.Join(outDir, "htp", "stray.txt"), []byte("x"), 0o644)
	code, _, errs := run(append([]string{"check"}, args...)...)
	if code != 1 || !strings.Contains(errs, "stray.txt") || !strings.Contains(errs, "[drift-extra]") {
		t.Errorf("untracked file: exit %d\n%s", code, errs)
	}
}

// Two gens on one out/ take turns: the second waits for the first's lock,
// saying so, and runs once it is released.
func TestGenWaitsForAnotherGen(t *testing.T) {
	root := t.TempDir()
	unlock, err := filelock.Lock(filepath.Join(root, "build", ".opforge-gen.lock"), nil)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"gen", "--opdefs", "../../testdata/gen/examples/opdefs", "--toolchains", "../../toolchains", "--out", filepath.Join(root, "out"), "--cache", filepath.Join(root, "build", "cache.json")}
	done := make(chan string, 1)
	go func() {
		code, _, errs := run(args...)
		done <- fmt.Sprint(code, errs)
	}()
	select {
	case got := <-done:
		unlock()
		t.Fatalf("gen ran while another held the lock: %s", got)
	case <-time.After(2 * time.Second):
	}
	unlock()
	got := <-done
	if !strings.HasPrefix(got, "0") || !strings.Contains(got, fmt.Sprintf("waiting for another opforge gen on %s/ (pid %d)", filepath.Join(root, "out"), os.Getpid())) {
		t.Errorf("gen after waiting: %s", got)
	}
}

func TestGenNoOpCache(t *testing.T) {
	root := t.TempDir()
	outDir := filepath.Join(root, "out")
	args := []string{"gen", "--opdefs", "../../testdata/gen/examples/opdefs", "--toolchains", "../../toolchains", "--out", outDir, "--cache", filepath.Join(root, "build", "cache.json")}
	if code, _, errs := run(args...); code != 0 {
		t.Fatal(errs)
	}
	_, out, _ := run(args...)
	if !strings.Contains(out, "inputs unchanged since the last gen") || !strings.Contains(out, " 0 written") {
		t.Errorf("second gen did not use the cache: %s", out)
	}
	// A full gen that writes nothing leaves a record as good as one that
	// wrote everything.
	if code, _, errs := run(append(args, "--full")...); code != 0 {
		t.Fatal(errs)
	}
	if _, out, _ = run(args...); !strings.Contains(out, "inputs unchanged since the last gen") {
		t.Errorf("gen after gen --full did not use the cache: %s", out)
	}
	// Deleting a generated file invalidates the cache: gen restores it.
	victim := filepath.Join(outDir, "htp", "VisionOps", "Makefile")
	_ = os.Remove(victim)
	_, out, _ = run(args...)
	if strings.Contains(out, "inputs unchanged") || !strings.Contains(out, " 1 written") {
		t.Errorf("gen after a deletion: %s", out)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Error("the deleted file was not restored")
	}
}

// A killed gen's staging tree is what check tells the user to run gen
// for: the next plain gen removes it, cache or no cache, and check passes
// (the inputs are unchanged, so the cache alone would have made it a
// no-op that leaves the tree as check found it).
func TestGenRemovesWhatCheckNames(t *testing.T) {
	root := t.TempDir()
	outDir := filepath.Join(root, "out")
	flags := []string{"--opdefs", "../../testdata/gen/examples/opdefs", "--toolchains", "../../toolchains", "--out", outDir}
	gen := append([]string{"gen", "--cache", filepath.Join(root, "build", "cache.json")}, flags...)
	if code, _, errs := run(gen...); code != 0 {
		t.Fatal(errs)
	}
	stage := filepath.Join(outDir, ".htp.tmp-99999999-lz3x8k-1")
	if err := os.MkdirAll(filepath.Join(stage, "VisionOps"), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(stage, "VisionOps", "Makefile"), []byte("half"), 0o644)
	code, _, errs := run(append([]string{"check"}, flags...)...)
	if code != 1 || !strings.Contains(errs, ".htp.tmp-99999999-lz3x8k-1: error: left by an interrupted gen; run `opforge gen`") {
		t.Fatalf("check with a leftover: exit %d\n%s", code, errs)
	}
	if code, _, errs := run(gen...); code != 0 {
		t.Fatal(errs)
	}
	if _, err := os.Lstat(stage); err == nil {
		t.Error("gen left the staging tree check named")
	}
	if code, _, errs := run(append([]string{"check"}, flags...)...); code != 0 {
		t.Errorf("check after the advised gen: exit %d\n%s", code, errs)
	}
}

// After a small opdef change gen trusts the cache only for files it made
// and nobody touched since: user code in an edited file survives whether or
// not that file's op changed, and the tree equals a full regeneration.
func TestGenCacheKeepsUserEdits(t *testing.T) {
	root := t.TempDir()
	opdefs := filepath.Join(root, "opdefs", "vision")
	src, err := os.ReadFile("../../testdata/gen/examples/opdefs/vision/vision_ops.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(opdefs, 0o755); err != nil {
		t.Fatal(err)
	}
	defs := filepath.Join(opdefs, "vision_ops.yaml")
	_ = os.WriteFile(defs, src, 0o644)
	outDir := filepath.Join(root, "out")
	flags := []string{"--opdefs", filepath.Dir(opdefs), "--toolchains", "../../toolchains", "--out", outDir}
	gen := append([]string{"gen", "--cache", filepath.Join(root, "build", "cache.json")}, flags...)
	if code, _, errs := run(gen...); code != 0 {
		t.Fatal(errs)
	}
	kernel := func(op string) string { return filepath.Join(outDir, "trt", "VisionOps", "src", "ops", op+"Kernel.cu") }
	const mine = "    return cudaSuccess; // mine\n"
	for _, op := range []string{"TopKLast", "PadCropResize"} { // TopKLast's op changes below, PadCropResize's does not
		data, _ := os.ReadFile(kernel(op))
		s := string(data)
		begin := strings.Index(s, "// opforge:begin launch\n") + len("// opforge:begin launch\n")
		end := strings.Index(s, "    // opforge:end launch")
		_ = os.WriteFile(kernel(op), []byte(s[:begin]+mine+s[end:]), 0o644)
	}
	// A hand edit outside any region of a file whose op did not change
	// stops gen, naming the line; --force undoes it, as a full
	// regeneration would.
	plugin := filepath.Join(outDir, "trt", "VisionOps", "src", "ops", "PadCropResizePlugin.cpp")
	pristine, _ := os.ReadFile(plugin)
	_ = os.WriteFile(plugin, append(append([]byte{}, pristine...), "// stray\n"...), 0o644)
	changed := strings.Replace(string(src), "The k largest (or smallest) values", "The k largest (or the k smallest) values", 1)
	if changed == string(src) {
		t.Fatal("the opdef edit did not apply")
	}
	_ = os.WriteFile(defs, []byte(changed), 0o644)
	code, out, errs := run(gen...)
	if code != 1 || !strings.Contains(errs, "PadCropResizePlugin.cpp:447: error:") || !strings.Contains(errs, "[generated-edited]") || !strings.Contains(errs, "--force") {
		t.Fatalf("gen over a hand edit: %d\n%s%s", code, out, errs)
	}
	code, out, errs = run(append(gen, "--force")...)
	if code != 0 || strings.Contains(out, "inputs unchanged") {
		t.Fatalf("gen --force after an opdef change: %d\n%s%s", code, out, errs)
	}
	for _, op := range []string{"TopKLast", "PadCropResize"} {
		if data, _ := os.ReadFile(kernel(op)); !strings.Contains(string(data), mine) {
			t.Errorf("%s kernel lost the user's code", op)
		}
	}
	if data, _ := os.ReadFile(plugin); string(data) != string(pristine) {
		t.Errorf("the hand edit of %s survived", plugin)
	}
	if code, _, errs := run(append([]string{"check"}, flags...)...); code != 0 {
		t.Errorf("the tree differs from a full regeneration:\n%s", errs)
	}
}

// Two gens at once on one out/ from two states of the opdefs take turns;
// whichever ran last, a gen of the first state then leaves exactly its
// tree (check passes), and the no-op cache never vouched for the other's.
func TestConcurrentGensOfTwoStates(t *testing.T) {
	root := t.TempDir()
	src, err := os.ReadFile("../../testdata/gen/examples/opdefs/vision/vision_ops.yaml")
	if err != nil {
		t.Fatal(err)
	}
	states := [2]string{filepath.Join(root, "v1"), filepath.Join(root, "v2")}
	for i, dir := range states {
		_ = os.MkdirAll(filepath.Join(dir, "vision"), 0o755)
		data := strings.Replace(string(src), "version: 1.0.0", fmt.Sprintf("version: 1.0.%d", i), 1)
		_ = os.WriteFile(filepath.Join(dir, "vision", "vision_ops.yaml"), []byte(data), 0o644)
	}
	out, cache := filepath.Join(root, "out"), filepath.Join(root, "build", "cache.json")
	gen := func(opdefs string) (int, string) {
		code, _, errs := run("gen", "--opdefs", opdefs, "--toolchains", "../../toolchains", "--out", out, "--cache", cache)
		return code, errs
	}
	for round := 0; round < 3; round++ {
		done := make(chan string, 2)
		for _, dir := range states {
			go func() {
				code, errs := gen(dir)
				done <- fmt.Sprint(code, errs)
			}()
		}
		for range states {
			if got := <-done; !strings.HasPrefix(got, "0") {
				t.Fatalf("concurrent gen: %s", got)
			}
		}
		if code, errs := gen(states[0]); code != 0 {
			t.Fatal(errs)
		}
		if code, _, errs := run("check", "--opdefs", states[0], "--toolchains", "../../toolchains", "--out", out); code != 0 {
			t.Fatalf("round %d: out/ is not v1's tree after gen v1:\n%s", round, errs)
		}
	}
}

// TestGenOnePackage: gen and check --package touch and compare only that
// package's files; the others stay as they were (even when their opdefs
// changed or went away) and keep their manifest entries, so a later full
// gen still knows them.
func TestGenOnePackage(t *testing.T) {
	opdefs, out, args := examplesWorkspace(t)
	gen := append([]string{"gen", "--cache", filepath.Join(filepath.Dir(out), "build", "c.json")}, args...)
	example := filepath.Join(out, "htp", "ExampleOpPackage", "src", "ExampleOpPackageInterface.cpp")
	before, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	// ExampleOpPackage's opdef goes away; VisionOps changes.
	if err := os.RemoveAll(filepath.Join(opdefs, "executorch_example")); err != nil {
		t.Fatal(err)
	}
	vision := filepath.Join(opdefs, "vision", "vision_ops.yaml")
	data, _ := os.ReadFile(vision)
	if err := os.WriteFile(vision, []byte(strings.Replace(string(data), "with their indices.", "with their int32 indices.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := run(append(gen, "--package", "VisionOps")...)
	if code != 0 || strings.Contains(stdout, " 0 written") {
		t.Fatalf("gen --package VisionOps: %d\n%s%s", code, stdout, errs)
	}
	if after, err := os.ReadFile(example); err != nil || string(after) != string(before) {
		t.Errorf("gen --package VisionOps removed or changed ExampleOpPackage's files: %v", err)
	}
	if code, _, errs := run(append([]string{"check", "--package", "VisionOps"}, args...)...); code != 0 {
		t.Errorf("check --package VisionOps after its gen: %s", errs)
	}
	// The whole tree is not what the opdefs give: ExampleOpPackage is stale.
	if code, _, errs := run(append([]string{"check"}, args...)...); code != 1 || !strings.Contains(errs, "ExampleOpPackage") {
		t.Errorf("a full check after a partial gen: %d\n%s", code, errs)
	}
	// A full gen removes the stale package, whose manifest entries survived.
	if code, stdout, errs := run(gen...); code != 0 || !strings.Contains(stdout, "removed") {
		t.Fatalf("full gen: %d\n%s%s", code, stdout, errs)
	}
	if _, err := os.Stat(example); !os.IsNotExist(err) {
		t.Errorf("a full gen kept the stale package: %v", err)
	}
	if code, _, errs := run(append([]string{"check"}, args...)...); code != 0 {
		t.Errorf("check after the full gen: %s", errs)
	}
	code, _, errs = run(append(gen, "--package", "NoSuchOps")...)
	if code != 1 || !strings.Contains(errs, `no package "NoSuchOps"`) || !strings.Contains(errs, "[unknown-package]") {
		t.Errorf("unknown package: %d %s", code, errs)
	}
}

// TestCheckOneOp: check --op compares only that op's own files and its
// package's shared files: drift in another op's own file is not its
// business, drift in its own or a shared file is.
func TestCheckOneOp(t *testing.T) {
	_, out, args := examplesWorkspace(t)
	appendTo := func(rel string) {
		f, err := os.OpenFile(filepath.Join(out, rel), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.WriteString("// drift\n")
		f.Close()
	}
	check := func() (int, string) {
		code, _, errs := run(append([]string{"check", "--op", "TopKLast"}, args...)...)
		return code, errs
	}
	appendTo("trt/VisionOps/src/ops/RoiAlignLitePlugin.cpp") // another op's own file
	if code, errs := check(); code != 0 {
		t.Errorf("check --op TopKLast looked at RoiAlignLite's file: %s", errs)
	}
	appendTo("trt/VisionOps/src/VisionOpsLibrary.cpp") // shared by the package's ops
	if code, errs := check(); code != 1 || !strings.Contains(errs, "VisionOpsLibrary.cpp") || strings.Contains(errs, "RoiAlignLitePlugin.cpp") {
		t.Errorf("check --op TopKLast with a shared file changed: %d\n%s", code, errs)
	}
	if code, _, errs := run(append([]string{"check", "--op", "NoSuchOp"}, args...)...); code != 1 || !strings.Contains(errs, "[unknown-op]") {
		t.Errorf("unknown op: %d %s", code, errs)
	}
}

// TestGenOneOpLeavesStaleFiles: gen --op touches only what its ops
// generate now: the files of an op removed from the opdef stay for a
// wider gen to remove.
func TestGenOneOpLeavesStaleFiles(t *testing.T) {
	opdefs, out, args := examplesWorkspace(t)
	args = append(args, "--cache", filepath.Join(filepath.Dir(out), "build", "c.json"))
	vision := filepath.Join(opdefs, "vision", "vision_ops.yaml")
	data, _ := os.ReadFile(vision)
	text := string(data)
	start := strings.Index(text, "  # Pools each region of interest")
	end := strings.Index(text, "  # Top-k along the last axis")
	if start < 0 || end < 0 {
		t.Fatal("the example opdef changed: update this test")
	}
	if err := os.WriteFile(vision, []byte(text[:start]+text[end:]), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := run(append([]string{"gen", "--op", "TopKLast"}, args...)...)
	if code != 0 || !strings.Contains(stdout, " 0 removed") {
		t.Errorf("gen --op TopKLast: %d\n%s%s", code, stdout, errs)
	}
	if _, err := os.Stat(filepath.Join(out, "trt/VisionOps/src/ops/RoiAlignLitePlugin.cpp")); err != nil {
		t.Errorf("gen --op TopKLast removed the removed op's file: %v", err)
	}
	if code, stdout, _ := run(append([]string{"gen"}, args...)...); code != 0 || strings.Contains(stdout, " 0 removed") {
		t.Errorf("the full gen removed nothing: %s", stdout)
	}
}

// examplesWorkspace copies the examples' opdefs into a temporary
// repository, generates out/ there, and returns the opdefs and out/
// directories and the flags that name them (and the gen cache, in the
// repository's build/).
func examplesWorkspace(t *testing.T) (opdefs, out string, args []string) {
	t.Helper()
	root := t.TempDir()
	opdefs, out = filepath.Join(root, "opdefs"), filepath.Join(root, "out")
	if err := os.CopyFS(opdefs, os.DirFS("../../testdata/gen/examples/opdefs")); err != nil {
		t.Fatal(err)
	}
	args = []string{"--opdefs", opdefs, "--toolchains", "../../toolchains", "--out", out}
	if code, _, errs := run(append([]string{"gen", "--cache", filepath.Join(root, "build", "c.json")}, args...)...); code != 0 {
		t.Fatal(errs)
	}
	return opdefs, out, args
}
