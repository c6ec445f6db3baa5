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
// (the module's; its dependencies' inits are theirs). Every Go file
// (tests aside) of each module package the binary links is parsed, every
// platform's variant included, and a use of costlyAtStart in what runs
// before main is reported at file:line. What runs before main is taken
// wide: a package variable's initializer and an init func, a func literal
// there that is called on the spot, and every function of the module
// they name (called, passed or stored as a value, generic, through a
// dot-import, or a package variable holding a func literal), followed
// through packages. Not followed: methods, and a func literal that is not
// called where it stands (what sync.OnceValue defers). A no-op build is
// a few milliseconds; its start is most of them.
func TestNothingCostlyBeforeMain(t *testing.T) {
	idx := indexLinked(t)
	if len(idx.files) < 100 {
		t.Fatalf("parsed %d files: the walk of the imports missed the module", len(idx.files))
	}
	for _, u := range idx.costlyBeforeMain() {
		t.Errorf("%s: %s runs before main in every command (from %s); make it on first use (sync.OnceValue)",
			idx.fset.Position(u.pos), u.name, idx.fset.Position(u.root))
	}
}

// module is this module's import path prefix; the test runs three
// folders below the module's root.
const module = "github.com/opforge/opforge/"

type parsedFile struct {
	ast  *ast.File
	pkg  string            // import path
	imps map[string]string // local name -> import path
	dots []string          // dot-imported paths
}

type linkedIndex struct {
	fset  *token.FileSet
	files []*parsedFile
	// funcs are the module's package-level functions (and variables
	// holding a func literal) by import path and name: every platform's
	// variant, with the file each is in.
	funcs map[string]map[string][]funcAt
	// names are the module's packages' names by import path.
	names map[string]string
}

type funcAt struct {
	body ast.Node
	file *parsedFile
}

func newLinkedIndex() *linkedIndex {
	return &linkedIndex{fset: token.NewFileSet(), funcs: map[string]map[string][]funcAt{}, names: map[string]string{}}
}

// indexLinked parses the module's packages this one imports, directly or
// not (build constraints aside: a superset).
func indexLinked(t *testing.T) *linkedIndex {
	root := filepath.Join("..", "..", "..")
	idx := newLinkedIndex()
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
	idx.names[pkg] = f.Name.Name
	pf := &parsedFile{ast: f, pkg: pkg}
	var mods []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if strings.HasPrefix(p, module) {
			mods = append(mods, p)
		}
	}
	if idx.funcs[pkg] == nil {
		idx.funcs[pkg] = map[string][]funcAt{}
	}
	at := func(name string, body ast.Node) {
		idx.funcs[pkg][name] = append(idx.funcs[pkg][name], funcAt{body, pf})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Body != nil {
				at(d.Name.Name, d.Body)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				if v, ok := spec.(*ast.ValueSpec); ok && d.Tok == token.VAR {
					for i, val := range v.Values {
						if lit, ok := val.(*ast.FuncLit); ok && i < len(v.Names) {
							at(v.Names[i].Name, lit.Body)
						}
					}
				}
			}
		}
	}
	idx.files = append(idx.files, pf)
	return mods, nil
}

// resolve names each file's imports: by the name an import gives, else
// by the imported package's own name (the module's, as parsed), else by
// its path's last element.
func (idx *linkedIndex) resolve() {
	for _, pf := range idx.files {
		pf.imps, pf.dots = map[string]string{}, nil
		for _, imp := range pf.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			local := p[strings.LastIndex(p, "/")+1:]
			if n, ok := idx.names[p]; ok {
				local = n
			}
			if imp.Name != nil {
				local = imp.Name.Name
			}
			if local == "." {
				pf.dots = append(pf.dots, p)
			} else {
				pf.imps[local] = p
			}
		}
	}
}

// costlyUse is a use of costlyAtStart at pos, reached from the code that
// runs before main at root.
type costlyUse struct {
	pos, root token.Pos
	name      string
}

