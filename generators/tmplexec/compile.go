package tmplexec

import (
	"fmt"
	"reflect"
	"strings"
	"text/template"
	"text/template/parse"
)

// The compiled forms. A node writes; a pipe and an expr give a value. An
// expr is one command of a pipeline: final is the value the pipeline's
// last command gave (present only in commands after the first, which the
// compiler knows).
type (
	node func(s *state, dot reflect.Value) error
	pipe func(s *state, dot reflect.Value) (reflect.Value, error)
	expr func(s *state, dot, final reflect.Value) (reflect.Value, error)
)

type compiler struct {
	funcs template.FuncMap
}

// notCompiled says what the compiler leaves to text/template.
func notCompiled(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

func (c *compiler) list(l *parse.ListNode) (node, error) {
	var nodes []node
	for _, n := range l.Nodes {
		f, err := c.node(n)
		if err != nil {
			return nil, err
		}
		if f != nil {
			nodes = append(nodes, f)
		}
	}
	switch len(nodes) {
	case 0:
		return func(*state, reflect.Value) error { return nil }, nil
	case 1:
		return nodes[0], nil
	}
	return func(s *state, dot reflect.Value) error {
		for _, f := range nodes {
			if err := f(s, dot); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// optList is list for an else branch (nil: none).
func (c *compiler) optList(l *parse.ListNode) (node, error) {
	if l == nil {
		return nil, nil
	}
	return c.list(l)
}

func (c *compiler) node(n parse.Node) (node, error) {
	switch n := n.(type) {
	case *parse.TextNode:
		text := n.Text
		return func(s *state, _ reflect.Value) error {
			s.w.Write(text)
			return nil
		}, nil
	case *parse.CommentNode:
		return nil, nil
	case *parse.ActionNode:
		p, err := c.pipe(n.Pipe)
		if err != nil {
			return nil, err
		}
		if len(n.Pipe.Decl) > 0 { // a declaration prints nothing
			return func(s *state, dot reflect.Value) error {
				_, err := p(s, dot)
				return err
			}, nil
		}
		site := new(printSite)
		return func(s *state, dot reflect.Value) error {
			v, err := p(s, dot)
			if err != nil {
				return err
			}
			return s.print(v, site)
		}, nil
	case *parse.IfNode:
		return c.ifOrWith(false, n.Pipe, n.List, n.ElseList)
	case *parse.WithNode:
		return c.ifOrWith(true, n.Pipe, n.List, n.ElseList)
	case *parse.RangeNode:
		return c.rangeNode(n)
	case *parse.TemplateNode:
		return c.templateNode(n)
	case *parse.BreakNode:
		return func(*state, reflect.Value) error { return errBreak }, nil
	case *parse.ContinueNode:
		return func(*state, reflect.Value) error { return errContinue }, nil
	}
	return nil, notCompiled("node %s", n)
}

func (c *compiler) ifOrWith(with bool, pp *parse.PipeNode, list, elseList *parse.ListNode) (node, error) {
	p, err := c.pipe(pp)
	if err != nil {
		return nil, err
	}
	body, err := c.list(list)
	if err != nil {
		return nil, err
	}
	orElse, err := c.optList(elseList)
	if err != nil {
		return nil, err
	}
	return func(s *state, dot reflect.Value) error {
		mark := len(s.vars)
		v, err := p(s, dot)
		if err != nil {
			return err
		}
		truth, ok := isTrue(indirectInterface(v))
		if !ok {
			return errGiveUp
		}
		switch {
		case truth && with:
			err = body(s, v)
		case truth:
			err = body(s, dot)
		case orElse != nil:
			err = orElse(s, dot)
		}
		s.vars = s.vars[:mark]
		return err
	}, nil
}

func (c *compiler) rangeNode(r *parse.RangeNode) (node, error) {
	p, err := c.pipe(r.Pipe)
	if err != nil {
		return nil, err
	}
	body, err := c.list(r.List)
	if err != nil {
		return nil, err
	}
	orElse, err := c.optList(r.ElseList)
	if err != nil {
		return nil, err
	}
	rn := &rangeLoop{body: body, decls: len(r.Pipe.Decl), assign: r.Pipe.IsAssign}
	if rn.decls > 0 {
		rn.first = r.Pipe.Decl[0].Ident[0]
	}
	if rn.decls > 1 {
		rn.second = r.Pipe.Decl[1].Ident[0]
	}
	return func(s *state, dot reflect.Value) error {
		outer := len(s.vars)
		pv, err := p(s, dot)
		if err != nil {
			return err
		}
		val, _ := indirect(pv)
		mark := len(s.vars) // above the range's own variables
		ran := false
		switch val.Kind() {
		case reflect.Array, reflect.Slice:
			for i, n := 0, val.Len(); i < n; i++ {
				ran = true
				if err = rn.one(s, mark, reflect.ValueOf(i), val.Index(i)); err != nil {
					break
				}
			}
		case reflect.Map:
			if val.Len() == 0 {
				break
			}
			keys, ok := sortedMapKeys(val)
			if !ok {
				return errGiveUp
			}
			for _, k := range keys {
				ran = true
				if err = rn.one(s, mark, k, val.MapIndex(k)); err != nil {
					break
				}
			}
		case reflect.Invalid:
			// a nil map or the like: as an empty one
		default:
			return errGiveUp // ints, channels, iterators: text/template's
		}
		if err == errBreak {
			err = nil
		} else if err == nil && !ran && orElse != nil {
			err = orElse(s, dot)
		}
		s.vars = s.vars[:outer]
		return err
	}, nil
}

// rangeLoop is what one iteration of a compiled range needs.
type rangeLoop struct {
	body          node
	decls         int
	assign        bool
	first, second string // the declared variables
}

// one runs the body for one element, setting the variables as
// text/template does: with two, index and element; with one, the element.
// mark is where the range's variables end.
func (r *rangeLoop) one(s *state, mark int, index, elem reflect.Value) error {
	if r.decls > 0 {
		if r.assign {
			v := elem
			if r.decls > 1 {
				v = index
			}
			if err := s.setVar(r.first, v); err != nil {
				return err
			}
		} else {
			s.vars[len(s.vars)-1].value = elem
		}
	}
	if r.decls > 1 {
		if r.assign {
			if err := s.setVar(r.second, elem); err != nil {
				return err
			}
		} else {
			s.vars[len(s.vars)-2].value = index
		}
	}
	err := r.body(s, elem)
	s.vars = s.vars[:mark]
	if err == errContinue {
		err = nil
	}
	return err
}

func (c *compiler) templateNode(t *parse.TemplateNode) (node, error) {
	p, err := c.pipe(t.Pipe)
	if err != nil {
		return nil, err
	}
	name := t.Name
	return func(s *state, dot reflect.Value) error {
		callee := s.p.tmpls[name]
		if callee == nil || s.depth >= maxDepth {
			return errGiveUp
		}
		v, err := p(s, dot)
		if err != nil {
			return err
		}
		// No dynamic scoping: the callee sees $ and nothing else. Its
		// variables go above the caller's, in the same array: the caller
		// reads none past its own, and has them back as they were.
		saved := s.vars
		s.vars = append(saved[len(saved):], variable{"$", v})
		s.depth++
		err = callee.root(s, v)
		s.vars = saved
		s.depth--
		return err
	}, nil
}

// pipe compiles a pipeline; a nil one gives the invalid value.
func (c *compiler) pipe(pp *parse.PipeNode) (pipe, error) {
	if pp == nil {
		return func(*state, reflect.Value) (reflect.Value, error) { return reflect.Value{}, nil }, nil
	}
	cmds := make([]expr, len(pp.Cmds))
	for i, cmd := range pp.Cmds {
		e, err := c.command(cmd, i > 0)
		if err != nil {
			return nil, err
		}
		cmds[i] = e
	}
	decls := make([]string, len(pp.Decl))
	for i, d := range pp.Decl {
		decls[i] = d.Ident[0]
	}
	assign := pp.IsAssign
	return func(s *state, dot reflect.Value) (reflect.Value, error) {
		var value reflect.Value
		for _, cmd := range cmds {
			v, err := cmd(s, dot, value)
			if err != nil {
				return v, err
			}
			// An interface{} is dug into, one level.
			if v.Kind() == reflect.Interface && v.Type().NumMethod() == 0 {
				v = v.Elem()
			}
			value = v
		}
		for _, d := range decls {
			if assign {
				if err := s.setVar(d, value); err != nil {
					return value, err
				}
			} else {
				s.vars = append(s.vars, variable{d, value})
			}
		}
		return value, nil
	}, nil
}

// command compiles one command of a pipeline; hasFinal: it is not the
// first, so the previous command's value is its last argument.
func (c *compiler) command(cmd *parse.CommandNode, hasFinal bool) (expr, error) {
	args := cmd.Args
	switch n := args[0].(type) {
	case *parse.FieldNode:
		chain, err := c.fieldChain(n.Ident, args, hasFinal)
		if err != nil {
			return nil, err
		}
		return func(s *state, dot, final reflect.Value) (reflect.Value, error) {
			return chain(s, dot, dot, final)
		}, nil
	case *parse.IdentifierNode:
		return c.function(n.Ident, args, hasFinal)
	case *parse.VariableNode:
		return c.variable(n, args, hasFinal)
	}
	if len(args) > 1 || hasFinal {
		return nil, notCompiled("arguments to non-function %s", args[0])
	}
	switch n := args[0].(type) {
	case *parse.PipeNode:
		p, err := c.pipe(n)
		if err != nil {
			return nil, err
		}
		return func(s *state, dot, _ reflect.Value) (reflect.Value, error) { return p(s, dot) }, nil
	case *parse.DotNode:
		return func(_ *state, dot, _ reflect.Value) (reflect.Value, error) { return dot, nil }, nil
	case *parse.BoolNode, *parse.NumberNode, *parse.StringNode:
		v, err := constant(n)
		if err != nil {
			return nil, err
		}
		return func(*state, reflect.Value, reflect.Value) (reflect.Value, error) { return v, nil }, nil
	}
	return nil, notCompiled("command %s", args[0])
}

// constant is a literal's value where no type asks for one (text/template's
// ideal constants).
func constant(n parse.Node) (reflect.Value, error) {
	switch n := n.(type) {
	case *parse.BoolNode:
		return reflect.ValueOf(n.True), nil
	case *parse.StringNode:
		return reflect.ValueOf(n.Text), nil
	case *parse.NumberNode:
		switch {
		case n.IsComplex:
		case n.IsFloat && !isHexInt(n.Text) && !isRuneInt(n.Text) && strings.ContainsAny(n.Text, ".eEpP"):
			return reflect.ValueOf(n.Float64), nil
		case n.IsInt && int64(int(n.Int64)) == n.Int64:
			return reflect.ValueOf(int(n.Int64)), nil
		}
	}
	return reflect.Value{}, notCompiled("constant %s", n)
}

func isRuneInt(s string) bool { return len(s) > 0 && s[0] == '\'' }

func isHexInt(s string) bool {
	return len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && !strings.ContainsAny(s, "pP")
}

// variable compiles $x or $x.Field.Chain as a command.
func (c *compiler) variable(v *parse.VariableNode, args []parse.Node, hasFinal bool) (expr, error) {
	name := v.Ident[0]
	if len(v.Ident) == 1 {
		if len(args) > 1 || hasFinal {
			return nil, notCompiled("arguments to variable %s", v)
		}
		return func(s *state, _, _ reflect.Value) (reflect.Value, error) { return s.varValue(name) }, nil
	}
	chain, err := c.fieldChain(v.Ident[1:], args, hasFinal)
	if err != nil {
		return nil, err
	}
	return func(s *state, dot, final reflect.Value) (reflect.Value, error) {
		receiver, err := s.varValue(name)
		if err != nil {
			return receiver, err
		}
		return chain(s, dot, receiver, final)
	}, nil
}

// fieldChain compiles .A.B.C from a receiver; the last link gets the
// command's arguments (args[1:]) and final.
func (c *compiler) fieldChain(ident []string, args []parse.Node, hasFinal bool) (func(s *state, dot, receiver, final reflect.Value) (reflect.Value, error), error) {
	if len(args) > 1 {
		return nil, notCompiled("method arguments in %s", args[0])
	}
	sites := make([]*fieldSite, len(ident))
	for i, name := range ident {
		sites[i] = &fieldSite{name: name, hasArgs: i == len(ident)-1 && hasFinal}
	}
	return func(s *state, dot, receiver, final reflect.Value) (reflect.Value, error) {
		var err error
		for _, site := range sites {
			if receiver, err = site.eval(receiver); err != nil {
				return receiver, err
			}
		}
		return receiver, nil
	}, nil
}
