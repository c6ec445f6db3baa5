package render

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"text/template/parse"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/templates"
)

// builtins are text/template's own functions, which every template has.
var builtins = strings.Fields("and call html index slice js len not or print printf println urlquery eq ge gt le lt ne")

// TestFuncMapIsTheAllowList: the function map holds exactly join and the
// escapers; some template calls join; every function a template calls is
// in the map.
func TestFuncMapIsTheAllowList(t *testing.T) {
	want := slices.Concat([]string{"join"}, escape.FuncNames())
	slices.Sort(want)
	got := slices.Sorted(maps.Keys(FuncMap(nil)))
	if !slices.Equal(got, want) {
		t.Errorf("FuncMap holds %v, want join and the escapers %v", got, want)
	}
	called := templateCalls(t)
	for name, where := range called {
		if _, ok := FuncMap(nil)[name]; !ok && !slices.Contains(builtins, name) {
			t.Errorf("%s calls %s, which the function map does not hold", where, name)
		}
	}
	if _, ok := called["join"]; !ok {
		t.Error("no template calls join: take it out of the function map")
	}
}

// TestJoin: join prints a list's elements, whatever their type, leaving
// nil ones out, and a value that is not a list alone.
func TestJoin(t *testing.T) {
	tests := []struct {
		list any
		want string
	}{
		{[]string{"a", "b"}, "a, b"},
		{[]string{}, ""},
		{[]any{"a", nil, 3, 1.5, true}, "a, 3, 1.5, true"},
		{[]int{1, 2}, "1, 2"},
		{[2]string{"x", "y"}, "x, y"},
		{[]fmt.Stringer{stringer("s")}, "S"},
		{nil, ""},
		{7, "7"},
		{"alone", "alone"},
	}
	for _, tt := range tests {
		if got := join(", ", tt.list); got != tt.want {
			t.Errorf("join(%#v) = %q, want %q", tt.list, got, tt.want)
		}
	}
}

type stringer string

func (s stringer) String() string { return strings.ToUpper(string(s)) }

// templateCalls maps every function the templates call to the first
// template calling it. The templates are parsed knowing every builtin and
// every function of the map; a call of any other is a parse error.
func templateCalls(t *testing.T) map[string]string {
	t.Helper()
	funcs := map[string]any{}
	for k, v := range FuncMap(nil) {
		funcs[k] = v
	}
	for _, b := range builtins {
		funcs[b] = true
	}
	files, err := fs.Glob(templates.FS, "*/*.tmpl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	called := map[string]string{}
	for _, f := range files {
		src, _ := fs.ReadFile(templates.FS, f)
		trees, err := parse.Parse(f, string(src), "{{", "}}", funcs)
		if err != nil {
			t.Fatal(err)
		}
		for _, tree := range trees {
			walkCalls(tree.Root, func(name string) {
				if _, seen := called[name]; !seen {
					called[name] = f
				}
			})
		}
	}
	if len(called) == 0 {
		t.Fatal("the templates call no function")
	}
	return called
}

// walkCalls calls found with the name of every function n calls.
func walkCalls(n parse.Node, found func(string)) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n != nil {
			for _, c := range n.Nodes {
				walkCalls(c, found)
			}
		}
	case *parse.ActionNode:
		walkCalls(n.Pipe, found)
	case *parse.IfNode:
		walkBranch(&n.BranchNode, found)
	case *parse.RangeNode:
		walkBranch(&n.BranchNode, found)
	case *parse.WithNode:
		walkBranch(&n.BranchNode, found)
	case *parse.TemplateNode:
		walkCalls(n.Pipe, found)
	case *parse.PipeNode:
		if n != nil {
			for _, c := range n.Cmds {
				walkCalls(c, found)
			}
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			walkCalls(a, found)
		}
	case *parse.ChainNode:
		walkCalls(n.Node, found)
	case *parse.IdentifierNode:
		found(n.Ident)
	}
}

func walkBranch(b *parse.BranchNode, found func(string)) {
	walkCalls(b.Pipe, found)
	walkCalls(b.List, found)
	walkCalls(b.ElseList, found)
}

// TestOtherFunctionsDoNotParse: a template calling a function the map does
// not hold (time, environment, chance, secrets, as template libraries
// offer them) fails to load, naming the function.
func TestOtherFunctionsDoNotParse(t *testing.T) {
	for _, call := range []string{`env "HOME"`, `now`, `expandenv "$HOME"`, `randAlpha 4`, `uuidv4`, `genPrivateKey "rsa"`, `date "2006" now`, `upper "a"`} {
		fsys := fstest.MapFS{"t/x.tmpl": {Data: []byte("{{ " + call + " }}")}}
		_, err := Load(fsys, "t", nil)
		name := strings.Fields(call)[0]
		if err == nil || !strings.Contains(err.Error(), `function "`+name+`" not defined`) {
			t.Errorf("{{ %s }}: %v, want function %q not defined", call, err, name)
		}
	}
	fsys := fstest.MapFS{"t/x.tmpl": {Data: []byte(`{{ join ", " .X }} {{ cstr "a" }}`)}}
	if _, err := Load(fsys, "t", nil); err != nil {
		t.Errorf("join and an escaper: %v", err)
	}
}
