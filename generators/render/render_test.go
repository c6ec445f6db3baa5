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
