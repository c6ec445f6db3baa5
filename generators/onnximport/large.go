package onnximport

import (
	"fmt"
	"strconv"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/onnx"
)

// maxPerCode is how many errors of one code about nodes are reported;
// the rest are counted. A selection of a million nodes that all fail one
// way is one problem, not a million lines.
const maxPerCode = 20

// capped reports errors about nodes, at most maxPerCode of each code.
type capped struct {
	l    *diag.List
	pos  diag.Pos
	seen map[string]int
}

func newCapped(l *diag.List, path string) *capped {
	return &capped{l: l, pos: diag.Pos{File: path}, seen: map[string]int{}}
}

func (c *capped) errorf(code, format string, args ...any) {
	c.seen[code]++
	if c.seen[code] <= maxPerCode {
		c.l.Errorf(c.pos, code, format, args...)
	}
}

// flush reports how many errors of each code were left out.
func (c *capped) flush() {
	for code, n := range c.seen {
		if n > maxPerCode {
			c.l.Errorf(c.pos, code, "and %d more node(s) with this error, not listed", n-maxPerCode)
		}
	}
	clear(c.seen)
}

// keyer makes nodeKeys.
type keyer struct {
	sc  scopes
	buf []byte
}

// key is what derive (and Plan) read of node n, less its name and its
// value names: op type, domain, the attributes' bytes, and each input's
// and output's presence, type and staticness. Nodes of one key become the
// same op and are rewritten alike, so a model of a million like nodes is
// derived and planned once. ok is false for a node not read from a file
// (its attributes have no bytes).
func (k *keyer) key(n *onnx.Node) (string, bool) {
	b := k.buf[:0]
	b = appendStr(b, n.Domain)
	b = appendStr(b, n.OpType)
	b = strconv.AppendInt(b, int64(len(n.Attributes)), 10)
	for _, a := range n.Attributes {
		raw := a.Encoded()
		if raw == nil {
			return "", false
		}
		b = appendStr(b, string(raw))
	}
	value := func(b []byte, name string) []byte {
		if name == "" {
			return append(b, 'e')
		}
		v, found := k.sc.lookup(n.Graph, name)
		switch {
		case !found:
			return append(b, 'n')
		case v.static:
			b = append(b, 's')
		}
		if v.id == 0 && v.typ != nil {
			return appendType(b, v.typ, 0)
		}
		b = append(b, 't')
		return strconv.AppendInt(b, int64(v.id), 10)
	}
	b = strconv.AppendInt(b, int64(len(n.Inputs)), 10)
	for _, in := range n.Inputs {
		b = value(b, in)
	}
	b = strconv.AppendInt(b, int64(len(n.Outputs)), 10)
	for _, out := range n.Outputs {
		b = value(b, out)
	}
	k.buf = b
	return string(b), true
}

func appendStr(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

func appendType(b []byte, t *onnx.Type, depth int) []byte {
	if t == nil || depth > 8 {
		return append(b, '-')
	}
	b = fmt.Appendf(b, "<%d %d %t %d", t.Kind, t.Elem, t.Ranked, len(t.Shape))
	for _, d := range t.Shape {
		b = fmt.Appendf(b, " %t %d ", d.HasValue, d.Value)
		b = appendStr(b, d.Param)
	}
	b = appendType(b, t.Inner, depth+1)
	return append(b, '>')
}
