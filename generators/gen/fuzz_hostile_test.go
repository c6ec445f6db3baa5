package gen

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/fileset"
)

// lineStates lexes src as C-family (C, C++, CUDA, OpenCL) or Python source
// and returns, per line, the lexer's state at its end (in code, in a
// string, in a block comment or docstring) and whether the line continues
// onto the next (a final backslash). Free text that stays data never
// changes these.
func lineStates(src []byte, python bool) []string {
	const (
		code = iota
		dq   // "..."
		sq   // '...'
		tdq  // """..."""
		tsq  // '''...'''
		block
	)
	var out []string
	state := code
	s := string(src)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			// A final backslash splices a C line wherever it is; in Python
			// only an odd run inside a string continues it.
			run := 0
			for run < i && s[i-1-run] == '\\' {
				run++
			}
			splice := run > 0 && (!python || run%2 == 1 && state != code)
			out = append(out, fmt.Sprint(state, splice))
			continue
		}
		switch state {
		case code:
			switch {
			case python && c == '#', !python && c == '/' && i+1 < len(s) && s[i+1] == '/':
				for i+1 < len(s) && s[i+1] != '\n' {
					i++
				}
			case !python && c == '/' && i+1 < len(s) && s[i+1] == '*':
				state, i = block, i+1
			case python && strings.HasPrefix(s[i:], `"""`):
				state, i = tdq, i+2
			case python && strings.HasPrefix(s[i:], `'''`):
				state, i = tsq, i+2
			case c == '"':
				state = dq
			case c == '\'':
				state = sq
			}
		case dq, sq, tdq, tsq:
			switch {
			case c == '\\':
				if i+1 < len(s) && s[i+1] != '\n' {
					i++
				}
			case state == dq && c == '"', state == sq && c == '\'':
				state = code
			case state == tdq && strings.HasPrefix(s[i:], `"""`), state == tsq && strings.HasPrefix(s[i:], `'''`):
				state, i = code, i+2
			}
		case block:
			if strings.HasPrefix(s[i:], "*/") {
				state, i = code, i+1
			}
		}
	}
	return out
}

// sourceShapes are the line states of every C-family and Python file.
func sourceShapes(set *fileset.Set) map[string][]string {
	m := map[string][]string{}
	for _, f := range set.Files() {
		switch path.Ext(f.Path) {
		case ".py":
			m[f.Path] = lineStates(f.Data, true)
		case ".cpp", ".h", ".cu", ".cl":
			m[f.Path] = lineStates(f.Data, false)
		}
	}
	return m
}

// FuzzHostileText puts random text in every free-text field of an opdef:
// generation either refuses it with diagnostics or produces files whose
// XML, YAML and JSON parse and whose C-family and Python sources lex into
// the same lines, in the same states, as with a plain text. The
// deterministic corpus (TestHostileText) runs the real compilers.
func FuzzHostileText(f *testing.F) {
	for _, s := range hostileTexts {
		f.Add(s)
	}
	base, l := generateText(f, hostileOpdef("Fuzz", "plain"))
	if base == nil || l.HasErrors() {
		f.Fatalf("the plain opdef does not generate:\n%s", diagText(l))
	}
	want := sourceShapes(base)
	f.Fuzz(func(t *testing.T, text string) {
		if len(strings.Fields(text)) == 0 {
			// Templates leave out an empty description's line.
			text += "x"
		}
		set, l := generateText(t, hostileOpdef("Fuzz", text))
		if set == nil || l.HasErrors() {
			if strings.Contains(diagText(l), "[internal]") {
				t.Fatalf("internal error:\n%s", diagText(l))
			}
			return // refused with diagnostics
		}
		checkParses(t, set)
		got := sourceShapes(set)
		for p, w := range want {
			g := got[p]
			if len(g) != len(w) {
				t.Fatalf("%s: %d lines with text %q, %d with a plain one", p, len(g), text, len(w))
			}
			for i := range w {
				if g[i] != w[i] {
					t.Fatalf("%s:%d: lexer state %s with text %q, %s with a plain one", p, i+1, g[i], text, w[i])
				}
			}
		}
	})
}

// TestLineStatesSeeBrokenText: the fuzz oracle notices text that escaped.
func TestLineStatesSeeBrokenText(t *testing.T) {
	good := lineStates([]byte("x = \"a\\\"b\"  # c \"\n\"\"\"doc \\\"\"\" \"\"\"\ny = 1\n"), true)
	bad := lineStates([]byte("x = \"a\"b\"  # c\n\"\"\"doc \"\"\" \"\"\"\ny = 1\n"), true)
	if strings.Join(good, ",") == strings.Join(bad, ",") {
		t.Fatalf("Python: %v == %v", good, bad)
	}
	c1 := lineStates([]byte("// a \\\nint x;\n"), false)
	c2 := lineStates([]byte("// a\nint x;\n"), false)
	if strings.Join(c1, ",") == strings.Join(c2, ",") {
		t.Fatalf("C: %v == %v", c1, c2)
	}
}
