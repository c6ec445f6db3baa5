package tmplexec

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"text/template"
)

// Program is a template set compiled: its templates by name, each with its
// compiled tree, or nil where it runs with text/template.
type Program struct {
	t         *template.Template
	tmpls     map[string]*compiled
	notCompil map[string]string // template name: why it was not compiled
	fallbacks atomic.Int64
}

type compiled struct {
	root node
}

// Compile compiles every template of t's set. funcs must be the function
// map t was given (template.Funcs): a template's functions are looked up
// there first and among text/template's builtins after, as text/template
// does.
func Compile(t *template.Template, funcs template.FuncMap) *Program {
	p := &Program{t: t, tmpls: map[string]*compiled{}, notCompil: map[string]string{}}
	c := &compiler{funcs: funcs}
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Root == nil {
			continue // text/template reports it as incomplete
		}
		root, err := c.list(tt.Root)
		if err != nil {
			p.notCompil[tt.Name()] = err.Error()
			continue
		}
		p.tmpls[tt.Name()] = &compiled{root: root}
	}
	return p
}

// Template is the set p was compiled from.
func (p *Program) Template() *template.Template { return p.t }

// NotCompiled names the templates that run with text/template, each with
// the construct the compiler did not take.
func (p *Program) NotCompiled() map[string]string { return p.notCompil }

// Fallbacks is how many executions the compiled code gave up and ran
// again with text/template.
func (p *Program) Fallbacks() int64 { return p.fallbacks.Load() }

// Execute writes the named template applied to data to w, as
// text/template's ExecuteTemplate does: the same bytes, or the same error
// (with what text/template wrote before it).
func (p *Program) Execute(w *bytes.Buffer, name string, data any) error {
	c := p.tmpls[name]
	if c == nil {
		return p.t.ExecuteTemplate(w, name, data)
	}
	mark := w.Len()
	if p.run(c, w, data) == nil {
		return nil
	}
	p.fallbacks.Add(1)
	w.Truncate(mark)
	return p.t.ExecuteTemplate(w, name, data)
}

// run executes c. A panic (a function's, or reflection's on a value the
// compiled code did not expect) gives up like an error: text/template
// then runs the template and says what it says.
func (p *Program) run(c *compiled, w *bytes.Buffer, data any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errGiveUp
		}
	}()
	value, ok := data.(reflect.Value)
	if !ok {
		value = reflect.ValueOf(data)
	}
	s := states.Get().(*state)
	*s = state{p: p, w: w, vars: append(s.vars[:0], variable{"$", value})}
	err = c.root(s, value)
	clear(s.vars[:cap(s.vars)]) // hold no values
	*s = state{vars: s.vars[:0]}
	states.Put(s)
	return err
}

// states keeps executions' states, so the variables' slice of one, grown
// to what nested scopes and template calls need, serves the next.
var states = sync.Pool{New: func() any { return &state{vars: make([]variable, 0, 16)} }}

// errGiveUp: the compiled code met something it leaves to text/template.
var errGiveUp = errors.New("tmplexec: left to text/template")

// errBreak and errContinue carry {{break}} and {{continue}} to their range.
var (
	errBreak    = errors.New("break")
	errContinue = errors.New("continue")
)

// maxDepth bounds nested template calls; text/template's own bound
// (100,000) and its error are reached by giving up well before it.
const maxDepth = 10000

type variable struct {
	name  string
	value reflect.Value
}

// state is one execution's: the writer, the variables in scope, and how
// deep in template calls it is.
type state struct {
	p     *Program
	w     *bytes.Buffer
	vars  []variable
	depth int
}

func (s *state) varValue(name string) (reflect.Value, error) {
	for i := len(s.vars) - 1; i >= 0; i-- {
		if s.vars[i].name == name {
			return s.vars[i].value, nil
		}
	}
	return reflect.Value{}, errGiveUp
}

