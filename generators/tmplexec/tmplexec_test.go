package tmplexec

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"text/template"
)

type inner struct {
	Name  string
	Count int
	Tags  []string
}

type named string

func (n named) String() string { return "named(" + string(n) + ")" }

type ptrNamed string

func (n *ptrNamed) String() string { return "ptr(" + string(*n) + ")" }

type level int8

type errStringer string

func (e errStringer) Error() string  { return "error:" + string(e) }
func (e errStringer) String() string { return "string:" + string(e) }

type panicky string

func (p *panicky) String() string { panic("no") }

type fmter string

func (f fmter) Format(st fmt.State, verb rune) { fmt.Fprintf(st, "F<%s>", string(f)) }

type Embedded struct{ Deep string }

type row struct {
	Embedded
	Title   string
	Inner   inner
	Ptr     *inner
	NilPtr  *inner
	Items   []inner
	Ptrs    []*inner
	Strs    []string
	Empty   []string
	Ints    map[string]int
	ByNum   map[int]string
	Any     any
	NilAny  any
	Named   named
	PNamed  ptrNamed
	Flag    bool
	N       int
	U       uint
	F       float64
	Fn      func() string
	Level   level
	Fmter   fmter
	PtrIn   *ptrNamed
	ErrStr  errStringer
	Panicky panicky
	NilStr  *ptrNamed
	private string
}

func (r row) Upper() string          { return strings.ToUpper(r.Title) }
func (r *row) PtrMethod() string     { return "p:" + r.Title }
func (r row) Fails() (string, error) { return "", errors.New("it fails") }
func (r row) Pair() (int, error)     { return 7, nil }
func (r row) Arg(s string) string    { return "arg:" + s }

func testData() *row {
	in := inner{Name: "in", Count: 2, Tags: []string{"a", "b"}}
	return &row{
		Embedded: Embedded{Deep: "deep"},
		Title:    "title <x>",
		Inner:    in,
		Ptr:      &in,
		Items:    []inner{{Name: "one", Count: 1}, {Name: "two", Count: 0, Tags: []string{"t"}}},
		Ptrs:     []*inner{&in, nil},
		Strs:     []string{"x", "y", "z"},
		Ints:     map[string]int{"b": 2, "a": 1, "c": 3},
		ByNum:    map[int]string{3: "three", 1: "one", 2: "two"},
		Any:      inner{Name: "any"},
		Named:    "nm",
		PNamed:   "pn",
		Flag:     true,
		N:        3,
		U:        3,
		F:        1.5,
		Fn:       func() string { return "fn" },
		Level:    -7,
		Fmter:    "f",
		PtrIn:    new(ptrNamed),
		private:  "hidden",
	}
}

var testFuncs = template.FuncMap{
	"up":    strings.ToUpper,
	"join":  func(sep string, v any) string { return fmt.Sprint(v) + sep },
	"pair":  func(a, b string) string { return a + "+" + b },
	"fails": func(s string) (string, error) { return "", errors.New("no: " + s) },
	"boom":  func(s string) string { panic("boom " + s) },
	"num":   func(n int) int { return n * 2 },
	"many":  func(s ...string) string { return strings.Join(s, ",") },
}

