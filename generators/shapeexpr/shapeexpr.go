package shapeexpr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind of an expression node.
type Kind int

const (
	Const Kind = iota // Value
	Sym               // Name
	Index             // Name[Index]
	Add
	Sub
	Mul
	FloorDiv
	CeilDiv
	Min
	Max
	Neg
	ElemSize // elem_size(Name)
	Dim      // Name.shape[Index] or Name.shape[Axis]
	Floor    // floor(Args[0]), Args[0] real
	Ceil     // ceil(Args[0])
	Round    // round(Args[0]): floor(Args[0] + 0.5)
	Div      // Args[0] / Args[1], true division: inside Floor, Ceil, Round only
	Len      // len(Name): the element count of an array param
	DimProd  // prod(Name.shape[Index:End]): the product of a slice of an input's dims
	Rank     // rank(Name): an input's number of dims (relations only)
)

// Expr is an expression tree. Col is the 1-based column in the source text,
// so diagnostics can point inside a long expression.
type Expr struct {
	Kind  Kind
	Value int64
	Name  string
	Index int
	// Axis is the integer param a Dim reads its axis from; "" when the
	// axis is the literal Index (which may then be negative).
	Axis string
	// End is where a DimProd's slice stops (exclusive, negative counting
	// from the last dim) when HasEnd; without it the slice runs to the
	// last dim. Index is where it starts.
	End    int
	HasEnd bool
	// At is the symbol an Index reads its element at (IndexSymbol, in
	// counted outputs' shapes: sizes[#]); "" when the element is the
	// literal Index.
	At   string
	Args []*Expr
	Col  int
}

var funcs = map[string]Kind{"floor_div": FloorDiv, "ceil_div": CeilDiv, "min": Min, "max": Max}

// rounds are the functions from a real expression to an integer.
var rounds = map[string]Kind{"floor": Floor, "ceil": Ceil, "round": Round}

var funcNames = map[Kind]string{FloorDiv: "floor_div", CeilDiv: "ceil_div", Min: "min", Max: "max", Floor: "floor", Ceil: "ceil", Round: "round"}

// IsRounding reports floor, ceil and round, whose argument is real.
func (k Kind) IsRounding() bool { return k == Floor || k == Ceil || k == Round }

// IndexSymbol is the position of one tensor among those a counted
// variadic tensor stands for (0 to count - 1): `#` alone, or an array
// param's element at it, `sizes[#]`, in that tensor's shape.
const IndexSymbol = "#"

// MaxLen bounds the text of one expression; longer ones are rejected before
// parsing so hostile input cannot make the recursive parser dig deep.
const MaxLen = 1024

