package tmplexec

import (
	"fmt"
	"reflect"
	"text/template/parse"
)

// arg gives one argument's value for a parameter of a known type.
type arg func(s *state, dot reflect.Value) (reflect.Value, error)

// function compiles a call of the named function: the template's own
// functions first, then text/template's builtins, as text/template looks
// them up. args[0] is the name; args[1:] the arguments.
func (c *compiler) function(name string, args []parse.Node, hasFinal bool) (expr, error) {
	if len(args) > 0 {
		args = args[1:]
	}
	if f, ok := c.funcs[name]; ok && f != nil {
		return c.userCall(name, reflect.ValueOf(f), args, hasFinal)
	}
	return c.builtin(name, args, hasFinal)
}

// userCall compiles a call of a function of the map, checking the number
// of arguments and the results where text/template checks them on every
// call.
func (c *compiler) userCall(name string, fun reflect.Value, args []parse.Node, hasFinal bool) (expr, error) {
	typ := fun.Type()
	if typ.Kind() != reflect.Func || !goodResults(typ) {
		return nil, notCompiled("function %s of type %s", name, typ)
	}
	numIn := len(args)
	if hasFinal {
		numIn++
	}
	if typ.IsVariadic() || numIn != typ.NumIn() {
		return nil, notCompiled("call of %s with %d arguments", name, numIn)
	}
	argv := make([]arg, len(args))
	for i, a := range args {
		f, err := c.arg(a, typ.In(i))
		if err != nil {
			return nil, err
		}
		argv[i] = f
	}
	in := callArgs{argv: argv, hasFinal: hasFinal}
	if hasFinal {
		in.finalType = typ.In(numIn - 1)
	}
	// The escapers take and give a string: called directly, not through
	// reflect.Value.Call, as is sprig's join below.
	if f, ok := fun.Interface().(func(string) string); ok {
		return func(s *state, dot, final reflect.Value) (reflect.Value, error) {
			var v [1]reflect.Value
			if err := in.eval(s, dot, final, v[:]); err != nil {
				return reflect.Value{}, err
			}
			return reflect.ValueOf(f(v[0].String())), nil
		}, nil
	}
	// sprig's join takes a string and a value.
	if f, ok := fun.Interface().(func(string, any) string); ok {
		return func(s *state, dot, final reflect.Value) (reflect.Value, error) {
			var v [2]reflect.Value
			if err := in.eval(s, dot, final, v[:]); err != nil {
				return reflect.Value{}, err
			}
			return reflect.ValueOf(f(v[0].String(), v[1].Interface())), nil
		}, nil
	}
	return func(s *state, dot, final reflect.Value) (reflect.Value, error) {
		v := make([]reflect.Value, numIn)
		if err := in.eval(s, dot, final, v); err != nil {
			return reflect.Value{}, err
		}
		out := fun.Call(v)
		if len(out) == 2 && !out[1].IsNil() {
			return reflect.Value{}, errGiveUp
		}
		return unwrap(out[0]), nil
	}, nil
}

// callArgs evaluates a call's arguments for a function of the map: each
// argument for its parameter, then the pipeline's value (hasFinal) for the
// last parameter, of type finalType.
type callArgs struct {
	argv      []arg
	hasFinal  bool
	finalType reflect.Type
}

// eval writes the arguments' values to in, which has room for all of them.
func (c *callArgs) eval(s *state, dot, final reflect.Value, in []reflect.Value) error {
	for i, a := range c.argv {
		v, err := a(s, dot)
		if err != nil {
			return err
		}
		in[i] = v
	}
	if c.hasFinal {
		v, err := validateType(final, c.finalType)
		if err != nil {
			return err
		}
		in[len(in)-1] = v
	}
	return nil
}

// arg compiles an argument for a parameter of type typ, as text/template's
// evalArg evaluates it.
func (c *compiler) arg(n parse.Node, typ reflect.Type) (arg, error) {
	switch n := n.(type) {
	case *parse.DotNode:
		return func(_ *state, dot reflect.Value) (reflect.Value, error) { return validateType(dot, typ) }, nil
	case *parse.NilNode:
		if !canBeNil(typ) {
			return nil, notCompiled("nil for %s", typ)
		}
		z := reflect.Zero(typ)
		return func(*state, reflect.Value) (reflect.Value, error) { return z, nil }, nil
	case *parse.FieldNode, *parse.VariableNode, *parse.PipeNode, *parse.IdentifierNode:
		v, err := c.value(n)
		if err != nil {
			return nil, err
		}
		return func(s *state, dot reflect.Value) (reflect.Value, error) {
			x, err := v(s, dot)
			if err != nil {
				return x, err
			}
			return validateType(x, typ)
		}, nil
	}
	var v reflect.Value
	switch k := typ.Kind(); {
	case k == reflect.Bool:
		if b, ok := n.(*parse.BoolNode); ok {
			v = reflect.New(typ).Elem()
			v.SetBool(b.True)
		}
	case k == reflect.String:
		if str, ok := n.(*parse.StringNode); ok {
			v = reflect.New(typ).Elem()
			v.SetString(str.Text)
		}
	case k >= reflect.Int && k <= reflect.Int64:
		if num, ok := n.(*parse.NumberNode); ok && num.IsInt {
			v = reflect.New(typ).Elem()
			v.SetInt(num.Int64)
		}
	case k == reflect.Interface && typ.NumMethod() == 0:
		return c.value(n)
	case typ == reflectValueType:
		x, err := c.value(n)
		if err != nil {
			return nil, err
		}
		return func(s *state, dot reflect.Value) (reflect.Value, error) {
			v, err := x(s, dot)
			return reflect.ValueOf(v), err
		}, nil
	}
	if !v.IsValid() || !v.CanInterface() {
		return nil, notCompiled("argument %s for %s", n, typ)
	}
	return func(*state, reflect.Value) (reflect.Value, error) { return v, nil }, nil
}