// cases: each template, and whether it must run compiled (no fallback)
// on testData.
var cases = []struct {
	name     string
	src      string
	compiled bool
}{
	{"text", `hello`, true},
	{"field", `{{ .Title }} {{ .Inner.Name }} {{ .Ptr.Count }} {{ .Deep }}`, true},
	{"print kinds", `{{ .N }} {{ .U }} {{ .F }} {{ .Flag }} {{ .Named }} {{ .PNamed }} {{ .Any }} {{ .Strs }} {{ .Ints }} {{ .Level }} {{ .Fmter }} {{ .PtrIn }} {{ .Inner }} {{ .Ptr }} {{ .ErrStr }} [{{ .NilStr }}]`, true},
	{"panicking String", `{{ .Panicky }}`, false},
	{"print in range", `{{ range .Items }}{{ . }}{{ end }}{{ with .Any }}{{ . }}{{ end }}`, true},
	{"nil any", `[{{ .NilAny }}]`, true},
	{"nil ptr print", `[{{ .NilPtr }}]`, true},
	{"methods", `{{ .Upper }} {{ .PtrMethod }} {{ .Pair }}`, true},
	{"method error", `{{ .Fails }}`, false},
	{"method args", `{{ .Arg "x" }}`, false},
	{"nil ptr field", `{{ .NilPtr.Name }}`, false},
	{"unexported", `{{ .private }}`, false},
	{"missing field", `{{ .Nope }}`, false},
	{"map key", `{{ .Ints.a }} {{ .Ints.b }}`, true},
	{"missing key", `{{ .Ints.zz }}`, false},
	{"if else", `{{ if .Flag }}yes{{ else }}no{{ end }}{{ if .Empty }}e{{ else if .Strs }}s{{ end }}`, true},
	{"with", `{{ with .Inner }}{{ .Name }}{{ end }}{{ with .Empty }}x{{ else }}none{{ end }}`, true},
	{"with else with", `{{ with .Empty }}x{{ else with .Strs }}{{ len . }}{{ end }}`, true},
	{"range slice", `{{ range .Items }}[{{ .Name }}]{{ end }}{{ range $i, $x := .Strs }}{{ $i }}={{ $x }};{{ end }}`, true},
	{"range one var", `{{ range $x := .Strs }}{{ $x }}{{ end }}`, true},
	{"range else", `{{ range .Empty }}x{{ else }}empty{{ end }}{{ range .NilPtr }}{{ end }}`, false},
	{"range map", `{{ range $k, $v := .Ints }}{{ $k }}:{{ $v }} {{ end }}{{ range .ByNum }}{{ . }}{{ end }}`, true},
	{"range break continue", `{{ range $i, $x := .Strs }}{{ if eq $i 1 }}{{ continue }}{{ end }}{{ if eq $x "z" }}{{ break }}{{ end }}{{ $x }}{{ end }}`, true},
	{"range int", `{{ range .N }}{{ . }}{{ end }}`, false},
	{"range nested vars", `{{ range $i, $a := .Items }}{{ range $j, $t := $a.Tags }}{{ $i }}{{ $j }}{{ $t }}{{ $a.Name }}{{ end }}{{ end }}`, true},
	{"variables", `{{ $t := .Title }}{{ $t }}{{ $t = "changed" }}{{ $t }}{{ $.N }}{{ with .Inner }}{{ $.Title }}{{ $t }}{{ end }}`, true},
	{"variable scope", `{{ if true }}{{ $x := 1 }}{{ $x }}{{ end }}{{ $x := 2 }}{{ $x }}`, true},
	{"funcs", `{{ up .Title }} {{ .Title | up }} {{ pair "a" .Title }} {{ .Title | pair "b" }} {{ num 4 }} {{ join "," .Strs }}`, true},
	{"func error", `{{ fails "x" }}`, false},
	{"func panic", `before{{ boom "x" }}`, false},
	{"variadic", `{{ many "a" "b" }}`, false},
	{"builtins", `{{ len .Strs }} {{ index .Strs 1 }} {{ index .Ints "c" }} {{ index .Items 1 "x" | printf "%v" }}`, false},
	{"builtins ok", `{{ len .Strs }} {{ index .Strs 1 }} {{ index .Ints "c" }} {{ index .Ints "none" }} {{ not .Flag }} {{ not .Empty }}`, true},
	{"index out of range", `{{ index .Strs 3 }}`, false},
	{"and or", `{{ and .Flag .Title }} {{ or .Empty .Title }} {{ and .Empty .Boom }} {{ or .Flag .Boom }} {{ .Title | and .Flag }}`, true},
	{"eq ne", `{{ eq .N 3 }} {{ eq .Title "x" "title <x>" }} {{ ne .N 4 }} {{ eq .U 3 }} {{ eq .N .U }}`, true},
	{"eq mismatch", `{{ eq .N "3" }}`, false},
	{"print printf", `{{ print .N .Title }} {{ printf "%s-%d" .Title .N }} {{ printf "%q" .Title | up }} {{ print .NilAny }}`, true},
	{"parens", `{{ (up .Title) }} {{ up (printf "%d" .N) }}`, true},
	{"pipeline any", `{{ .Any.Name }}`, true},
	{"template call", `{{ define "sub" }}<{{ .Name }}{{ $.Count }}>{{ end }}{{ template "sub" .Inner }}{{ range .Items }}{{ template "sub" . }}{{ end }}`, true},
	{"template no pipe", `{{ define "plain" }}[{{ . }}]{{ end }}{{ template "plain" }}`, true},
	{"template decl", `{{ template "sub2" $x := .Title }}{{ $x }}{{ define "sub2" }}{{ . }}{{ end }}`, true},
	{"comment", `a{{/* c */}}b{{- /* d */ -}} c`, true},
	{"trim", "a  {{- .N -}}  b\n", true},
	{"func field", `{{ .Fn }}`, false},
	{"constants", `{{ 1 }} {{ 1.5 }} {{ "s" }} {{ true }} {{ 0x10 }} {{ 'a' }}`, true},
	{"dot", `{{ with .Strs }}{{ . }}{{ end }}`, true},
}