// Error is a parse error at a column of the expression text.
type Error struct {
	Col int
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

// Parse parses one expression.
func Parse(src string) (*Expr, error) {
	if len(src) > MaxLen {
		return nil, &Error{1, fmt.Sprintf("expression is %d bytes long; the limit is %d", len(src), MaxLen)}
	}
	p := &parser{src: src}
	p.next()
	e := p.expr(0)
	if p.err == nil && p.tok.kind != tEOF {
		p.fail(p.tok.col, "unexpected %s after the end of the expression", p.tok)
	}
	if p.err != nil {
		return nil, p.err
	}
	return e, nil
}

// Symbols returns the names the expression refers to, in first-use order.
func (e *Expr) Symbols() []*Expr {
	var out []*Expr
	var walk func(*Expr)
	walk = func(x *Expr) {
		if x.IsRef() {
			out = append(out, x)
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(e)
	return out
}

// IsRef reports a leaf that names something: a symbol, an element, an
// element size, an input's dim or an array's length.
func (e *Expr) IsRef() bool {
	return e.Kind == Sym || e.Kind == Index || e.Kind == ElemSize || e.Kind == Dim || e.Kind == Len || e.Kind == DimProd || e.Kind == Rank
}

// Rounded returns the floor, ceil and round subexpressions of e, outermost
// first: the only places float params and "/" may appear.
func (e *Expr) Rounded() []*Expr {
	var out []*Expr
	var walk func(*Expr)
	walk = func(x *Expr) {
		if x.Kind.IsRounding() {
			out = append(out, x)
			return
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(e)
	return out
}

// UsesDims reports whether e reads a dim of an input by axis (x.shape[axis])
// or a product of its dims (prod(x.shape[lo:hi])).
func (e *Expr) UsesDims() bool {
	if e.Kind == Dim || e.Kind == DimProd {
		return true
	}
	for _, a := range e.Args {
		if a.UsesDims() {
			return true
		}
	}
	return false
}

// AxisText is the axis of a Dim as written: the param's name or the
// literal.
func (e *Expr) AxisText() string {
	if e.Axis != "" {
		return e.Axis
	}
	return strconv.Itoa(e.Index)
}

// IsConst reports whether e is a plain integer.
func (e *Expr) IsConst() bool { return e.Kind == Const }

// IsSymbol reports whether e is a bare name.
func (e *Expr) IsSymbol() bool { return e.Kind == Sym }

// String renders the canonical text, fully parenthesised only where needed.
func (e *Expr) String() string {
	var sb strings.Builder
	e.write(&sb, 0)
	return sb.String()
}

func prec(k Kind) int {
	switch k {
	case Add, Sub:
		return 1
	case Mul, FloorDiv, Div:
		return 2
	case Neg:
		return 3
	}
	return 4
}

func (e *Expr) write(sb *strings.Builder, outer int) {
	switch e.Kind {
	case Const:
		sb.WriteString(strconv.FormatInt(e.Value, 10))
	case Sym:
		sb.WriteString(e.Name)
	case Index:
		if e.At != "" {
			fmt.Fprintf(sb, "%s[%s]", e.Name, e.At)
			break
		}
		fmt.Fprintf(sb, "%s[%d]", e.Name, e.Index)
	case ElemSize:
		fmt.Fprintf(sb, "elem_size(%s)", e.Name)
	case Dim:
		fmt.Fprintf(sb, "%s.shape[%s]", e.Name, e.AxisText())
	case Len:
		fmt.Fprintf(sb, "len(%s)", e.Name)
	case DimProd:
		fmt.Fprintf(sb, "prod(%s.shape[%s])", e.Name, e.SliceText())
	case Rank:
		fmt.Fprintf(sb, "rank(%s)", e.Name)
	case Neg:
		sb.WriteByte('-')
		e.Args[0].write(sb, prec(Neg))
	case Add, Sub, Mul, FloorDiv, Div:
		p := prec(e.Kind)
		if p < outer {
			sb.WriteByte('(')
		}
		e.Args[0].write(sb, p)
		sb.WriteString(map[Kind]string{Add: " + ", Sub: " - ", Mul: " * ", FloorDiv: " // ", Div: " / "}[e.Kind])
		// Right operands of - and // bind tighter: a - (b - c).
		e.Args[1].write(sb, p+1)
		if p < outer {
			sb.WriteByte(')')
		}
	default:
		sb.WriteString(funcNames[e.Kind])
		sb.WriteByte('(')
		for i, a := range e.Args {
			if i > 0 {
				sb.WriteString(", ")
			}
			a.write(sb, 0)
		}
		sb.WriteByte(')')
	}
}

// Env supplies values for Eval.
type Env interface {
	Symbol(name string) (int64, bool)
	Element(name string, index int) (int64, bool)
}

// ElemSizeEnv is an Env that also knows the element size of tensors.
type ElemSizeEnv interface {
	ElemSize(name string) (int64, bool)
}

// DimsEnv is an Env that also knows the dims of input tensors.
type DimsEnv interface {
	Dims(name string) ([]int64, bool)
}

// AxisError is an axis out of range for the rank of the tensor a Dim
// reads.
type AxisError struct {
	Expr       *Expr
	Axis, Rank int64
}

func (e *AxisError) Error() string {
	return fmt.Sprintf("%s: axis %d is not an axis of %q (%d dims)", e.Expr, e.Axis, e.Expr.Name, e.Rank)
}

// NormalizeAxis maps axis to 0..rank-1 (a negative axis counts from the
// end); ok is false when it is not an axis of a tensor of rank rank.
func NormalizeAxis(axis, rank int64) (int64, bool) {
	if axis < -rank || axis >= rank {
		return 0, false
	}
	if axis < 0 {
		axis += rank
	}
	return axis, true
}

// Eval computes e. Division by zero and unknown names are errors.
func (e *Expr) Eval(env Env) (int64, error) {
	switch e.Kind {
	case Const:
		return e.Value, nil
	case Sym:
		if v, ok := env.Symbol(e.Name); ok {
			return v, nil
		}
		return 0, fmt.Errorf("no value for %q", e.Name)
	case Index:
		i, err := e.elementIndex(env)
		if err != nil {
			return 0, err
		}
		if v, ok := env.Element(e.Name, i); ok {
			return v, nil
		}
		return 0, fmt.Errorf("no value for %s[%d]", e.Name, i)
	case ElemSize:
		if es, ok := env.(ElemSizeEnv); ok {
			if v, ok := es.ElemSize(e.Name); ok {
				return v, nil
			}
		}
		return 0, fmt.Errorf("no element size for %q", e.Name)
	case Dim:
		ds, ok := env.(DimsEnv)
		var dims []int64
		if ok {
			dims, ok = ds.Dims(e.Name)
		}
		if !ok {
			return 0, fmt.Errorf("no dims for %q", e.Name)
		}
		axis := int64(e.Index)
		if e.Axis != "" {
			if axis, ok = env.Symbol(e.Axis); !ok {
				return 0, fmt.Errorf("no value for %q", e.Axis)
			}
		}
		n, ok := NormalizeAxis(axis, int64(len(dims)))
		if !ok {
			return 0, &AxisError{Expr: e, Axis: axis, Rank: int64(len(dims))}
		}
		return dims[n], nil
	case Len:
		if le, ok := env.(LenEnv); ok {
			if v, ok := le.Len(e.Name); ok {
				return v, nil
			}
		}
		return 0, fmt.Errorf("no length for %q", e.Name)
	case DimProd:
		return e.evalDimProd(env)
	case Rank:
		return e.evalRank(env)
	case Floor, Ceil, Round:
		return e.evalRounding(env)
	case Div:
		return 0, fmt.Errorf("%s: true division is real; round it with floor, ceil or round", e)
	}
	vals := make([]int64, len(e.Args))
	for i, a := range e.Args {
		v, err := a.Eval(env)
		if err != nil {
			return 0, err
		}
		vals[i] = v
	}
	switch e.Kind {
	case Neg, Add, Sub, Mul:
		v, ok := checked(e.Kind, vals)
		if !ok {
			return 0, &OverflowError{Expr: e}
		}
		return v, nil
	case FloorDiv, CeilDiv:
		if vals[1] == 0 {
			return 0, fmt.Errorf("division by zero in %s", e)
		}
		if vals[0] == math.MinInt64 && vals[1] == -1 {
			return 0, &OverflowError{Expr: e}
		}
		q := vals[0] / vals[1]
		r := vals[0] % vals[1]
		if e.Kind == FloorDiv && r != 0 && (r < 0) != (vals[1] < 0) {
			q--
		}
		if e.Kind == CeilDiv && r != 0 && (r < 0) == (vals[1] < 0) {
			q++
		}
		return q, nil
	case Min, Max:
		best := vals[0]
		for _, v := range vals[1:] {
			if (e.Kind == Min && v < best) || (e.Kind == Max && v > best) {
				best = v
			}
		}
		return best, nil
	}
	return 0, fmt.Errorf("unknown expression kind %d", e.Kind)
}

// LenEnv is an Env that also knows the lengths of array params.
type LenEnv interface {
	Len(name string) (int64, bool)
}

// FloatEnv is an Env that also knows float params, for the real
// arithmetic inside floor, ceil and round; each value is what the param's
// dtype stores.
type FloatEnv interface {
	Float(name string) (float64, bool)
	FloatElement(name string, index int) (float64, bool)
}

// MapEnv is an Env over plain maps, for tests and tools.
type MapEnv struct {
	Symbols  map[string]int64
	Elements map[string][]int64
	// Floats and FloatElements are float params and float arrays' elements.
	Floats        map[string]float64
	FloatElements map[string][]float64
	// ElemSizes are tensors' element sizes in bytes.
	ElemSizes map[string]int64
	// TensorDims are input tensors' dims.
	TensorDims map[string][]int64
}

func (m MapEnv) Dims(name string) ([]int64, bool) { v, ok := m.TensorDims[name]; return v, ok }

func (m MapEnv) ElemSize(name string) (int64, bool) { v, ok := m.ElemSizes[name]; return v, ok }

func (m MapEnv) Symbol(name string) (int64, bool) { v, ok := m.Symbols[name]; return v, ok }

func (m MapEnv) Float(name string) (float64, bool) { v, ok := m.Floats[name]; return v, ok }

func (m MapEnv) FloatElement(name string, i int) (float64, bool) {
	vs, ok := m.FloatElements[name]
	if !ok || i < 0 || i >= len(vs) {
		return 0, false
	}
	return vs[i], true
}

// Len is the length of an integer or float array.
func (m MapEnv) Len(name string) (int64, bool) {
	if vs, ok := m.Elements[name]; ok {
		return int64(len(vs)), true
	}
	vs, ok := m.FloatElements[name]
	return int64(len(vs)), ok
}

func (m MapEnv) Element(name string, i int) (int64, bool) {
	vs, ok := m.Elements[name]
	if !ok || i < 0 || i >= len(vs) {
		return 0, false
	}
	return vs[i], true
}

// elementIndex is the element an Index reads: its literal Index, or the
// value env gives its At symbol.
func (e *Expr) elementIndex(env Env) (int, error) {
	if e.At == "" {
		return e.Index, nil
	}
	v, ok := env.Symbol(e.At)
	if !ok || v < 0 || v > 1<<20 {
		return 0, fmt.Errorf("no value for %s in %s[%s]", e.At, e.Name, e.At)
	}
	return int(v), nil
}

// AtIndex is e with the index symbol fixed at k: # becomes the number k and
// an element at # (sizes[#]) the element k, for the k-th tensor of a
// counted variadic tensor. e is not changed; an expression without # is
// returned as is.
func (e *Expr) AtIndex(k int) *Expr {
	if !e.usesIndex() {
		return e
	}
	c := *e
	switch {
	case e.Kind == Sym && e.Name == IndexSymbol:
		return &Expr{Kind: Const, Value: int64(k), Col: e.Col}
	case e.Kind == Index && e.At != "":
		c.At, c.Index = "", k
		return &c
	}
	c.Args = make([]*Expr, len(e.Args))
	for i, a := range e.Args {
		c.Args[i] = a.AtIndex(k)
	}
	return &c
}

// usesIndex reports whether e reads the index symbol.
func (e *Expr) usesIndex() bool {
	if e.Kind == Sym && e.Name == IndexSymbol || e.Kind == Index && e.At != "" {
		return true
	}
	for _, a := range e.Args {
		if a.usesIndex() {
			return true
		}
	}
	return false
}
