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
	sb     strings.Builder
	sep    string // between two lines: a newline and the indentation
	n      int    // lines written
	expect int    // about how many lines the body gets
}

// spaces holds the indentations bodies are printed at.
const spaces = "\n                "

// lineSize is about as long as a line of a body gets.
const lineSize = 64

// newCode starts a body printed at indent spaces, of about lines lines:
// its first line makes room for them all, so that the buffer is not
// copied as it grows line by line.
func newCode(indent, lines int) *code { return &code{sep: spaces[:1+indent], expect: lines} }

// line appends one line, the concatenation of parts.
func (c *code) line(parts ...string) {
	if c.n > 0 {
		c.sb.WriteString(c.sep)
	} else {
		c.sb.Grow(max(c.expect, 1) * lineSize)
	}
	c.n++
	write(&c.sb, parts...)
}

// lines appends whole lines.
func (c *code) lines(ls ...string) {
	for _, l := range ls {
		c.line(l)
	}
}

func (c *code) String() string { return c.sb.String() }
