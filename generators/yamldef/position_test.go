package yamldef

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestIndentScanAcceptsValidYAML: the indentation scan that places parser
// errors finds nothing in any valid YAML file of the repository (op
// definitions, toolchains, test inputs), so it cannot move an error onto
// an innocent line before the real one.
func TestIndentScanAcceptsValidYAML(t *testing.T) {
	var files []string
	for _, root := range []string{"../../testdata", "../../toolchains"} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				files = append(files, p)
			}
			return nil
		})
	}
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var n yaml.Node
		if yaml.Unmarshal(data, &n) != nil {
			continue
		}
		checked++
		if p, ok := firstIndentProblem(strings.Split(string(data), "\n")); ok {
			t.Errorf("%s:%d:%d: the indentation scan flags a line of a valid file: %s", f, p.line, p.col, p.fix)
		}
	}
	if checked < 50 {
		t.Fatalf("only %d valid YAML files found", checked)
	}
}

func TestLocate(t *testing.T) {
	src := "a:\n  b: 1\n  c: *x\nd: [1, 2\ne: 3\n"
	if p := locate([]byte(src), 1, "unknown anchor 'x' referenced"); p.line != 3 || p.col != 6 {
		t.Errorf("alias at %d:%d, want 3:6", p.line, p.col)
	}
	if p := locate([]byte(src), 5, "did not find expected ',' or ']'"); p.line != 4 || p.col != 4 {
		t.Errorf("unclosed flow at %d:%d, want 4:4", p.line, p.col)
	}
	bad := "a:\n  b: 1\n  c: 2\n d: 3\n  e: 4\n"
	if p := locate([]byte(bad), 1, "did not find expected key"); p.line != 4 || p.col != 2 {
		t.Errorf("dedent at %d:%d, want 4:2", p.line, p.col)
	}
	if p := locate([]byte("a: [1, 2}\n"), 1, "did not find expected ',' or ']'"); p.line != 1 || p.col != 9 {
		t.Errorf("mismatched bracket at %d:%d, want 1:9", p.line, p.col)
	}
}

// FuzzLocate: placing an error never panics and stays inside the text.
func FuzzLocate(f *testing.F) {
	f.Add("a:\n  b: 1\n c: [1, {2\n\t- &x y\n", 2)
	f.Add("- &a\n   b: 'x''\n  y'\n? k\n: v\n", 9)
	f.Fuzz(func(t *testing.T, src string, line int) {
		lines := strings.Count(src, "\n") + 1
		for _, msg := range []string{"did not find expected key", "found a tab character that violates indentation",
			"did not find expected ',' or ']'", "found character that cannot start any token", "unknown anchor 'x' referenced", "other"} {
			p := locate([]byte(src), line, msg)
			if p.line != line && (p.line < 1 || p.line > lines || p.col < 0) {
				t.Fatalf("%q at line %d: placed at %d:%d", msg, line, p.line, p.col)
			}
		}
	})
}
