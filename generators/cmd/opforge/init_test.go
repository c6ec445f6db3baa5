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

// costlyAtStart are what costs a command's start when used before main
// (in a package variable's initializer or an init func): compiling a
// regular expression, and the cryptographic random source. Each is made
// on first use instead (sync.OnceValue).
var costlyAtStart = map[string][]string{
	"regexp":      {"MustCompile", "Compile", "MustCompilePOSIX", "CompilePOSIX"},
	"crypto/rand": {"Read", "Reader", "Int", "Prime", "Text"},
}

// TestNothingCostlyBeforeMain holds ARCHITECTURE.md's "nothing is built
// before main that a command may not need" for opforge's own packages
// (the module's; its dependencies' inits are theirs): every Go file
// (tests aside) of each module package the binary links is parsed, and a
// use of costlyAtStart in what runs before main is reported at
// file:line: a package variable's initializer or an init func, a func
// literal called on the spot there, and the module's functions they call,
// followed through packages (methods are not followed). A no-op build is
// a few milliseconds; its start is most of them.
func TestNothingCostlyBeforeMain(t *testing.T) {
	idx := indexLinked(t)
	if len(idx.files) < 100 {
		t.Fatalf("parsed %d files: the walk of the imports missed the module", len(idx.files))
	}
	for _, f := range idx.files {
		for _, root := range initRoots(f.ast) {
			w := &initWalk{idx: idx, followed: map[*ast.FuncDecl]bool{}}
			w.walk(f, root)
			for _, at := range w.found {
				t.Errorf("%s: %s runs before main in every command (from %s); make it on first use (sync.OnceValue)",
					idx.fset.Position(at.pos), at.name, idx.fset.Position(root.Pos()))
			}
		}
	}
}

// module is this module's import path prefix; the test runs three
// folders below the module's root.
const module = "github.com/opforge/opforge/"

type parsedFile struct {
	ast  *ast.File
	pkg  string            // import path
	imps map[string]string // local name -> import path ("." for dot-imports: path)
	dots []string          // dot-imported paths
}

type linkedIndex struct {
	fset  *token.FileSet
	files []*parsedFile
	// funcs are the module's package-level functions by import path and
	// name, with the file each is in.
	funcs map[string]map[string]funcAt
}

type funcAt struct {
	decl *ast.FuncDecl
	file *parsedFile
}

// indexLinked parses the module's packages this one imports, directly or
// not (build constraints aside: a superset).
func indexLinked(t *testing.T) *linkedIndex {
	root := filepath.Join("..", "..", "..")
	idx := &linkedIndex{fset: token.NewFileSet(), funcs: map[string]map[string]funcAt{}}
	self := module + "generators/cmd/opforge"
	seen := map[string]bool{self: true}
	queue := []string{self}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, module)))
		paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, path := range paths {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			mods, err := idx.add(pkg, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range mods {
				if !seen[p] {
					seen[p] = true
					queue = append(queue, p)
				}
			}
		}
	}
	return idx
}

// add parses one file (src, or the file at name when src is nil) of the
// package pkg into idx; it reports the module packages the file imports.
func (idx *linkedIndex) add(pkg, name string, src any) ([]string, error) {
	f, err := parser.ParseFile(idx.fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	pf := &parsedFile{ast: f, pkg: pkg, imps: map[string]string{}}
	var mods []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		local := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		if local == "." {
			pf.dots = append(pf.dots, p)
		} else {
			pf.imps[local] = p
		}
		if strings.HasPrefix(p, module) {
			mods = append(mods, p)
		}
	}
	if idx.funcs[pkg] == nil {
		idx.funcs[pkg] = map[string]funcAt{}
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Body != nil {
			idx.funcs[pkg][fd.Name.Name] = funcAt{fd, pf}
		}
	}
	idx.files = append(idx.files, pf)
	return mods, nil
}

// initRoots are the parts of f that run before main: its package
// variables' initializers and its init funcs' bodies.
func initRoots(f *ast.File) []ast.Node {
	var roots []ast.Node
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, spec := range d.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					roots = append(roots, v)
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" && d.Body != nil {
				roots = append(roots, d.Body)
			}
		}
	}
	return roots
}

