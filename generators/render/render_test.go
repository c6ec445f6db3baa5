package render

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestHermeticFuncMap(t *testing.T) {
	m := FuncMap(nil)
	for _, name := range nonHermetic {
		if _, ok := m[name]; ok {
			t.Errorf("%s is still in the function map", name)
		}
	}
	for _, name := range []string{"upper", "join", "snakecase", "indent"} {
		if _, ok := m[name]; !ok {
			t.Errorf("deterministic function %s is missing", name)
		}
	}
}

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
		if got, err := Sections(s, "item", c.items); err != nil || got != c.want {
			t.Errorf("Sections(%v) = %q, %v; want %q", c.items, got, err, c.want)
		}
	}
	if _, err := Sections(s, "item", []int{1, 3, 2}); err == nil {
		t.Error("a failing section must fail the whole")
	}
}