func parseRoot(t *testing.T, src string) *template.Template {
	t.Helper()
	tmpl, err := template.New("root").Funcs(testFuncs).Option("missingkey=error").Parse(src)
	if err != nil {
		t.Skipf("does not parse: %v", err) // a parse error is text/template's alone
	}
	return tmpl
}

func TestCompiledMatchesTextTemplate(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmpl := parseRoot(t, c.src)
			var want bytes.Buffer
			wantErr := tmpl.ExecuteTemplate(&want, "root", testData())
			p := Compile(tmpl, testFuncs)
			got := bytes.NewBufferString("prefix:")
			gotErr := p.Execute(got, "root", testData())
			if got.String() != "prefix:"+want.String() {
				t.Errorf("output %q, text/template %q", got.String(), "prefix:"+want.String())
			}
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("error %v, text/template %v", gotErr, wantErr)
			}
			ranCompiled := p.Fallbacks() == 0 && len(p.NotCompiled()) == 0
			if ranCompiled != c.compiled {
				t.Errorf("ran compiled: %v, want %v (fallbacks %d, not compiled %v)", ranCompiled, c.compiled, p.Fallbacks(), p.NotCompiled())
			}
		})
	}
}

// TestCompiledOnEveryCore runs one program on many goroutines, over
// receivers of two types at the same sites, so the field memos are
// swapped while others read them (run with -race).
func TestCompiledOnEveryCore(t *testing.T) {
	tmpl := parseRoot(t, `{{ range . }}{{ .Name }};{{ end }}`)
	p := Compile(tmpl, testFuncs)
	type other struct{ Name int }
	data := []any{[]inner{{Name: "a"}, {Name: "b"}}, []other{{Name: 1}, {Name: 2}}}
	want := []string{"a;b;", "1;2;"}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				k := (g + i) % 2
				var b bytes.Buffer
				if err := p.Execute(&b, "root", data[k]); err != nil || b.String() != want[k] {
					t.Errorf("got %q, %v; want %q", b.String(), err, want[k])
					return
				}
			}
		}()
	}
	wg.Wait()
	if p.Fallbacks() != 0 {
		t.Errorf("%d fallbacks", p.Fallbacks())
	}
}

func BenchmarkExecute(b *testing.B) {
	src := `{{ range .Items }}{{ .Name }} {{ up .Name }} {{ if .Tags }}{{ join "," .Tags }}{{ end }}{{ range $i, $t := .Tags }}{{ $i }}{{ $t }}{{ end }}
{{ end }}`
	tmpl := template.Must(template.New("root").Funcs(testFuncs).Parse(src))
	p := Compile(tmpl, testFuncs)
	d := testData()
	for range 5 {
		d.Items = append(d.Items, d.Items...)
	}
	var buf bytes.Buffer
	b.Run("text/template", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			tmpl.Execute(&buf, d)
		}
	})
	b.Run("compiled", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			p.Execute(&buf, "root", d)
		}
	})
}
