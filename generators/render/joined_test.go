package render

import (
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"
)

// TestJoinedIsInline: a file printing its sections as a Joined is the file
// printing them as one string, normalized, over random sections (blank
// runs, trailing spaces, no final newline) and two Joined in one file.
func TestJoinedIsInline(t *testing.T) {
	fsys := fstest.MapFS{
		"t/f.tmpl": {Data: []byte("head  \n\n\n{{ .A }}mid\n{{- .B }}\n\ntail \n")},
	}
	s, err := Load(fsys, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 11))
	bits := []string{"x", " ", "\t", "\n", "\n\n", "def f():", "  pass", ""}
	text := func() []string {
		parts := make([]string, r.IntN(6))
		for i := range parts {
			var b strings.Builder
			for range r.IntN(8) {
				b.WriteString(bits[r.IntN(len(bits))])
			}
			parts[i] = b.String()
		}
		return parts
	}
	type joined struct{ A, B *Joined }
	type inline struct{ A, B string }
	for range 2000 {
		a, b := text(), text()
		got, err := s.Execute("f.tmpl", &joined{NewJoined(a), NewJoined(b)})
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.Execute("f.tmpl", inline{strings.Join(a, ""), strings.Join(b, "")})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("sections %q and %q: joined gave\n%q\ninline\n%q", a, b, got, want)
		}
	}
}

// TestJoinedOnlyFromData: a Joined the template's data does not hold at
// its top level is refused, not printed as its mark.
func TestJoinedOnlyFromData(t *testing.T) {
	fsys := fstest.MapFS{"t/f.tmpl": {Data: []byte("{{ .Inner.A }}")}}
	s, err := Load(fsys, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	type inner struct{ A *Joined }
	if out, err := s.Execute("f.tmpl", struct{ Inner inner }{inner{NewJoined([]string{"x"})}}); err == nil {
		t.Fatalf("printed %q", out)
	}
}
