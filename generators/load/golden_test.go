package load_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/golden"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
)

var update = golden.Update

const casesDir = "../../testdata/diagnostics"

// TestDiagnostics runs every case directory under testdata/diagnostics:
// all its op definition files are loaded together and the diagnostics,
// with paths relative to the case, must equal expected.txt.
func TestDiagnostics(t *testing.T) {
	cases, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		dir := filepath.Join(casesDir, c.Name())
		t.Run(c.Name(), func(t *testing.T) {
			files, err := load.Files(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) == 0 {
				t.Fatal("case has no input files")
			}
			var l diag.List
			registry.Check(&l, load.Paths(files, &l)...)
			var buf bytes.Buffer
			if err := l.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(buf.String(), filepath.ToSlash(dir)+"/", "")
			golden := filepath.Join(dir, "expected.txt")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("diagnostics differ from %s (go test -update refreshes it)\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

// codeRE finds the diagnostic codes the sources can emit.
var codeRE = regexp.MustCompile(`(?:Errorf|Warnf)\(.*?, "([a-z][a-z0-9-]+)", "`)

// noCaseNeeded are codes that no input file can trigger deterministically
// (I/O failures, internal errors) or that a golden case cannot hold.
var noCaseNeeded = map[string]bool{
	"internal": true, "read": true, "write": true, "convert": true, "yaml-format": true,
	"file-type":        true, // the loader is only handed .yaml/.yml/.xml by Files
	"no-opdefs":        true, // a case directory always has files
	"yaml-too-large":   true, // covered by TestAliasBomb (a golden file would be huge)
	"xml-too-large":    true, // covered by TestLimits
	"file-too-large":   true, // covered by TestLimits
	"not-regular-file": true, // FIFOs cannot live in git: covered by TestSpecialFiles
	"schema":           true, // generic fallback for schema keywords without a dedicated code
	// The schema (schema-value) and the XML content model (xml-enum) refuse
	// an unknown dtype before the builders see it; their check is a guard.
	"unknown-dtype": true,
	// gen/check --package with a name no opdef defines: cli.TestGenOnePackage.
	"unknown-package": true, "unknown-op": true,
	// opforge mv's refusals: cli.TestMvCarriesUserCode.
	"rename":        true,
	"qnn-xml-lossy": true, "qnn-xml-dtype": true, // writer diagnostics: covered by convert tests
	// Generation and out/ tree diagnostics need an out/ tree; the tests of
	// generators/writer and generators/gen cover them.
	"drift-changed": true, "drift-extra": true, "drift-missing": true, "manifest": true, "unsafe-path": true,
	"user-code-stale": true, "user-region-markers": true, "user-region-orphan": true, "generated-edited": true, "stale-unverified": true, "unknown-file": true, "interrupted-mv": true,
	"htp-config": true, "toolchain": true, "executorch-assumed-shape": true,
	// ONNX import and rewrite read models, not opdefs: covered by
	// generators/onnximport tests (golden cases under testdata/onnx,
	// TestImportErrors, TestPlan) and generators/cli tests (onnx-read,
	// onnx-external-data).
	"onnx-read": true, "onnx-select": true, "onnx-untyped": true, "onnx-type": true,
	"onnx-attr-type": true, "onnx-attr-trt": true, "onnx-input-omitted": true, "onnx-node": true,
	"onnx-output-type": true, "onnx-output-shape": true, "onnx-standard-name": true,
	"onnx-function-name": true, "onnx-rewrite-op": true, "onnx-rewrite-signature": true,
	"onnx-external-data": true,
	// import torch reads torch.library ops, not opdefs: covered by
	// generators/torchimport (TestImportErrors).
	"torch-import": true, "torch-shape": true,
}

// TestEveryRuleHasAGoldenCase fails when a diagnostic code appears in the
// sources but in no expected.txt, so new rules come with a case.
func TestEveryRuleHasAGoldenCase(t *testing.T) {
	emitted := map[string]string{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range codeRE.FindAllSubmatch(src, -1) {
			emitted[string(m[1])] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	goldens, _ := filepath.Glob(filepath.Join(casesDir, "*", "expected.txt"))
	codeInLine := regexp.MustCompile(`\[([a-z0-9-]+)\]$`)
	for _, g := range goldens {
		data, _ := os.ReadFile(g)
		for _, line := range strings.Split(string(data), "\n") {
			if m := codeInLine.FindStringSubmatch(line); m != nil {
				covered[m[1]] = true
			}
		}
	}
	var missing []string
	for code, file := range emitted {
		if !covered[code] && !noCaseNeeded[code] {
			missing = append(missing, code+" ("+file+")")
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d diagnostic codes have no golden case under testdata/diagnostics:\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
}