// costlyBeforeMain walks what runs before main in every file.
func (idx *linkedIndex) costlyBeforeMain() []costlyUse {
	idx.resolve()
	var found []costlyUse
	for _, f := range idx.files {
		for _, root := range initRoots(f.ast) {
			w := &initWalk{idx: idx, followed: map[ast.Node]bool{}}
			w.walk(f, root)
			for _, u := range w.found {
				u.root = root.Pos()
				found = append(found, u)
			}
		}
	}
	return found
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

// initWalk finds the costly uses one root reaches.
type initWalk struct {
	idx      *linkedIndex
	followed map[ast.Node]bool
	found    []costlyUse
}

func (w *initWalk) walk(f *parsedFile, n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // runs when called; a call on the spot is below
		case *ast.CallExpr:
			if lit, ok := unparen(n.Fun).(*ast.FuncLit); ok {
				w.walk(f, lit.Body)
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok {
				if path, ok := f.imps[x.Name]; ok {
					w.check(path, n.Sel.Name, n.Pos())
					w.follow(path, n.Sel.Name)
				}
			}
		case *ast.Ident:
			// This package's function, or a dot-import's: named at all,
			// it may be called.
			w.follow(f.pkg, n.Name)
			for _, p := range f.dots {
				w.check(p, n.Name, n.Pos())
				w.follow(p, n.Name)
			}
		}
		return true
	})
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// check records name of the package at path when costlyAtStart lists it.
func (w *initWalk) check(path, name string, pos token.Pos) {
	for _, c := range costlyAtStart[path] {
		if c == name {
			w.found = append(w.found, costlyUse{pos: pos, name: path + "." + name})
		}
	}
}

// follow walks every variant of the module's function name of the
// package at path, each once per root.
func (w *initWalk) follow(path, name string) {
	for _, fn := range w.idx.funcs[path][name] {
		if w.followed[fn.body] {
			continue
		}
		w.followed[fn.body] = true
		w.walk(fn.file, fn.body)
	}
}

// TestCostlyUsesFound holds the walk to the uses it must find and the
// lazy ones it must pass, over a module of packages in memory: every
// line marked "// found" starts a walk that reaches a costly use, and no
// other line does.
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
var Direct = re.MustCompile("direct") // found
var ViaHelper = mk() // found
var FuncValue = re.MustCompile // found: a value, called later
var OnSpot = func() int { var b [1]byte; rand.Read(b[:]); return 0 }() // found
var Lazy = sync.OnceValue(func() *re.Regexp { return re.MustCompile("lazy") })
var NotCalled = func() *re.Regexp { return re.MustCompile("later") }
func reader() { var b [1]byte; _, _ = io.ReadFull(rand.Reader, b[:]) }
func init() { reader() } // found
func Exported() int { return len(mk().String()) }
func gen[T any]() *re.Regexp { return re.MustCompile("g") }
var Generic = gen[int]() // found
var Paren = (mk)() // found
var mkv = func() *re.Regexp { return re.MustCompile("v") }
var ViaVar = mkv() // found
func call(f func() *re.Regexp) *re.Regexp { return f() }
var Passed = call(mk) // found
var ViaLazy = Lazy
func later() *re.Regexp { return mk() }
var Plain = 1 + len("x")
`,
			"dot.go": `package a
import . "regexp"
var Dot = MustCompile("dot") // found
`,
			"of_unix.go": `//go:build unix
package a
func of() {}
`,
			"of_other.go": `//go:build !unix
package a
import "regexp"
func of() { regexp.MustCompile("other") }
`,
			"variant.go": `package a
var Variant = func() int { of(); return 0 }() // found
`,
		},
		module + "b": {
			"b.go": `package b
import (
	"github.com/opforge/opforge/a"
	"github.com/opforge/opforge/d/v2"
)
var Cross = a.Exported() // found
var Renamed = d.Mk() // found
func later() int { return a.Exported() }
`,
			"dotmod.go": `package b
import . "github.com/opforge/opforge/a"
var DotModule = Exported() // found
`,
		},
		module + "d/v2": {
			"d.go": `package d
import "regexp"
func Mk() *regexp.Regexp { return regexp.MustCompile("d") }
`,
		},
	}
	idx := newLinkedIndex()
	want := map[string]bool{}
	for pkg, files := range pkgs {
		for name, src := range files {
			if _, err := idx.add(pkg, name, src); err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(src, "\n") {
				if strings.Contains(line, "// found") {
					want[name+":"+strconv.Itoa(i+1)] = true
				}
			}
		}
	}
	got := map[string]bool{}
	for _, u := range idx.costlyBeforeMain() {
		p := idx.fset.Position(u.root)
		got[p.Filename+":"+strconv.Itoa(p.Line)] = true
	}
	for k := range want {
		if !got[k] {
			t.Errorf("%s: a costly use runs before main from here; the walk missed it", k)
		}
	}
	for k := range got {
		if !want[k] {
			t.Errorf("%s: the walk found a costly use from here, but it runs after main (lazy, or never called)", k)
		}
	}
}
