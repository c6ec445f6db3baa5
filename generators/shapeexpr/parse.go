package shapeexpr

import (
	"fmt"
	"math"
	"strconv"
)

type tokKind int

const (
	tEOF tokKind = iota
	tInt
	tName
	tPunct
	tBad
)

type token struct {
	kind tokKind
	text string
	col  int
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tInt:
		return "number " + t.text
	case tName:
		return "name " + strconv.Quote(t.text)
	}
	return strconv.Quote(t.text)
}

type parser struct {
	src string
	off int
	tok token
	err *Error
	// real counts the floor, ceil and round calls around the token: "/"
	// is allowed only inside one.
	real int
}

// maxDepth bounds nesting; MaxLen already bounds it, this keeps the stack small.
const maxDepth = 64

func (p *parser) fail(col int, format string, args ...any) {
	if p.err == nil {
		p.err = &Error{col, fmt.Sprintf(format, args...)}
	}
}

func isNameStart(c byte) bool { return c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isDigit(c byte) bool     { return c >= '0' && c <= '9' }

func (p *parser) next() {
	for p.off < len(p.src) && (p.src[p.off] == ' ' || p.src[p.off] == '\t') {
		p.off++
	}
	start := p.off
	col := start + 1
	if p.off >= len(p.src) {
		p.tok = token{tEOF, "", col}
		return
	}
	c := p.src[p.off]
	switch {
	case isDigit(c):
		for p.off < len(p.src) && isDigit(p.src[p.off]) {
			p.off++
		}
		p.tok = token{tInt, p.src[start:p.off], col}
	case isNameStart(c):
		for p.off < len(p.src) && (isNameStart(p.src[p.off]) || isDigit(p.src[p.off])) {
			p.off++
		}
		p.tok = token{tName, p.src[start:p.off], col}
	case c == '/' && p.off+1 < len(p.src) && p.src[p.off+1] == '/':
		p.off += 2
		p.tok = token{tPunct, "//", col}
	case c == '/':
		p.off++
		p.tok = token{tPunct, "/", col}
	case c == '+' || c == '-' || c == '*' || c == '(' || c == ')' || c == '[' || c == ']' || c == ',' || c == '.' || c == ':' || c == '#':
		p.off++
		p.tok = token{tPunct, string(c), col}
	default:
		p.off++
		p.tok = token{tBad, string(c), col}
	}
}

func (p *parser) punct(s string) bool { return p.tok.kind == tPunct && p.tok.text == s }

func (p *parser) expect(s string) {
	if !p.punct(s) {
		p.fail(p.tok.col, "expected %q, found %s", s, p.tok)
		return
	}
	p.next()
}

func (p *parser) expr(depth int) *Expr {
	if depth > maxDepth {
		p.fail(p.tok.col, "expression nests deeper than %d levels", maxDepth)
		return &Expr{Kind: Const}
	}
	left := p.term(depth)
	for p.err == nil && (p.punct("+") || p.punct("-")) {
		k, col := Add, p.tok.col
		if p.tok.text == "-" {
			k = Sub
		}
		p.next()
		left = &Expr{Kind: k, Args: []*Expr{left, p.term(depth)}, Col: col}
	}
	return left
}

func (p *parser) term(depth int) *Expr {
	left := p.unary(depth)
	for p.err == nil && (p.punct("*") || p.punct("//") || p.punct("/")) {
		k, col := Mul, p.tok.col
		switch p.tok.text {
		case "//":
			k = FloorDiv
		case "/":
			k = Div
			if p.real == 0 {
				p.fail(col, "\"/\" is true division, whose result is not an integer: use // (or floor_div, ceil_div), or round the quotient with floor(), ceil() or round()")
			}
		}
		p.next()
		left = &Expr{Kind: k, Args: []*Expr{left, p.unary(depth)}, Col: col}
	}
	return left
}

func (p *parser) unary(depth int) *Expr {
	if p.punct("-") {
		col := p.tok.col
		p.next()
		if depth > maxDepth {
			p.fail(col, "expression nests deeper than %d levels", maxDepth)
			return &Expr{Kind: Const}
		}
		return &Expr{Kind: Neg, Args: []*Expr{p.unary(depth + 1)}, Col: col}
	}
	return p.primary(depth)
}

func (p *parser) primary(depth int) *Expr {
	t := p.tok
	switch {
	case t.kind == tInt:
		p.next()
		v, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil || v > math.MaxInt32*int64(math.MaxInt32) {
			p.fail(t.col, "number %s is out of range", t.text)
		}
		return &Expr{Kind: Const, Value: v, Col: t.col}
	case t.kind == tName:
		p.next()
		if t.text == "elem_size" && p.punct("(") {
			p.next()
			nt := p.tok
			if nt.kind != tName {
				p.fail(nt.col, "elem_size takes the name of a tensor, found %s", nt)
				return &Expr{Kind: Const, Col: t.col}
			}
			p.next()
			p.expect(")")
			return &Expr{Kind: ElemSize, Name: nt.text, Col: t.col}
		}
		if t.text == "len" && p.punct("(") {
			p.next()
			nt := p.tok
			if nt.kind != tName {
				p.fail(nt.col, "len takes the name of an array param, found %s", nt)
				return &Expr{Kind: Const, Col: t.col}
			}
			p.next()
			p.expect(")")
			return &Expr{Kind: Len, Name: nt.text, Col: t.col}
		}
		if t.text == "prod" && p.punct("(") {
			return p.dimProd(t, depth)
		}
		if t.text == "rank" && p.punct("(") {
			p.next()
			nt := p.tok
			if nt.kind != tName {
				p.fail(nt.col, "rank takes the name of an input, found %s", nt)
				return &Expr{Kind: Const, Col: t.col}
			}
			p.next()
			p.expect(")")
			return &Expr{Kind: Rank, Name: nt.text, Col: t.col}
		}
		if k, ok := rounds[t.text]; ok && p.punct("(") {
			p.next()
			p.real++
			arg := p.expr(depth + 1)
			p.real--
			if p.err == nil && p.punct(",") {
				p.fail(p.tok.col, "%s takes 1 argument", t.text)
			}
			p.expect(")")
			return &Expr{Kind: k, Args: []*Expr{arg}, Col: t.col}
		}
		if k, ok := funcs[t.text]; ok && p.punct("(") {
			p.next()
			args := []*Expr{p.expr(depth + 1)}
			for p.err == nil && p.punct(",") {
				p.next()
				args = append(args, p.expr(depth+1))
			}
			p.expect(")")
			want := 2
			if (k == Min || k == Max) && len(args) >= 2 {
				want = len(args)
			}
			if p.err == nil && len(args) != want {
				p.fail(t.col, "%s takes %s arguments, got %d", t.text, map[bool]string{true: "2", false: "2 or more"}[k == FloorDiv || k == CeilDiv], len(args))
			}
			return &Expr{Kind: k, Args: args, Col: t.col}
		}
		if p.punct(".") {
			return p.dim(t)
		}
		if p.punct("[") {
			p.next()
			it := p.tok
			if p.punct(IndexSymbol) {
				p.next()
				p.expect("]")
				return &Expr{Kind: Index, Name: t.text, At: IndexSymbol, Col: t.col}
			}
			if it.kind != tInt {
				p.fail(it.col, "an index must be a non-negative integer or #, found %s", it)
				return &Expr{Kind: Sym, Name: t.text, Col: t.col}
			}
			p.next()
			p.expect("]")
			idx, err := strconv.Atoi(it.text)
			if err != nil || idx > 1<<20 {
				p.fail(it.col, "index %s is out of range", it.text)
			}
			return &Expr{Kind: Index, Name: t.text, Index: idx, Col: t.col}
		}
		return &Expr{Kind: Sym, Name: t.text, Col: t.col}
	case p.punct(IndexSymbol):
		p.next()
		return &Expr{Kind: Sym, Name: IndexSymbol, Col: t.col}
	case p.punct("("):
		p.next()
		e := p.expr(depth + 1)
		p.expect(")")
		return e
	case t.kind == tBad:
		p.fail(t.col, "unexpected character %q; dimension expressions use + - * // floor_div ceil_div min max floor ceil round len elem_size x.shape[axis] prod(x.shape[lo:hi])", t.text)
	default:
		p.fail(t.col, "expected a number, a name or '(', found %s", t)
	}
	return &Expr{Kind: Const, Col: t.col}
}

// dim parses the rest of NAME "." "shape" "[" AXIS "]" after NAME (t).
func (p *parser) dim(t token) *Expr {
	p.next()
	if p.tok.kind != tName || p.tok.text != "shape" {
		p.fail(p.tok.col, "expected \"shape\" after %q, found %s; x.shape[axis] is the dim of input x at axis", t.text, p.tok)
		return &Expr{Kind: Const, Col: t.col}
	}
	p.next()
	p.expect("[")
	e := &Expr{Kind: Dim, Name: t.text, Col: t.col}
	neg := false
	if p.punct("-") {
		neg = true
		p.next()
	}
	at := p.tok
	switch {
	case at.kind == tInt:
		idx, err := strconv.Atoi(at.text)
		if err != nil || idx > 1<<20 {
			p.fail(at.col, "axis %s is out of range", at.text)
		}
		if neg {
			idx = -idx
		}
		e.Index = idx
	case at.kind == tName && !neg:
		e.Axis = at.text
	default:
		p.fail(at.col, "an axis is an integer or the name of an integer param, found %s", at)
		return e
	}
	p.next()
	p.expect("]")
	return e
}
