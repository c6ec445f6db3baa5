package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// costlyAtStart are calls that cost a command's start when made before
// main (a package variable's initializer or an init func): compiling a
// regular expression, and starting the cryptographic random source.
// Each is made on first use instead (sync.OnceValue).
var costlyAtStart = map[string][]string{
	"regexp":      {"MustCompile", "Compile", "MustCompilePOSIX", "CompilePOSIX"},
	"crypto/rand": {"Read", "Int", "Prime", "Text"},
}

// TestNothingCostlyBeforeMain holds ARCHITECTURE.md's "nothing is built
// before main that a command may not need": every Go file (tests aside)
// of the generators' packages this binary links is parsed, and a call of
// costlyAtStart in a package variable's initializer or an init func (a
// func literal there counts when it is called on the spot) is reported
// at file:line. A no-op build is a few milliseconds; its start is most
// of them.
func TestNothingCostlyBeforeMain(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	for _, dir := range linkedPackages(t, fset) {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, path := range paths {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, at := range costlyCallsAtInit(f) {
				t.Errorf("%s: %s runs before main in every command; make it on first use (sync.OnceValue)", fset.Position(at.Pos()), at.name)
			}
		}
	}
	if files < 100 {
		t.Fatalf("parsed %d files: the walk of the imports missed the generators", files)
	}
}

// generatorsModule is the import path of the folder two above this one.
const generatorsModule = "github.com/opforge/opforge/generators/"

// linkedPackages are the folders of the generators' packages this one
// imports, directly or not (build constraints aside: a superset).
func linkedPackages(t *testing.T, fset *token.FileSet) []string {
	root := filepath.Join("..", "..")
	seen := map[string]bool{".": true}
	queue := []string{"."}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, path := range paths {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if rest, ok := strings.CutPrefix(p, generatorsModule); ok {
					if d := filepath.Join(root, filepath.FromSlash(rest)); !seen[d] {
						seen[d] = true
						queue = append(queue, d)
					}
				}
			}
		}
	}
	dirs := make([]string, 0, len(seen))
	for d := range seen {
		dirs = append(dirs, d)
	}
	return dirs
}

type costlyCall struct {
	*ast.CallExpr
	name string
}

// costlyCallsAtInit are f's calls of costlyAtStart that run at package
// initialization.
func costlyCallsAtInit(f *ast.File) []costlyCall {
	// The file's name for each package costlyAtStart lists.
	local := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := costlyAtStart[path]; !ok {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = path
	}
	if len(local) == 0 {
		return nil
	}
	var found []costlyCall
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // runs when called; a call on the spot is below
		case *ast.CallExpr:
			if lit, ok := n.Fun.(*ast.FuncLit); ok {
				ast.Inspect(lit.Body, visit)
			}
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			path, ok := local[pkg.Name]
			if !ok {
				return true
			}
			for _, fn := range costlyAtStart[path] {
				if sel.Sel.Name == fn {
					found = append(found, costlyCall{n, path + "." + fn})
				}
			}
		}
		return true
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, spec := range d.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					ast.Inspect(v, visit)
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" && d.Body != nil {
				ast.Inspect(d.Body, visit)
			}
		}
	}
	return found
}
