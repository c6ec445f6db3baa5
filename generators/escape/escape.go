package escape

import (
	"encoding/xml"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Funcs are the escapers under the names templates use.
var Funcs = map[string]any{
	"cstr":        CString,
	"ccomment":    CComment,
	"pystr":       PyString,
	"pydoc":       PyDoc,
	"hashcomment": HashComment,
	"cmakestr":    CMakeString,
	"mdtext":      MarkdownText,
	"mdcode":      MarkdownCode,
	"xmltext":     XMLText,
	"yamlstr":     YAMLString,
}

// FuncNames are the template names of the escapers, for the test that
// every free-text field a template prints goes through one.
func FuncNames() []string {
	out := make([]string, 0, len(Funcs))
	for k := range Funcs {
		out = append(out, k)
	}
	return out
}

// CString is s as a C, C++, CUDA or OpenCL C string literal, quotes
// included. Printable ASCII stays as is except '"', '\\' and '?' (no
// trigraph can form); every other byte is a three-digit octal escape, which
// no following character can extend (unlike \x). The literal holds exactly
// the bytes of s (a NUL included, which C then reads as the end).
func CString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '?':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			b.WriteByte('\\')
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + c>>3&7)
			b.WriteByte('0' + c&7)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// oneLine is s on one line: runs of white space (Unicode's, line and
// paragraph separators included) become one space, other characters that
// are not printable become \x.. / \u.... text, and leading and trailing
// space goes.
func oneLine(s string) string {
	if plainLine(s) {
		return s // what the loop below would copy byte for byte
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case !unicode.IsPrint(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plainLine reports whether oneLine leaves s as it is: printable ASCII
// whose spaces are single and inside. Descriptions mostly are, and every
// op's model escapes several of them.
func plainLine(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c > '~' || c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			return false
		}
	}
	return true
}

// lineText is oneLine for a line comment: it never ends in a backslash,
// which would splice the next line into the comment in C, C++, OpenCL,
// make and CMake (GCC even when spaces follow it), so a final backslash is
// followed by a full stop.
func lineText(s string) string {
	t := oneLine(s)
	if strings.HasSuffix(t, `\`) {
		t += "."
	}
	return t
}

// CComment is s for the rest of a // line comment (C, C++, CUDA, OpenCL)
// or inside a /* */ comment: one line, no final backslash, "*/" and "/*"
// broken apart, and no trigraph.
func CComment(s string) string {
	t := lineText(s)
	t = strings.ReplaceAll(t, "*/", "* /")
	t = strings.ReplaceAll(t, "/*", "/ *")
	// A trigraph (??/ is a backslash) where a compiler still reads them.
	for strings.Contains(t, "??") {
		t = strings.ReplaceAll(t, "??", "? ?")
	}
	return t
}

// HashComment is s for the rest of a # line comment (Python, make, CMake,
// shell, YAML): one line, no final backslash. In CMake a comment starting
// "#[" is a bracket comment, so the text never starts with "[".
func HashComment(s string) string {
	t := lineText(s)
	if strings.HasPrefix(t, "[") {
		t = " " + t
	}
	// Python reads an encoding declaration from a comment on the first
	// two lines; a comment never declares one.
	t = strings.ReplaceAll(t, "coding:", "coding :")
	t = strings.ReplaceAll(t, "coding=", "coding =")
	return t
}

// PyString is s as a Python 3 string literal, quotes included; it
// evaluates to exactly s (for valid UTF-8; each invalid byte becomes
// U+FFFD).
func PyString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	pyBody(&b, s, false)
	b.WriteByte('"')
	return b.String()
}

func pyBody(b *strings.Builder, s string, doc bool) {
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			// In a docstring a quote is only a risk next to another quote
			// or at the end, where it would meet the closing quotes.
			if doc && i > 0 && s[i-1] != '"' && i+1 < len(s) && s[i+1] != '"' {
				b.WriteByte('"')
			} else {
				b.WriteString(`\"`)
			}
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		case r >= 0x80 && !unicode.IsPrint(r):
			// Line separators and other invisible code points: escaped,
			// so no editor or tool sees a line break in a literal.
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
}

// PyDoc is s for the inside of a """ docstring (or any triple-quoted
// string): the docstring's value holds exactly s, on the docstring's line.
// Backslashes are doubled, quotes that could meet another quote are
// escaped, line breaks and other control characters are escaped.
func PyDoc(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pyBody(&b, s, true)
	return b.String()
}

// CMakeString is s as a CMake quoted argument, quotes included: '\\', '"'
// and '$' (a variable reference) are escaped, ';' too (a list separator),
// and line breaks become \n.
func CMakeString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\', '"', '$', ';':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f || r == utf8.RuneError {
				b.WriteRune('?')
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// markdownSpecial are the characters CommonMark may read as inline markup
// anywhere, plus '|' (a table cell boundary).
const markdownSpecial = "\\`*_[]<!|~&"

// markdownLead are the characters that start a block (heading, list,
// quote, setext underline) at the start of a line.
const markdownLead = "#-+=>"

// MarkdownText is s as Markdown paragraph or table-cell text: one line,
// every character that could be markup (or end a table cell, or start
// HTML or a block) backslash-escaped, so it renders as written.
func MarkdownText(s string) string {
	t := oneLine(s)
	var b strings.Builder
	digits := true // still in a leading run of digits ("1." starts a list)
	for i, r := range t {
		// '_' inside a word is no emphasis; it stays readable.
		intraword := r == '_' && i > 0 && isWord(t[i-1]) && i+1 < len(t) && isWord(t[i+1])
		switch {
		case !intraword && r < utf8.RuneSelf && strings.IndexByte(markdownSpecial, byte(r)) >= 0,
			i == 0 && strings.IndexRune(markdownLead, r) >= 0,
			digits && i > 0 && (r == '.' || r == ')'):
			b.WriteByte('\\')
		}
		digits = digits && r >= '0' && r <= '9'
		b.WriteRune(r)
	}
	return b.String()
}

// MarkdownCode is s as a Markdown code span, backticks included: the fence
// is one backtick longer than the longest run inside, and padded with
// spaces when s starts or ends with a backtick. '|' cannot be escaped in a
// code span inside a table cell in every renderer, so it is written as
// "\|", which GitHub's tables read as '|'.
func MarkdownCode(s string) string {
	t := oneLine(s)
	longest, run := 0, 0
	for i := 0; i < len(t); i++ {
		if t[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	t = strings.ReplaceAll(t, "|", `\|`)
	if t == "" || t[0] == '`' || t[len(t)-1] == '`' {
		t = " " + t + " "
	}
	return fence + t + fence
}

// XMLText is s as XML character data or attribute value text: markup
// characters become entities, and characters XML 1.0 cannot hold at all
// (most control characters) become U+FFFD.
func XMLText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// YAMLString is s as a YAML double-quoted scalar, quotes included; it
// reads back as exactly s.
func YAMLString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && !unicode.IsPrint(r)) || r == 0xfeff:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func isWord(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
