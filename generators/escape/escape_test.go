package escape

import (
	"encoding/xml"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// hostile are texts that end literals, comments and lines in some
// language opforge emits.
var hostile = []string{
	"", "plain", `"`, `""`, `"""`, `""""`, `'''`, `\`, `a\`, `\\`, "x\\\n", `\x41`, "\x00", "a\x00b", "\x01\x1f\x7f",
	"line\nbreak", "cr\rlf\r\n", "\t", "\u2028\u2029\u0085", "*/", "/*", "??/", "??=", "$(shell id)", "${X}", "$$",
	"#", "#[[", "; x", "<b>&amp;</b>", "]]>", "| a |", "`code`", "```", "# head", "- item", "1. item", "é€😀", "\ufeff",
	`"); import os; os.system("id"); ("`, "\"\"\"\nimport os\n\"\"\"", "\xff\xfe", "coding: latin-1",
}

func TestCString(t *testing.T) {
	cases := map[string]string{
		"":      `""`,
		`a"b`:   `"a\"b"`,
		`a\`:    `"a\\"`,
		"a\nb":  `"a\012b"`,
		"\x00":  `"\000"`,
		"\x01a": `"\001a"`,
		"??=":   `"\?\?="`,
		"é":     `"\303\251"`,
		"1.0.0": `"1.0.0"`,
	}
	for in, want := range cases {
		if got := CString(in); got != want {
			t.Errorf("CString(%q) = %s, want %s", in, got, want)
		}
	}
	for _, s := range hostile {
		if got := unquoteC(t, CString(s)); got != s {
			t.Errorf("CString(%q) reads back as %q", s, got)
		}
	}
}

// unquoteC reads a literal CString writes, the way a C compiler does.
func unquoteC(t *testing.T, lit string) string {
	t.Helper()
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		t.Fatalf("not a literal: %s", lit)
	}
	var b []byte
	body := lit[1 : len(lit)-1]
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c < 0x20 || c >= 0x7f {
			t.Fatalf("raw byte %#x in %s", c, lit)
		}
		if c == '"' {
			t.Fatalf("unescaped quote in %s", lit)
		}
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		switch e := body[i]; {
		case e >= '0' && e <= '7':
			v, _ := strconv.ParseUint(body[i:i+3], 8, 8)
			b = append(b, byte(v))
			i += 2
		default:
			b = append(b, e)
		}
	}
	return string(b)
}

func TestComments(t *testing.T) {
	for _, s := range hostile {
		for name, f := range map[string]func(string) string{"CComment": CComment, "HashComment": HashComment} {
			got := f(s)
			if strings.ContainsAny(got, "\n\r\x00") || strings.ContainsRune(got, '\u2028') || strings.HasSuffix(got, `\`) {
				t.Errorf("%s(%q) = %q breaks the line", name, s, got)
			}
			if name == "CComment" && (strings.Contains(got, "*/") || strings.Contains(got, "/*") || strings.Contains(got, "??")) {
				t.Errorf("CComment(%q) = %q holds a block-comment delimiter", s, got)
			}
			if name == "HashComment" && (strings.HasPrefix(got, "[") || strings.Contains(got, "coding:")) {
				t.Errorf("HashComment(%q) = %q", s, got)
			}
		}
	}
	if got := CComment("a\n  b\\"); got != `a b\.` {
		t.Errorf("CComment = %q", got)
	}
}

func TestPyString(t *testing.T) {
	for _, s := range hostile {
		lit := PyString(s)
		if strings.ContainsAny(lit, "\n\r\x00") {
			t.Errorf("PyString(%q) = %s spans lines", s, lit)
		}
		// Go reads every escape PyString writes as Python does.
		got, err := strconv.Unquote(lit)
		want := valid(s)
		if err != nil || got != want {
			t.Errorf("PyString(%q) = %s reads back as %q, %v", s, lit, got, err)
		}
	}
}

func TestPyDoc(t *testing.T) {
	for _, s := range hostile {
		doc := PyDoc(s)
		if strings.Contains(doc, `"""`) || strings.Contains(doc, "\r") || strings.HasSuffix(doc, `"`) && !strings.HasSuffix(doc, `\"`) {
			t.Errorf("PyDoc(%q) = %q can close the docstring", s, doc)
		}
		if strings.HasPrefix(doc, `"`) {
			t.Errorf("PyDoc(%q) = %q starts with a quote", s, doc)
		}
		// Inside a docstring the escapes read as in a Go literal, a
		// newline included once written as \n.
		got, err := unquoteDoc(doc)
		if err != nil || got != valid(s) {
			t.Errorf("PyDoc(%q) = %q reads back as %q, %v", s, doc, got, err)
		}
	}
	if got := PyDoc(`say "hi" there`); got != `say "hi\" there` && got != `say "hi" there` {
		t.Errorf("PyDoc = %q", got)
	}
}

func TestCMakeString(t *testing.T) {
	cases := map[string]string{`a"b`: `"a\"b"`, "${X}": `"\${X}"`, "a;b": `"a\;b"`, `a\`: `"a\\"`, "a\nb": `"a\nb"`}
	for in, want := range cases {
		if got := CMakeString(in); got != want {
			t.Errorf("CMakeString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	cases := map[string]string{
		"a|b":     `a\|b`,
		"# head":  `\# head`,
		"1. item": `1\. item`,
		"v1.0":    `v1.0`,
		"<b>":     `\<b>`,
		"a_b _c_": `a_b \_c\_`,
		"x\ny":    `x y`,
	}
	for in, want := range cases {
		if got := MarkdownText(in); got != want {
			t.Errorf("MarkdownText(%q) = %q, want %q", in, got, want)
		}
	}
	codes := map[string]string{"a": "`a`", "a`b": "``a`b``", "`": "`` ` ``", "a|b": "`a\\|b`"}
	for in, want := range codes {
		if got := MarkdownCode(in); got != want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestXMLText(t *testing.T) {
	for _, s := range hostile {
		var v struct {
			A string `xml:"a,attr"`
			T string `xml:",chardata"`
		}
		x := XMLText(s)
		doc := `<e a="` + x + `">` + x + `</e>`
		if err := xml.Unmarshal([]byte(doc), &v); err != nil {
			t.Errorf("XMLText(%q) = %q: %v", s, x, err)
			continue
		}
		if utf8.ValidString(s) && !strings.ContainsAny(s, "\x00\x01\x1f\x7f\r") && v.T != s {
			t.Errorf("XMLText(%q) reads back as %q", s, v.T)
		}
	}
}

func TestYAMLString(t *testing.T) {
	for _, s := range hostile {
		var got string
		if err := yaml.Unmarshal([]byte("v: "+YAMLString(s)+"\n"), &struct{ V *string }{&got}); err != nil {
			t.Errorf("YAMLString(%q) = %s: %v", s, YAMLString(s), err)
			continue
		}
		if want := valid(s); got != want {
			t.Errorf("YAMLString(%q) reads back as %q", s, got)
		}
	}
}

// FuzzEscapers holds every escaper to its contract on any text.
func FuzzEscapers(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// The plain-text shortcut: oneLine returns s only where the loop
		// would have copied it unchanged.
		if plainLine(s) {
			var b strings.Builder
			for _, w := range strings.Fields(s) {
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(w)
			}
			if b.String() != s || strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
				t.Fatalf("plainLine(%q) but the text is not one plain line", s)
			}
		}
		if got := unquoteC(t, CString(s)); got != s {
			t.Fatalf("CString(%q) reads back as %q", s, got)
		}
		if got, err := strconv.Unquote(PyString(s)); err != nil || got != valid(s) {
			t.Fatalf("PyString(%q) reads back as %q, %v", s, got, err)
		}
		doc := PyDoc(s)
		if strings.Contains(doc, `"""`) || strings.HasPrefix(doc, `"`) || strings.HasSuffix(doc, `"`) && !strings.HasSuffix(doc, `\"`) {
			t.Fatalf("PyDoc(%q) = %q", s, doc)
		}
		for _, c := range []string{CComment(s), HashComment(s), MarkdownText(s)} {
			if strings.ContainsAny(c, "\n\r") || strings.HasSuffix(c, `\`) && !strings.HasSuffix(c, `\\`) {
				t.Fatalf("comment text %q from %q", c, s)
			}
		}
	})
}

// valid is s with each byte that is not UTF-8 replaced by U+FFFD, as
// ranging over s reads it.
func valid(s string) string { return string([]rune(s)) }

// unquoteDoc reads docstring text as Python does.
func unquoteDoc(s string) (string, error) {
	var b strings.Builder
	for s != "" {
		if s[0] == '"' || s[0] == '\n' {
			b.WriteByte(s[0])
			s = s[1:]
			continue
		}
		r, multi, tail, err := strconv.UnquoteChar(s, '"')
		if err != nil {
			return "", err
		}
		if multi || r >= utf8.RuneSelf {
			b.WriteRune(r)
		} else {
			b.WriteByte(byte(r))
		}
		s = tail
	}
	return b.String(), nil
}