type costlyUse struct {
	pos  token.Pos
	name string
}

// initWalk finds the costly uses one root reaches.
type initWalk struct {
	idx      *linkedIndex
	followed map[*ast.FuncDecl]bool
	found    []costlyUse
}

func (w *initWalk) walk(f *parsedFile, n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // runs when called; a call on the spot is below
		case *ast.CallExpr:
			switch fun := n.Fun.(type) {
			case *ast.FuncLit:
				w.walk(f, fun.Body)
			case *ast.Ident: // this package's function, or a dot-import's
				w.follow(f.pkg, fun.Name)
			case *ast.SelectorExpr:
				if x, ok := fun.X.(*ast.Ident); ok {
					w.follow(f.imps[x.Name], fun.Sel.Name)
				}
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok {
				w.check(f.imps[x.Name], n.Sel.Name, n.Pos())
			}
		case *ast.Ident:
			for _, p := range f.dots {
				w.check(p, n.Name, n.Pos())
			}
		}
		return true
	})
}

// check records name of the package at path when costlyAtStart lists it.
func (w *initWalk) check(path, name string, pos token.Pos) {
	for _, c := range costlyAtStart[path] {
		if c == name {
			w.found = append(w.found, costlyUse{pos, path + "." + name})
		}
	}
}

// follow walks the body of the module's function name of the package at
// path, once per root.
func (w *initWalk) follow(path, name string) {
	fn, ok := w.idx.funcs[path][name]
	if !ok || w.followed[fn.decl] {
		return
	}
	w.followed[fn.decl] = true
	w.walk(fn.file, fn.decl.Body)
}

// TestCostlyUsesFound holds the walk itself to the uses it must find and
// the lazy ones it must pass, over a module of two packages in memory.
func TestCostlyUsesFound(t *testing.T) {
	pkgs := map[string]map[string]string{
		module + "a": {
			"a.go": `package a
import (
	"crypto/rand"
	"io"
	re "regexp"
	"sync"
)
func mk() *re.Regexp { return re.MustCompile("x") }
var Direct = re.MustCompile("direct")          // found
var ViaHelper = mk()                            // found (in mk)
var FuncValue = re.MustCompile                  // found: a value called later
var OnSpot = func() int { var b [1]byte; rand.Read(b[:]); return 0 }() // found
var Lazy = sync.OnceValue(func() *re.Regexp { return re.MustCompile("lazy") })
var NotCalled = func() *re.Regexp { return re.MustCompile("later") }
func reader() { var b [1]byte; _, _ = io.ReadFull(rand.Reader, b[:]) }
func init() { reader() }                        // found (rand.Reader)
func Exported() int { return len(mk().String()) }
`,
			"dot.go": `package a
import . "regexp"
var Dot = MustCompile("dot") // found
`,
		},
		module + "b": {
			"b.go": `package b
import "github.com/opforge/opforge/a"
var Cross = a.Exported() // found, in package a
func later() int { return a.Exported() }
`,
		},
	}
	idx := &linkedIndex{fset: token.NewFileSet(), funcs: map[string]map[string]funcAt{}}
	for pkg, files := range pkgs {
		for name, src := range files {
			if _, err := idx.add(pkg, name, src); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := map[string]int{}
	for _, f := range idx.files {
		for _, root := range initRoots(f.ast) {
			w := &initWalk{idx: idx, followed: map[*ast.FuncDecl]bool{}}
			w.walk(f, root)
			for _, u := range w.found {
				p := idx.fset.Position(root.Pos())
				got[p.Filename+":"+strconv.Itoa(p.Line)+" "+u.name]++
			}
		}
	}
	want := map[string]int{
		"a.go:9 regexp.MustCompile":   1,
		"a.go:10 regexp.MustCompile":  1,
		"a.go:11 regexp.MustCompile":  1,
		"a.go:12 crypto/rand.Read":    1,
		"a.go:16 crypto/rand.Reader":  1,
		"dot.go:3 regexp.MustCompile": 1,
		"b.go:3 regexp.MustCompile":   1,
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: found %d times, want %d", k, got[k], n)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: found, but it runs after main (lazy or never called at init)", k)
		}
	}
}
