package tmplexec

import (
	"reflect"
	"sync/atomic"
)

// fieldSite is one .Name in a template. It remembers how it resolved Name
// for the last receiver type it met, so a site that sees one type (nearly
// every site: templates are written against typed rows) looks the name up
// once, not once per execution as text/template does. Templates execute
// on every core at once, so the memo is swapped whole, atomically.
type fieldSite struct {
	name    string
	hasArgs bool // a pipeline's value follows: an error for a field
	memo    atomic.Pointer[resolution]
}

// resolution is what Name is on a receiver of type typ (addr: the
// receiver was addressable, so its pointer's methods count too).
type resolution struct {
	typ    reflect.Type
	addr   bool
	how    int // one of the resolved* kinds
	index  []int
	method int
	key    reflect.Value // a map's key: Name
}

const (
	resolvedNot = iota // left to text/template
	resolvedMethod
	resolvedField
	resolvedMapKey
)

// eval is text/template's evalField for a field without arguments, or
// gives up where text/template would report an error.
func (f *fieldSite) eval(receiver reflect.Value) (reflect.Value, error) {
	if !receiver.IsValid() {
		return receiver, errGiveUp
	}
	rv, isNil := indirect(receiver)
	if isNil {
		return receiver, errGiveUp
	}
	addr := rv.CanAddr()
	r := f.memo.Load()
	if r == nil || r.typ != rv.Type() || r.addr != addr {
		r = f.resolve(rv.Type(), addr)
		f.memo.Store(r)
	}
	switch r.how {
	case resolvedField:
		if f.hasArgs {
			return receiver, errGiveUp
		}
		if len(r.index) == 1 {
			return rv.Field(r.index[0]), nil
		}
		v, err := rv.FieldByIndexErr(r.index)
		if err != nil {
			return receiver, errGiveUp
		}
		return v, nil
	case resolvedMethod:
		if f.hasArgs {
			return receiver, errGiveUp
		}
		ptr := rv
		if addr {
			ptr = rv.Addr()
		}
		return callMethod(ptr.Method(r.method))
	case resolvedMapKey:
		if f.hasArgs {
			return receiver, errGiveUp
		}
		v := rv.MapIndex(r.key)
		if !v.IsValid() {
			return receiver, errGiveUp // missing key: text/template's option decides
		}
		return v, nil
	}
	return receiver, errGiveUp
}

// resolve finds Name on typ in text/template's order: a method of the
// value or, when addressable, its pointer; then a struct's exported field
// or a string-keyed map's entry.
func (f *fieldSite) resolve(typ reflect.Type, addr bool) *resolution {
	r := &resolution{typ: typ, addr: addr}
	mt := typ
	if addr {
		mt = reflect.PointerTo(typ)
	}
	if m, ok := mt.MethodByName(f.name); ok {
		r.how, r.method = resolvedMethod, m.Index
		return r
	}
	switch typ.Kind() {
	case reflect.Struct:
		if sf, ok := typ.FieldByName(f.name); ok && sf.IsExported() {
			r.how, r.index = resolvedField, sf.Index
		}
	case reflect.Map:
		if stringType.AssignableTo(typ.Key()) {
			r.how, r.key = resolvedMapKey, reflect.ValueOf(f.name)
		}
	}
	return r
}

// callMethod calls a method that takes no arguments, as text/template
// does: one result, or a result and an error (a non-nil error gives up).
func callMethod(m reflect.Value) (reflect.Value, error) {
	t := m.Type()
	if t.NumIn() != 0 || !goodResults(t) {
		return reflect.Value{}, errGiveUp
	}
	out := m.Call(nil)
	if len(out) == 2 && !out[1].IsNil() {
		return reflect.Value{}, errGiveUp
	}
	return unwrap(out[0]), nil
}

// goodResults: one result, or two with the second an error.
func goodResults(t reflect.Type) bool {
	switch t.NumOut() {
	case 1:
		return true
	case 2:
		return t.Out(1) == errorType
	}
	return false
}

// unwrap is a function's result as text/template takes it: a returned
// reflect.Value stands for the value it holds.
func unwrap(v reflect.Value) reflect.Value {
	if v.Type() == reflectValueType {
		v = v.Interface().(reflect.Value)
	}
	return v
}