// value compiles a node as text/template's evalEmptyInterface evaluates
// it: the value itself, for a parameter of type any.
func (c *compiler) value(n parse.Node) (arg, error) {
	switch n := n.(type) {
	case *parse.DotNode:
		return func(_ *state, dot reflect.Value) (reflect.Value, error) { return dot, nil }, nil
	case *parse.FieldNode:
		chain, err := c.fieldChain(n.Ident, nil, false)
		if err != nil {
			return nil, err
		}
		return func(s *state, dot reflect.Value) (reflect.Value, error) {
			return chain(s, dot, dot, reflect.Value{})
		}, nil
	case *parse.IdentifierNode:
		e, err := c.function(n.Ident, nil, false)
		if err != nil {
			return nil, err
		}
		return func(s *state, dot reflect.Value) (reflect.Value, error) { return e(s, dot, reflect.Value{}) }, nil
	case *parse.VariableNode:
		e, err := c.variable(n, nil, false)
		if err != nil {
			return nil, err
		}
		return func(s *state, dot reflect.Value) (reflect.Value, error) { return e(s, dot, reflect.Value{}) }, nil
	case *parse.PipeNode:
		p, err := c.pipe(n)
		if err != nil {
			return nil, err
		}
		return arg(p), nil
	case *parse.BoolNode, *parse.NumberNode, *parse.StringNode:
		v, err := constant(n)
		if err != nil {
			return nil, err
		}
		return func(*state, reflect.Value) (reflect.Value, error) { return v, nil }, nil
	}
	return nil, notCompiled("argument %s", n)
}

// builtin compiles a call of one of text/template's builtins the
// templates use; any other is left to text/template.
func (c *compiler) builtin(name string, args []parse.Node, hasFinal bool) (expr, error) {
	argv := make([]arg, len(args))
	for i, a := range args {
		if _, ok := a.(*parse.NilNode); ok {
			return nil, notCompiled("nil argument to %s", name)
		}
		v, err := c.value(a)
		if err != nil {
			return nil, err
		}
		argv[i] = v
	}
	n := len(args)
	if hasFinal {
		n++
	}
	// values evaluates every argument, the pipeline's value last. A
	// builtin's parameters are reflect.Values, and text/template passes an
	// argument of type reflect.Value as the Value it holds (unwrapArg); fmt's
	// are anys, which take a reflect.Value as itself (raw).
	values := func(s *state, dot, final reflect.Value, raw bool) ([]reflect.Value, error) {
		vs := make([]reflect.Value, 0, n)
		for _, a := range argv {
			v, err := a(s, dot)
			if err != nil {
				return nil, err
			}
			vs = append(vs, v)
		}
		if hasFinal {
			vs = append(vs, final)
		}
		if !raw {
			for i, v := range vs {
				vs[i] = unwrapArg(v)
			}
		}
		return vs, nil
	}
	switch name {
	case "and", "or":
		if n < 1 {
			break
		}
		or := name == "or"
		return func(s *state, dot, final reflect.Value) (reflect.Value, error) {
			var v reflect.Value
			for _, a := range argv { // short-circuit, as text/template does
				x, err := a(s, dot)
				if err != nil {
					return x, err
				}
				if v = unwrapArg(x); truth(v) == or {
					return v, nil
				}
			}
			if hasFinal {
				v = unwrapArg(final)
			}
			return v, nil
		}, nil
	case "not":
		if n != 1 {
			break
		}
		return func(s *state, dot, final reflect.Value) (reflect.Value, error) {
			vs, err := values(s, dot, final, false)
			if err != nil {
				return reflect.Value{}, err
			}
			return reflect.ValueOf(!truth(vs[0])), nil
		}, nil
	case "len":
		if n != 1 {
			break
		}
		return func(s *state, dot, final reflect.Value) (reflect.Value, error) {
			vs, err := values(s, dot, final, false)
			if err != nil {
				return reflect.Value{}, err
			}
			item, isNil := indirect(vs[0])
			if isNil {
				return item, errGiveUp
			}
			switch item.Kind() {
			case reflect.Array, reflect.Chan, reflect.Map, reflect.Slice, reflect.String:
				return reflect.ValueOf(item.Len()), nil
			}
			return item, errGiveUp
		}, nil
	case "index":
		if n < 1 {
			break
		}
		return func(s *state, dot, final reflect.Value) (reflect.Value, error) {
			vs, err := values(s, dot, final, false)
			if err != nil {
				return reflect.Value{}, err
			}
			return index(vs[0], vs[1:])
		}, nil
	case "eq", "ne":
		if n < 2 || (name == "ne" && n != 2) {
			break
		}
		ne := name == "ne"
		return func(s *state, dot, final reflect.Value) (reflect.Value, error) {
			vs, err := values(s, dot, final, false)
			if err != nil {
				return reflect.Value{}, err
			}
			t, ok := eq(vs[0], vs[1:])
			if !ok {
				return reflect.Value{}, errGiveUp
			}
			return reflect.ValueOf(t != ne), nil
		}, nil
	case "print", "printf":
		if name == "printf" && n < 1 {
			break
		}
		printf := name == "printf"
		return func(s *state, dot, final reflect.Value) (reflect.Value, error) {
			vs, err := values(s, dot, final, true)
			if err != nil {
				return reflect.Value{}, err
			}
			var format string
			if printf {
				f, err := validateType(vs[0], stringType)
				if err != nil {
					return f, err
				}
				format, vs = f.String(), vs[1:]
			}
			as := make([]any, len(vs))
			for i, v := range vs {
				if v.IsValid() {
					as[i] = v.Interface()
				}
			}
			if printf {
				return reflect.ValueOf(fmt.Sprintf(format, as...)), nil
			}
			return reflect.ValueOf(fmt.Sprint(as...)), nil
		}, nil
	}
	return nil, notCompiled("builtin %s with %d arguments", name, n)
}

