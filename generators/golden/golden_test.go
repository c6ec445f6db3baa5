package golden

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var ownUpdateFlag = regexp.MustCompile(`flag\.\w+\(\s*"update"`)

// importsGolden reports whether the Go file src imports this package.
func importsGolden(t *testing.T, path string, src []byte) bool {
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(f.Imports, func(s *ast.ImportSpec) bool {
		return s.Path.Value == `"github.com/opforge/opforge/generators/golden"`
	})
}

// TestOneUpdateFlag: no test defines an -update flag of its own (mage
// update would not find its package), and no code but tests imports this
// package (the opforge binary would grow the flag).
func TestOneUpdateFlag(t *testing.T) {
	users := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "../.." || d.Name() == "testdata" || d.Name() == "out" || d.Name() == "build") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.Dir(path) == "." {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		test := strings.HasSuffix(path, "_test.go")
		imports := importsGolden(t, path, data)
		switch {
		case test && ownUpdateFlag.Match(data):
			t.Errorf("%s defines its own -update flag: use golden.Update", path)
		case !test && imports:
			t.Errorf("%s imports generators/golden outside a test: the binary would take -update", path)
		case imports:
			users++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if users == 0 {
		t.Error("no test imports generators/golden: the walk missed the golden tests")
	}
}
