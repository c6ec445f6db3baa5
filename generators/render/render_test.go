package render

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"
)

func TestTemplatesFailLoudly(t *testing.T) {
	fsys := fstest.MapFS{
		"t/now.tmpl":     {Data: []byte(`{{ now }}`)},
		"t/missing.tmpl": {Data: []byte(`{{ .Nope }}`)},
	}
	if _, err := Load(fsys, "t", nil); err == nil || !strings.Contains(err.Error(), "now") {
		t.Errorf("a template calling now() must not parse: %v", err)
	}
	delete(fsys, "t/now.tmpl")
	s, err := Load(fsys, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute("missing.tmpl", map[string]any{}); err == nil {
		t.Error("a missing key must be an error, not <no value>")
	}
}

func TestNormalize(t *testing.T) {
	got := string(normalize([]byte("\n\na  \n\n\n\nb\t\n\n")))
	if got != "a\n\nb\n" {
		t.Errorf("got %q", got)
	}
}

func TestNormalizeEdges(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "\n",
		"\n \n\t\n":           "\n",
		"a":                   "a\n",
		"a\nb":                "a\nb\n",
		"  a \n\n \n b\r \n":  "  a\n\n b\r\n",
		"a\n\n\nb\n\n\nc\n\n": "a\n\nb\n\nc\n",
	} {
		if got := string(normalize([]byte(in))); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSections: sections join in item order, whatever core renders each,
// with their raw bytes (the file they go into is normalized once); an
// error in any section is returned.
func TestSections(t *testing.T) {
	fsys := fstest.MapFS{"t/s.tmpl": {Data: []byte("{{ define \"item\" }}{{ if eq . 3 }}{{ .Nope }}{{ end }}<{{ . }}>  \n\n\n{{ end }}")}}
	s, err := Load(fsys, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		items []int
		want  string
	}{
		{nil, ""},
		{[]int{1}, "<1>  \n\n\n"},
		{[]int{2, 1, 0}, "<2>  \n\n\n<1>  \n\n\n<0>  \n\n\n"},
	} {
		if got, err := Sections(s, "item", c.items); err != nil || got.Text() != c.want {
			t.Errorf("Sections(%v) = %q, %v; want %q", c.items, got.Text(), err, c.want)
		}
	}
	if _, err := Sections(s, "item", []int{1, 3, 2}); err == nil {
		t.Error("a failing section must fail the whole")
	}
}

func TestIsNormal(t *testing.T) {
	for in, want := range map[string]bool{
		"":           false,
		"a":          true,
		"a\n":        true,
		"a\n\nb\n":   true,
		"a\r\n":      true,
		"\na\n":      false, // leading blank line
		"a\n\n":      false, // trailing blank line
		"a\n\n\nb":   false, // two blank lines
		"a \nb":      false, // trailing space
		"a\t":        false,
		"a\n  \nb":   false, // blank line of spaces
		"\t\na":      false,
		"a\nb \n":    false,
		"a\n\nb\n\n": false,
	} {
		if got := isNormal([]byte(in)); got != want {
			t.Errorf("isNormal(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestNormalizeShortcut: where isNormal lets normalize copy b, the result
// is what normalizing line by line gives, for random short texts of the
// characters that matter.
func TestNormalizeShortcut(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	chars := []byte("ab \t\n\n\r")
	for range 200000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		if got, want := normalize(b), normalizeLines(b); !bytes.Equal(got, want) {
			t.Fatalf("normalize(%q) = %q, want %q", b, got, want)
		}
	}
}

// TestHeadedIsWithHeader: a file put together after room for its header
// line (headed) is the file normalized and then given its header
// (fileset.WithHeaderLine), for random short texts of the characters that
// matter, some starting with an XML declaration or a #! line, which the
// header follows.
func TestHeadedIsWithHeader(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	chars := []byte("ab \t\n\n\r")
	starts := []string{"", "", "<?xml v?>\n", "<?xml", "#!/bin/sh\n", "#!", "\n#!x\n"}
	for _, head := range []string{"", "# h\n", "// header line\n"} {
		for range 100000 {
			b := []byte(starts[r.IntN(len(starts))])
			for range r.IntN(12) {
				b = append(b, chars[r.IntN(len(chars))])
			}
			room := append(make([]byte, len(head), len(head)+len(b)+1), b...)
			if got, want := headed(room, head), withHead(normalize(b), head); !bytes.Equal(got, want) {
				t.Fatalf("headed(%q, %q) = %q, want %q", b, head, got, want)
			}
		}
	}
}