// truth is text/template's for and, or and not.
func truth(v reflect.Value) bool {
	t, _ := isTrue(indirectInterface(v))
	return t
}

// index is text/template's index for slices, arrays, strings and maps
// whose key the index is assignable to; anything else, or an index out of
// range, gives up.
func index(item reflect.Value, indexes []reflect.Value) (reflect.Value, error) {
	item = indirectInterface(item)
	if !item.IsValid() {
		return item, errGiveUp
	}
	for _, ix := range indexes {
		ix = indirectInterface(ix)
		var isNil bool
		if item, isNil = indirect(item); isNil {
			return item, errGiveUp
		}
		switch item.Kind() {
		case reflect.Array, reflect.Slice, reflect.String:
			var x int64
			switch ix.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				x = ix.Int()
			default:
				return item, errGiveUp
			}
			if x < 0 || x >= int64(item.Len()) {
				return item, errGiveUp
			}
			item = item.Index(int(x))
		case reflect.Map:
			if !ix.IsValid() || !ix.Type().AssignableTo(item.Type().Key()) {
				return item, errGiveUp
			}
			if x := item.MapIndex(ix); x.IsValid() {
				item = x
			} else {
				item = reflect.Zero(item.Type().Elem())
			}
		default:
			return item, errGiveUp
		}
	}
	return item, nil
}

// eq is text/template's eq for values of basic kinds (bools, numbers,
// strings); ok is false where it would compare anything else or report
// an error.
func eq(a reflect.Value, bs []reflect.Value) (truth, ok bool) {
	a = indirectInterface(a)
	ka := basicKind(a)
	if ka == invalidKind {
		return false, false
	}
	for _, b := range bs {
		b = indirectInterface(b)
		kb := basicKind(b)
		t := false
		switch {
		case ka == intKind && kb == uintKind:
			t = a.Int() >= 0 && uint64(a.Int()) == b.Uint()
		case ka == uintKind && kb == intKind:
			t = b.Int() >= 0 && a.Uint() == uint64(b.Int())
		case ka != kb:
			return false, false
		case ka == boolKind:
			t = a.Bool() == b.Bool()
		case ka == intKind:
			t = a.Int() == b.Int()
		case ka == uintKind:
			t = a.Uint() == b.Uint()
		case ka == floatKind:
			t = a.Float() == b.Float()
		case ka == complexKind:
			t = a.Complex() == b.Complex()
		case ka == stringKind:
			t = a.String() == b.String()
		}
		if t {
			return true, true
		}
	}
	return false, true
}

type kind int

const (
	invalidKind kind = iota
	boolKind
	complexKind
	intKind
	floatKind
	stringKind
	uintKind
)

func basicKind(v reflect.Value) kind {
	switch v.Kind() {
	case reflect.Bool:
		return boolKind
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intKind
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintKind
	case reflect.Float32, reflect.Float64:
		return floatKind
	case reflect.Complex64, reflect.Complex128:
		return complexKind
	case reflect.String:
		return stringKind
	}
	return invalidKind
}

// unwrapArg is a builtin's argument as the builtin sees it: a value of
// type reflect.Value is the Value it holds.
func unwrapArg(v reflect.Value) reflect.Value {
	if v.IsValid() && v.Type() == reflectValueType {
		return v.Interface().(reflect.Value)
	}
	return v
}
