package aipu

import "strings"

// code is a body of lines, such as a Python function body, that a
// template prints with one action at the indentation of that action:
//
//	def infer_shape(self, input_tensors, *args):
//	    {{ .Infer }}
//
// The template places the first line; the string carries the line break
// and the indentation before each other line. A body thus costs a template
// one field instead of a range step and a print per line, and the lines
// are written once, into one buffer.
type code struct {
	sb  strings.Builder
	sep string // between two lines: a newline and the indentation
	n   int
}

// spaces holds the indentations bodies are printed at.
const spaces = "\n                "

// newCode starts a body printed at indent spaces.
func newCode(indent int) *code { return &code{sep: spaces[:1+indent]} }

// firstSize is the room a body gets with its first line: enough for a few
// lines, rather than growing from a few bytes.
const firstSize = 256

// line appends one line, the concatenation of parts.
func (c *code) line(parts ...string) {
	if c.n > 0 {
		c.sb.WriteString(c.sep)
	} else {
		c.sb.Grow(firstSize)
	}
	c.n++
	for _, p := range parts {
		c.sb.WriteString(p)
	}
}

// lines appends whole lines.
func (c *code) lines(ls ...string) {
	for _, l := range ls {
		c.line(l)
	}
}

func (c *code) String() string { return c.sb.String() }
