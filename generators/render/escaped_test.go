package render

import (
	"io/fs"
	"strings"
	"testing"
	"text/template/parse"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/templates"
)

// freeText are the model fields that carry text from an opdef (or an ONNX
// model) as written: descriptions, versions, enum values, framework op
// types, QNN texts. A template may print them only through an escaper.
var freeText = map[string]bool{
	"Description": true, "Version": true, "FrameworkOp": true, "Value": true, "Values": false,
	"Text": true, "URL": true, "Source": true, "Runtime": true, "Backend": true, "Namespace": false,
}

// TestTemplatesEscapeFreeText walks every template and fails where a
// free-text field (or the dot of a `with` over one) is printed without an
// escaper from generators/escape.
func TestTemplatesEscapeFreeText(t *testing.T) {
	escapers := map[string]bool{}
	for _, n := range escape.FuncNames() {
		escapers[n] = true
	}
	files, err := fs.Glob(templates.FS, "*/*.tmpl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	checked := 0
	for _, f := range files {
		src, _ := fs.ReadFile(templates.FS, f)
		funcs := map[string]any{}
		for k, v := range FuncMap(nil) {
			funcs[k] = v
		}
		for _, b := range strings.Fields("and or not len index slice print printf println html js urlquery eq ne lt le gt ge call") {
			funcs[b] = true
		}
		trees, err := parse.Parse(f, string(src), "{{", "}}", funcs)
		if err != nil {
			t.Fatal(err)
		}
		for _, tree := range trees {
			if tree.Root == nil {
				continue
			}
			w := &walker{t: t, file: f, src: string(src), escapers: escapers}
			w.list(tree.Root, false)
			checked += w.prints
		}
	}
	if checked < 100 {
		t.Fatalf("only %d printing actions found", checked)
	}
}

type walker struct {
	t        *testing.T
	file     string
	src      string
	escapers map[string]bool
	prints   int
}

// freeField reports whether a pipeline's value is a free-text field (or
// the dot, when dotFree says the dot is one).
func freeField(arg parse.Node, dotFree bool) (string, bool) {
	switch n := arg.(type) {
	case *parse.FieldNode:
		return n.Ident[len(n.Ident)-1], freeText[n.Ident[len(n.Ident)-1]]
	case *parse.VariableNode:
		if len(n.Ident) > 1 {
			return n.Ident[len(n.Ident)-1], freeText[n.Ident[len(n.Ident)-1]]
		}
	case *parse.ChainNode:
		if len(n.Field) > 0 {
			return n.Field[len(n.Field)-1], freeText[n.Field[len(n.Field)-1]]
		}
	case *parse.DotNode:
		return ".", dotFree
	}
	return "", false
}

func (w *walker) list(l *parse.ListNode, dotFree bool) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		switch n := n.(type) {
		case *parse.ActionNode:
			if n.Pipe == nil || len(n.Pipe.Decl) > 0 {
				continue
			}
			w.prints++
			w.action(n, dotFree)
		case *parse.IfNode:
			w.list(n.List, dotFree)
			w.list(n.ElseList, dotFree)
		case *parse.RangeNode:
			w.list(n.List, false)
			w.list(n.ElseList, dotFree)
		case *parse.WithNode:
			free := false
			if cmds := n.Pipe.Cmds; len(cmds) == 1 && len(cmds[0].Args) == 1 {
				_, free = freeField(cmds[0].Args[0], dotFree)
			}
			w.list(n.List, free)
			w.list(n.ElseList, dotFree)
		}
	}
}

func (w *walker) action(n *parse.ActionNode, dotFree bool) {
	cmds := n.Pipe.Cmds
	// Escaped when any command of the pipeline is an escaper call:
	// {{ cstr .X }} or {{ .X | cstr }}.
	for _, c := range cmds {
		if id, ok := c.Args[0].(*parse.IdentifierNode); ok && w.escapers[id.Ident] {
			return
		}
	}
	for _, c := range cmds {
		for _, a := range c.Args {
			if name, free := freeField(a, dotFree); free {
				line := 1 + strings.Count(w.src[:int(n.Pos)], "\n")
				w.t.Errorf("%s:%d: %s is free text printed without an escaper (%s): %s", w.file, line, name, strings.Join(escape.FuncNames(), ", "), n)
			}
		}
	}
}