func (s *state) setVar(name string, value reflect.Value) error {
	for i := len(s.vars) - 1; i >= 0; i-- {
		if s.vars[i].name == name {
			s.vars[i].value = value
			return nil
		}
	}
	return errGiveUp
}

var (
	errorType        = reflect.TypeFor[error]()
	stringerType     = reflect.TypeFor[fmt.Stringer]()
	formatterType    = reflect.TypeFor[fmt.Formatter]()
	reflectValueType = reflect.TypeFor[reflect.Value]()
	stringType       = reflect.TypeFor[string]()
	anyType          = reflect.TypeFor[any]()
)

// print writes v as text/template's printValue does: fmt.Fprint of the
// printable value. A value fmt would print plainly (a string, integer or
// bool whose type has no String, Error or Format method) is written
// without fmt: how a type prints is decided once per type (printKinds).
func (s *state) print(v reflect.Value, site *printSite) error {
	if v.Kind() == reflect.Pointer {
		var isNil bool
		if v, isNil = indirect(v); isNil {
			fmt.Fprint(s.w, v.Interface()) // fmt's "<nil>", whatever its methods
			return nil
		}
	}
	if !v.IsValid() {
		s.w.WriteString("<no value>")
		return nil
	}
	if v.Kind() == reflect.Interface { // a non-empty interface: fmt decides by the dynamic type
		fmt.Fprint(s.w, v.Interface())
		return nil
	}
	t := v.Type()
	if t == stringType {
		s.w.WriteString(v.String())
		return nil
	}
	k := site.kindOf(t)
	switch {
	case k.methods:
		s.printWithMethods(v.Interface(), k.stringer)
		return nil
	case k.ptrMethods && v.CanAddr():
		s.printWithMethods(v.Addr().Interface(), k.ptrStringer)
		return nil
	}
	switch v.Kind() {
	case reflect.Chan, reflect.Func:
		return errGiveUp // text/template: can't print
	}
	if k.formatter {
		fmt.Fprint(s.w, v.Interface())
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		s.w.WriteString(v.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.w.Write(strconv.AppendInt(s.w.AvailableBuffer(), v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s.w.Write(strconv.AppendUint(s.w.AvailableBuffer(), v.Uint(), 10))
	case reflect.Bool:
		s.w.WriteString(strconv.FormatBool(v.Bool()))
	default:
		fmt.Fprint(s.w, v.Interface())
	}
	return nil
}

// printWithMethods prints x, whose type has a String or Error method, as
// fmt.Fprint does; stringer: fmt would call String alone (no Format or
// Error method comes first), so it is called here directly. A String
// method that panics gives up: text/template prints what fmt makes of it.
func (s *state) printWithMethods(x any, stringer bool) {
	if stringer {
		s.w.WriteString(x.(fmt.Stringer).String())
		return
	}
	fmt.Fprint(s.w, x)
}

// printKind is how fmt treats a type's values: methods, the type has an
// Error or String method (fmt calls it); ptrMethods, its pointer has one
// (text/template prints an addressable value's address then); formatter,
// it has a Format method; stringer and ptrStringer, fmt calls only String
// on the type or its pointer.
type printKind struct {
	methods, ptrMethods, formatter bool
	stringer, ptrStringer          bool
}

// onlyStringer: fmt prints t's values with their String method alone.
func onlyStringer(t reflect.Type) bool {
	return t.Implements(stringerType) && !t.Implements(errorType) && !t.Implements(formatterType)
}

var printKinds sync.Map // reflect.Type: printKind

// printSite is one printing action. It remembers the kind of the last type
// it printed, as a field site remembers its field: a site prints values of
// one type nearly always.
type printSite struct {
	memo atomic.Pointer[printMemo]
}

type printMemo struct {
	t reflect.Type
	k printKind
}

func (p *printSite) kindOf(t reflect.Type) printKind {
	if m := p.memo.Load(); m != nil && m.t == t {
		return m.k
	}
	k := printKindOf(t)
	p.memo.Store(&printMemo{t, k})
	return k
}

func printKindOf(t reflect.Type) printKind {
	if k, ok := printKinds.Load(t); ok {
		return k.(printKind)
	}
	pt := reflect.PointerTo(t)
	k := printKind{
		methods:     t.Implements(errorType) || t.Implements(stringerType),
		ptrMethods:  pt.Implements(errorType) || pt.Implements(stringerType),
		formatter:   t.Implements(formatterType),
		stringer:    onlyStringer(t) && t != reflectValueType, // fmt prints a reflect.Value's content
		ptrStringer: onlyStringer(pt),
	}
	printKinds.Store(t, k)
	return k
}

// isTrue is text/template's truth: not the zero of its type.
func isTrue(val reflect.Value) (truth, ok bool) {
	if !val.IsValid() {
		return false, true
	}
	switch val.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return val.Len() > 0, true
	case reflect.Bool:
		return val.Bool(), true
	case reflect.Complex64, reflect.Complex128:
		return val.Complex() != 0, true
	case reflect.Chan, reflect.Func, reflect.Pointer, reflect.UnsafePointer, reflect.Interface:
		return !val.IsNil(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return val.Int() != 0, true
	case reflect.Float32, reflect.Float64:
		return val.Float() != 0, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return val.Uint() != 0, true
	case reflect.Struct:
		return true, true
	}
	return false, false
}

// indirect follows pointers and interfaces to the value at their end,
// stopping at a nil one (isNil).
func indirect(v reflect.Value) (rv reflect.Value, isNil bool) {
	for ; v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface; v = v.Elem() {
		if v.IsNil() {
			return v, true
		}
	}
	return v, false
}

// indirectInterface is the value inside an interface (invalid: a nil one).
func indirectInterface(v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Interface {
		return v
	}
	if v.IsNil() {
		return reflect.Value{}
	}
	return v.Elem()
}

func canBeNil(typ reflect.Type) bool {
	switch typ.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice:
		return true
	case reflect.Struct:
		return typ == reflectValueType
	}
	return false
}

// validateType is text/template's: value made assignable to typ (nil: any
// value) by one step (an interface's value, a pointer's element, or an
// address), or a give-up where text/template reports an error.
func validateType(value reflect.Value, typ reflect.Type) (reflect.Value, error) {
	if !value.IsValid() {
		if typ == nil {
			return reflect.ValueOf(nil), nil
		}
		if canBeNil(typ) {
			return reflect.Zero(typ), nil
		}
		return value, errGiveUp
	}
	if typ == reflectValueType && value.Type() != typ {
		return reflect.ValueOf(value), nil
	}
	if typ != nil && !value.Type().AssignableTo(typ) {
		if value.Kind() == reflect.Interface && !value.IsNil() {
			value = value.Elem()
			if value.Type().AssignableTo(typ) {
				return value, nil
			}
		}
		switch {
		case value.Kind() == reflect.Pointer && value.Type().Elem().AssignableTo(typ):
			value = value.Elem()
			if !value.IsValid() {
				return value, errGiveUp
			}
		case reflect.PointerTo(value.Type()).AssignableTo(typ) && value.CanAddr():
			value = value.Addr()
		default:
			return value, errGiveUp
		}
	}
	return value, nil
}

// sortedMapKeys gives m's keys in text/template's order for the key
// kinds the compiled range takes (strings and integers).
func sortedMapKeys(m reflect.Value) ([]reflect.Value, bool) {
	keys := m.MapKeys()
	switch m.Type().Key().Kind() {
	case reflect.String:
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		sort.Slice(keys, func(i, j int) bool { return keys[i].Int() < keys[j].Int() })
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		sort.Slice(keys, func(i, j int) bool { return keys[i].Uint() < keys[j].Uint() })
	default:
		return nil, false
	}
	return keys, true
}
