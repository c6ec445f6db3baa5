package render

import (
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"text/template/parse"

	"github.com/Masterminds/sprig/v3"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/templates"
)

// builtins are text/template's own functions, which every template has.
var builtins = strings.Fields("and call html index slice js len not or print printf println urlquery eq ge gt le lt ne")

// TestFuncMapIsTheAllowList: the function map holds exactly the allowed
// sprig functions and the escapers; every allowed sprig function exists
// in sprig and some template calls it; every function a template calls is
// in the map.
func TestFuncMapIsTheAllowList(t *testing.T) {
	want := slices.Concat(sprigFuncs, escape.FuncNames())
	slices.Sort(want)
	got := slices.Sorted(maps.Keys(FuncMap(nil)))
	if !slices.Equal(got, want) {
		t.Errorf("FuncMap holds %v, want the allowed sprig functions and the escapers %v", got, want)
	}
	all := sprig.TxtFuncMap()
	for _, name := range sprigFuncs {
		if all[name] == nil {
			t.Errorf("sprig has no function %q", name)
		}
	}
	called := templateCalls(t)
	for name, where := range called {
		if _, ok := FuncMap(nil)[name]; !ok && !slices.Contains(builtins, name) {
			t.Errorf("%s calls %s, which the function map does not hold", where, name)
		}
	}
	for _, name := range sprigFuncs {
		if _, ok := called[name]; !ok {
			t.Errorf("no template calls sprig's %s: take it off the allow list", name)
		}
	}
}

// templateCalls maps every function the templates call to the first
// template calling it. The templates are parsed knowing every sprig
// function, so a call of one the map lacks is reported, not a parse error.
func templateCalls(t *testing.T) map[string]string {
	t.Helper()
	funcs := map[string]any{}
	for k, v := range sprig.TxtFuncMap() {
		funcs[k] = v
	}
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

// TestSprigOffTheListDoesNotParse: a template calling a sprig function
// that is not allowed (time, environment, chance, secrets) fails to load,
// naming the function.
func TestSprigOffTheListDoesNotParse(t *testing.T) {
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
		t.Errorf("an allowed sprig function and an escaper: %v", err)
	}
}
