package tmplexec

// Differential tests: tmplexec against text/template, output and error,
// over some 200 hand-written templates times seven shapes of data and
// every missingkey option (reflect.Values, interfaces with String and
// Error, nil at every step, unaddressable roots), the same shared across
// goroutines, random templates from a small grammar
// (TMPLEXEC_RANDOM=N runs N of them; TMPLEXEC_SEED replays one run), and
// FuzzCompiledMatchesTextTemplate, seeded from both tables.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/template"
	"text/template/parse"
	"time"
)

type zErrStr string // Error and String: fmt calls Error

func (e zErrStr) Error() string  { return "E(" + string(e) + ")" }
func (e zErrStr) String() string { return "S(" + string(e) + ")" }

type zFmtStr string // Format and String: fmt calls Format

func (f zFmtStr) Format(st fmt.State, verb rune) { fmt.Fprintf(st, "F(%s)", string(f)) }
func (f zFmtStr) String() string                 { return "S(" + string(f) + ")" }

type zStr string // String only

func (s zStr) String() string { return "S(" + string(s) + ")" }

type zPtrStr struct{ V int } // String on the pointer, nil-safe

func (p *zPtrStr) String() string {
	if p == nil {
		return "nilZ"
	}
	return fmt.Sprint("P", p.V)
}

type zInt int

func (z zInt) String() string { return fmt.Sprintf("zInt%d", int(z)) }

type zKey string
type zBool bool
type zFloat float64
type zBytes []byte

type zBase struct {
	Name string
	Dup  string
}

func (b zBase) BaseM() string  { return "base:" + b.Name }
func (b *zBase) BaseP() string { return "basep:" + b.Name }

type zOther struct{ Dup string }

type zLeaf struct {
	Name string
	N    int
	Tags []string
}

func (l zLeaf) M() string  { return "leafM:" + l.Name }
func (l *zLeaf) P() string { return "leafP:" + l.Name }

type zRow struct {
	zBase   // embedded, Name is promoted
	*zOther // nil embedded pointer: Dup ambiguous anyway
	Leaf    zLeaf
	LeafP   *zLeaf
	NilP    *zLeaf
	Leaves  []zLeaf
	LeafPs  []*zLeaf
	Arr     [3]int
	ArrP    *[2]string
	SliceP  *[]string
	NilSP   *[]string
	Strs    []string
	Empty   []string
	NilS    []string
	M       map[string]int
	MAny    map[string]any
	MI      map[int]string
	MU      map[uint8]string
	MKey    map[zKey]int
	MIf     map[any]string
	MBool   map[bool]string
	MF      map[float64]string
	MNil    map[string]int
	MPtr    *map[string]int
	Any     any
	AnyP    any
	AnyS    any
	AnyNil  any
	AnyRV   any
	S       fmt.Stringer
	SE      fmt.Stringer
	SF      fmt.Stringer
	SNil    fmt.Stringer
	SPtr    fmt.Stringer
	Err     error
	ErrNil  error
	Rdr     io.Reader
	RV      reflect.Value
	RV0     reflect.Value
	RVS     reflect.Value
	RVInv   reflect.Value
	RVs     []reflect.Value
	ZS      zStr
	ZE      zErrStr
	ZF      zFmtStr
	ZP      zPtrStr
	ZPP     *zPtrStr
	ZPNil   *zPtrStr
	ZI      zInt
	ZIs     []zInt
	ZPs     []zPtrStr
	ZK      zKey
	ZB      zBool
	ZFl     zFloat
	ZBy     zBytes
	Bytes   []byte
	Flag    bool
	N       int
	I8      int8
	I64     int64
	U       uint
	U8      uint8
	F       float64
	F32     float32
	C       complex128
	Neg     int
	Fn      func() string
	Ch      chan int
	PP      **zLeaf
	PAny    *any
	Upt     uintptr
	priv    string
}

func (r zRow) Meth() string           { return "meth" }
func (r *zRow) PMeth() string         { return "pmeth" }
func (r zRow) Two() (string, error)   { return "two", nil }
func (r zRow) Err2() (string, error)  { return "", errors.New("err2") }
func (r zRow) RVM() reflect.Value     { return reflect.ValueOf(42) }
func (r zRow) RVZ() reflect.Value     { return reflect.ValueOf(0) }
func (r zRow) AnyM() any              { return reflect.ValueOf("inAny") }
func (r zRow) NilM() any              { return nil }
func (r zRow) Args(s string) string   { return "args:" + s }
func (r zRow) Var(s ...string) string { return strings.Join(s, "|") }
func (r zRow) Bad() (string, string)  { return "a", "b" }
func (r zRow) StrM() fmt.Stringer     { return zErrStr("m") }
func (r zRow) LeafM() zLeaf           { return r.Leaf }
func (r zRow) PtrStrM() zPtrStr       { return zPtrStr{V: 9} }
func (r zRow) MapM() map[string]int   { return r.M }

func zData() *zRow {
	leaf := zLeaf{Name: "leaf", N: 2, Tags: []string{"t1", "t2"}}
	lp := &leaf
	var anyNil any
	sp := []string{"sp0", "sp1"}
	mp := map[string]int{"k": 1}
	return &zRow{
		zBase:  zBase{Name: "base", Dup: "d"},
		Leaf:   leaf,
		LeafP:  lp,
		Leaves: []zLeaf{{Name: "a", N: 1}, {Name: "b", N: 0, Tags: []string{"x"}}},
		LeafPs: []*zLeaf{lp, nil},
		Arr:    [3]int{7, 8, 9},
		ArrP:   &[2]string{"p0", "p1"},
		SliceP: &sp,
		Strs:   []string{"x", "y", "z"},
		Empty:  []string{},
		M:      map[string]int{"b": 2, "a": 1, "c": 0},
		MAny:   map[string]any{"s": "str", "n": 3, "nil": nil, "m": map[string]any{"deep": "D"}, "l": []any{1, "two"}},
		MI:     map[int]string{3: "three", -1: "neg", 2: "two"},
		MU:     map[uint8]string{2: "u2", 1: "u1"},
		MKey:   map[zKey]int{"kb": 2, "ka": 1},
		MIf:    map[any]string{"s": "S", 1: "one"},
		MBool:  map[bool]string{true: "T", false: "F"},
		MF:     map[float64]string{1.5: "a", -2: "b"},
		MPtr:   &mp,
		Any:    zLeaf{Name: "anyleaf"},
		AnyP:   &zLeaf{Name: "anyptr"},
		AnyS:   "anystr",
		AnyNil: anyNil,
		AnyRV:  reflect.ValueOf(5),
		S:      zStr("s"),
		SE:     zErrStr("se"),
		SF:     zFmtStr("sf"),
		SPtr:   (*zPtrStr)(nil),
		Err:    zErrStr("err"),
		Rdr:    strings.NewReader("r"),
		RV:     reflect.ValueOf(7),
		RV0:    reflect.ValueOf(0),
		RVS:    reflect.ValueOf([]int{1, 2}),
		RVs:    []reflect.Value{reflect.ValueOf("rv0"), reflect.ValueOf(false)},
		ZS:     "zs",
		ZE:     "ze",
		ZF:     "zf",
		ZP:     zPtrStr{V: 1},
		ZPP:    &zPtrStr{V: 2},
		ZI:     5,
		ZIs:    []zInt{1, 2},
		ZPs:    []zPtrStr{{V: 3}, {V: 4}},
		ZK:     "zk",
		ZB:     true,
		ZFl:    2.5,
		ZBy:    zBytes("by"),
		Bytes:  []byte("bytes"),
		Flag:   true,
		N:      3,
		I8:     -8,
		I64:    64,
		U:      3,
		U8:     200,
		F:      1.25,
		F32:    0.1,
		C:      complex(1, -2),
		Neg:    -1,
		Fn:     func() string { return "fn" },
		Ch:     closedChan(),
		PP:     &lp,
		PAny:   new(any),
		Upt:    7,
		priv:   "private",
	}
}

func closedChan() chan int {
	c := make(chan int) // closed and empty: ranging it consumes nothing
	close(c)
	return c
}

// zFuncs are the other tests' functions and more.
var zFuncs = func() template.FuncMap {
	m := maps.Clone(testFuncs)
	maps.Copy(m, template.FuncMap{
		"i64":    func(n int64) int64 { return n + 1 },
		"i8":     func(n int8) int8 { return n },
		"anyf":   func(v any) string { return fmt.Sprintf("%T:%v", v, v) },
		"rvf":    func(v reflect.Value) reflect.Value { return v },
		"rvany":  func() any { return reflect.ValueOf(3) },
		"rv0":    func() reflect.Value { return reflect.ValueOf(0) },
		"nilany": func() any { return nil },
		"ptrf":   func(l *zLeaf) string { return fmt.Sprint(l == nil) },
		"strf":   func(s fmt.Stringer) string { return fmt.Sprint(s == nil) },
		"mapf":   func(m map[string]int) int { return len(m) },
		"errf":   func() error { return nil },
		"sl":     func() []int { return []int{4, 5} },
		"two":    func(a string, b int) string { return fmt.Sprint(a, b) },
		"bf":     func(b bool) bool { return !b },
	})
	return m
}()

const (
	optDefault = iota
	optError
	optZero
)

var optNames = []string{"missingkey=default", "missingkey=error", "missingkey=zero"}

func zParse(src string, opt int) (*template.Template, error) {
	return template.New("root").Funcs(zFuncs).Option(optNames[opt]).Parse(src)
}

// zStats counts how zCompare's runs went.
var zStats struct{ compiled, fellBack, notCompiled atomic.Int64 }

var zWhyN sync.Map // why not compiled: first word, count

// zCompare executes tmpl both ways and reports any difference.
func zCompare(tb testing.TB, src string, tmpl *template.Template, data func() any) {
	tb.Helper()
	d := data() // one value for both: pointers print alike
	var want bytes.Buffer
	wantErr := tmpl.ExecuteTemplate(&want, "root", d)
	p := Compile(tmpl, zFuncs)
	got := bytes.NewBufferString("prefix:")
	gotErr := p.Execute(got, "root", d)
	if len(p.NotCompiled()) > 0 {
		zStats.notCompiled.Add(1)
		for _, why := range p.NotCompiled() {
			if v, ok := zWhyN.LoadOrStore(strings.Fields(why)[0], new(atomic.Int64)); ok {
				v.(*atomic.Int64).Add(1)
			}
		}
	} else if p.Fallbacks() > 0 {
		zStats.fellBack.Add(1)
	} else {
		zStats.compiled.Add(1)
	}
	if got.String() != "prefix:"+want.String() || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		tb.Errorf("template %q (fallbacks %d, not compiled %v):\n tmplexec:      %q, %v\n text/template: %q, %v",
			src, p.Fallbacks(), p.NotCompiled(), strings.TrimPrefix(got.String(), "prefix:"), gotErr, want.String(), wantErr)
	}
}

var zDatas = []struct {
	name string
	data func() any
}{
	{"ptr", func() any { return zData() }},
	{"value", func() any { return *zData() }}, // not addressable
	{"any map", func() any { return map[string]any{"Row": zData(), "N": 1} }},
	{"nil", func() any { return nil }},
	{"reflect.Value", func() any { return reflect.ValueOf(zData()).Elem() }}, // addressable
	{"rv of int", func() any { return reflect.ValueOf(0) }},
	{"slice", func() any { return []any{zData(), nil, zErrStr("x"), reflect.ValueOf(1)} }},
}

var zCases = []string{
	// printing
	`{{.S}}|{{.SE}}|{{.SF}}|{{.SNil}}|{{.SPtr}}|{{.Err}}|{{.ErrNil}}|{{.Rdr}}`,
	`{{.SE}}`, `{{.SF}}`, `{{.StrM}}`, `{{with .SE}}{{.}}{{end}}`, `{{range $k, $v := .MAny}}{{$k}}={{$v}};{{end}}`,
	`{{.RV}}|{{.RV0}}|{{.RVS}}|{{.RVInv}}|{{.RVs}}|{{index .RVs 0}}|{{range .RVs}}{{.}};{{end}}`,
	`{{.RV}}`, `{{.RVInv}}`, `{{.AnyRV}}`, `{{.RVM}}`, `{{.AnyM}}`, `{{rvany}}`, `{{rv0}}`, `{{rvf .N}}`, `{{rvf .RV}}`,
	`{{.ZS}}|{{.ZE}}|{{.ZF}}|{{.ZP}}|{{.ZPP}}|{{.ZPNil}}|{{.ZI}}|{{.ZIs}}|{{.ZPs}}|{{.ZK}}|{{.ZB}}|{{.ZFl}}|{{.ZBy}}|{{.Bytes}}`,
	`{{range .ZPs}}{{.}}{{end}}|{{range $i, $x := .ZPs}}{{$x}}{{end}}|{{index .ZPs 0}}|{{.PtrStrM}}|{{with .ZP}}{{.}}{{end}}`,
	`{{.Flag}}|{{.N}}|{{.I8}}|{{.I64}}|{{.U}}|{{.U8}}|{{.F}}|{{.F32}}|{{.C}}|{{.Neg}}|{{.Upt}}|{{.Arr}}|{{.ArrP}}|{{.SliceP}}|{{.M}}|{{.MI}}|{{.Leaf}}|{{.LeafP}}|{{.NilP}}|{{.PP}}|{{.PAny}}|{{.MNil}}|{{.NilS}}`,
	`{{.Any}}|{{.AnyP}}|{{.AnyS}}|{{.AnyNil}}|{{.Fn}}`, `{{.Ch}}`, `{{.Fn}}`,
	`{{.}}`, `{{$}}`, `{{.Row}}`, `{{.Row.N}}`,
	`{{1}} {{1.5}} {{1e3}} {{0x10}} {{'a'}} {{"s"}} {{true}} {{0x1p-2}} {{1_000}} {{-0}} {{0o17}}`,
	// fields and methods
	`{{.Name}} {{.Dup}} {{.BaseM}} {{.BaseP}} {{.Leaf.Name}} {{.Leaf.M}} {{.Leaf.P}} {{.LeafP.P}} {{.Meth}} {{.PMeth}} {{.Two}}`,
	`{{.NilP.Name}}`, `{{.NilP.P}}`, `{{.Err2}}`, `{{.Args "x"}}`, `{{"x" | .Args}}`, `{{.Var}}`, `{{.Bad}}`, `{{.priv}}`, `{{.Nope}}`,
	`{{.AnyNil.X}}`, `{{.SNil.String}}`, `{{.S.String}}`, `{{.SE.Error}}`, `{{.Any.Name}}`, `{{.Any.M}}`, `{{.Any.P}}`, `{{.AnyP.P}}`,
	`{{.LeafM.P}}`, `{{.LeafM.M}}`, `{{(.LeafM).Name}}`, `{{.MapM.a}}`, `{{.PP.Name}}`, `{{.ZPNil.String}}`,
	`{{range .Leaves}}{{.P}}{{end}}`, `{{range .LeafPs}}{{.P}}{{end}}`, `{{with index .Leaves 0}}{{.P}}{{end}}`,
	// maps
	`{{.M.a}} {{.M.zz}}`, `{{.M.zz}}`, `{{.MAny.s}} {{.MAny.nil}} {{.MAny.m.deep}} {{.MAny.zz}}`, `{{.MAny.m.zz}}`,
	`{{.MKey.ka}}`, `{{.MIf.s}}`, `{{.MNil.a}}`, `{{.MPtr.k}}`, `{{.MI.x}}`,
	`{{index .M "a"}} {{index .M "zz"}} {{index .MI 3}} {{index .MU 1}} {{index .MKey "ka"}} {{index .MIf "s"}} {{index .MIf 1}} {{index .MAny "l" 1}}`,
	`{{index .MAny "zz" "y"}}`, `{{index .MNil "a"}}`, `{{index .MI .U}}`, `{{index .Strs .U}}`, `{{index .Strs 3}}`, `{{index .Strs -1}}`,
	`{{index .Arr 1}} {{index .ArrP 1}} {{index .SliceP 0}} {{index "abc" 1}} {{index .Leaves 1 | printf "%v"}}`,
	`{{index .AnyNil}}`, `{{index nil 1}}`, `{{index .Strs}}`, `{{index .RVs 1}}`, `{{index .RV}}`, `{{index .M .AnyS}}`,
	// range
	`{{range .Strs}}[{{.}}]{{end}}{{range $i, $x := .Strs}}{{$i}}={{$x}};{{end}}{{range $x := .Arr}}{{$x}}{{end}}`,
	`{{range .ArrP}}{{.}}{{end}}{{range .SliceP}}{{.}}{{end}}{{range .NilSP}}x{{else}}nilsp{{end}}`,
	`{{range .NilS}}x{{else}}nil{{end}}{{range .MNil}}x{{else}}nilmap{{end}}{{range .AnyNil}}x{{else}}nilany{{end}}`,
	`{{range $k, $v := .M}}{{$k}}:{{$v}} {{end}}{{range .MI}}{{.}}{{end}}{{range $k, $v := .MI}}{{$k}}{{end}}{{range $k, $v := .MU}}{{$k}}{{$v}}{{end}}`,
	`{{range $k, $v := .MKey}}{{$k}}{{$v}}{{end}}`, `{{range $k, $v := .MIf}}{{$k}}{{$v}}{{end}}`, `{{range $k, $v := .MBool}}{{$k}}{{$v}}{{end}}`, `{{range $k, $v := .MF}}{{$k}}{{$v}}{{end}}`,
	`{{range .N}}{{.}}{{end}}`, `{{range $i := 3}}{{$i}}{{end}}`, `{{range .Ch}}{{end}}`, `{{range .Flag}}{{end}}`, `{{range .NilP}}{{end}}`,
	`{{range $i, $x := .Strs}}{{if eq $i 1}}{{continue}}{{end}}{{if eq $x "z"}}{{break}}{{end}}{{$x}}{{end}}`,
	`{{$i := 9}}{{$x := "q"}}{{range $i, $x = .Strs}}{{end}}{{$i}}{{$x}}`,
	`{{$x := "q"}}{{range $x = .Strs}}{{$x}}{{end}}{{$x}}`,
	`{{$x := "q"}}{{range $x = .Empty}}{{$x}}{{else}}e{{$x}}{{end}}{{$x}}`,
	`{{range $x := .Empty}}{{else}}{{$x}}{{end}}`,
	`{{range $i, $x := .M}}{{$i}}{{$x}}{{break}}{{end}}`,
	`{{range .Leaves}}{{$y := .Name}}{{range .Tags}}{{$y}}{{.}}{{$.N}}{{end}}{{end}}`,
	`{{range $a := .Leaves}}{{range $b := .Tags}}{{$a.Name}}{{$b}}{{end}}{{else}}none{{end}}`,
	`{{range .Strs}}{{$x := .}}{{if true}}{{$x = "c"}}{{end}}{{$x}}{{end}}`,
	// if, with, vars
	`{{if .Flag}}y{{else}}n{{end}}{{if .Empty}}e{{else if .Strs}}s{{end}}{{if .AnyNil}}a{{else}}na{{end}}{{if .SNil}}s{{else}}ns{{end}}`,
	`{{if .Leaf}}s{{end}}{{if .C}}c{{end}}{{if .F32}}f{{end}}{{if .Fn}}fn{{end}}{{if .Ch}}ch{{end}}{{if .RV0}}rv{{end}}{{if .NilP}}p{{end}}{{if .ErrNil}}e{{end}}`,
	`{{with .Leaf}}{{.Name}}{{end}}{{with .Empty}}x{{else}}none{{end}}{{with .Empty}}x{{else with .Strs}}{{len .}}{{end}}`,
	`{{with $x := .Leaf}}{{$x.Name}}{{.N}}{{end}}{{with $y := .Empty}}{{else}}{{$y}}{{end}}`,
	`{{with .AnyP}}{{.P}}{{end}}{{with .SE}}{{.Error}}{{end}}`,
	`{{$t := .Name}}{{$t}}{{$t = "changed"}}{{$t}}{{$.N}}{{with .Leaf}}{{$.Name}}{{$t}}{{end}}`,
	`{{if true}}{{$x := 1}}{{$x}}{{end}}{{$x := 2}}{{$x}}`,
	`{{$x := 1}}{{if true}}{{$x = 2}}{{$x := 3}}{{$x}}{{end}}{{$x}}`,
	`{{$x := .AnyNil}}{{$x}}{{print $x}}{{printf "%v" $x}}`,
	`{{ ($x := 5) }}{{$x}}`, `{{ up ($x := "a") }}{{$x}}`,
	// builtins
	`{{and .Flag .Name}} {{or .Empty .Name}} {{and .Empty .Boom}} {{or .Flag .Boom}} {{.Name | and .Flag}} {{.Empty | or .Strs}}`,
	`{{and .RV0}}|{{or .RV0 "x"}}|{{and .RV}}|{{not .RV0}}|{{not .RV}}|{{.RV0 | not}}|{{if and .RV0}}t{{else}}f{{end}}|{{with or .RV0}}w{{end}}`,
	`{{not .RV0}}`, `{{printf "%T %T" .RV (and .RV)}}`, `{{print .RV .RVInv (or .RV0)}}`, `{{.RV | printf "%T"}}`, `{{len .RVS}} {{index .RVS 1}} {{eq .RV 7}} {{ne .RV0 0}} {{index .RVs 0 1}}`, `{{if and .RV0}}t{{else}}f{{end}}`, `{{and 1 .RV0}}`, `{{.RV0 | and 1}}`, `{{len .RVS}}`, `{{eq .RV 7}}`,
	`{{and .AnyNil 1}} {{or .AnyNil}} {{and}}`, `{{not}}`, `{{not .AnyNil}} {{not .SNil}} {{not 0}} {{not ""}}`,
	`{{len .Strs}} {{len .M}} {{len .Arr}} {{len .ArrP}} {{len "héllo"}} {{len .SliceP}} {{len .Ch}} {{len .MAny.l}}`,
	`{{len .N}}`, `{{len .NilP}}`, `{{len .AnyNil}}`, `{{len .NilSP}}`, `{{len nil}}`,
	`{{eq .N 3}} {{eq .Name "x" "base"}} {{ne .N 4}} {{eq .U 3}} {{eq .N .U}} {{eq .Neg .U}} {{eq .U8 200}} {{eq .F 1.25}} {{eq .C .C}} {{eq .ZK "zk"}} {{eq .ZB true}} {{eq .I8 -8}}`,
	`{{eq .N "3"}}`, `{{eq .AnyNil 1}}`, `{{eq 1 .AnyNil}}`, `{{eq .Leaf .Leaf}}`, `{{eq .NilP .NilP}}`, `{{eq 1 1 "x"}}`, `{{eq 1 2 "x"}}`, `{{ne 1 "x"}}`, `{{eq .AnyS "anystr"}}`, `{{eq .MAny.n 3}}`,
	`{{print .N .Name}} {{printf "%s-%d" .Name .N}} {{printf "%q" .Name | up}} {{print .AnyNil}} {{print nil}} {{print}} {{println .N}}`,
	`{{print .SE .SF .RV .ZP .ZPP .ZPNil .Leaf}}`, `{{printf "%v|%s|%d" .SE .SF .RV}}`, `{{printf .ZK}}`, `{{printf .AnyS}}`, `{{printf 1}}`, `{{printf (.AnyNil)}}`, `{{"%d" | printf}}`, `{{.N | printf "%d"}}`, `{{printf "%v" .Ch}}`,
	`{{html .Name}} {{js .Name}} {{urlquery .Name}} {{slice .Strs 1}} {{lt 1 2}} {{call .Fn}}`,
	// funcs
	`{{up .Name}} {{.Name | up}} {{pair "a" .Name}} {{.Name | pair "b"}} {{num 4}} {{join "," .Strs}} {{.Strs | join ";"}} {{i64 5}} {{i8 300}}`,
	`{{up .ZK}}`, `{{up .AnyS}}`, `{{up .AnyNil}}`, `{{.AnyNil | up}}`, `{{up (nilany)}}`, `{{up .SE}}`, `{{up 1}}`, `{{num .I64}}`, `{{num .U}}`, `{{i64 .N}}`,
	`{{fails "x"}}`, `before{{boom "x"}}`, `{{many "a" "b"}}`, `{{many}}`,
	`{{anyf 1}} {{anyf 1.5}} {{anyf "s"}} {{anyf true}} {{anyf .N}} {{anyf .AnyNil}} {{anyf nil}} {{anyf .}} {{anyf .SE}} {{anyf (nilany)}} {{nilany | anyf}} {{anyf .RV}}`,
	`{{ptrf nil}} {{ptrf .LeafP}} {{ptrf .Leaf}} {{ptrf .NilP}} {{strf nil}} {{strf .SNil}} {{mapf nil}} {{mapf .M}} {{mapf .MNil}}`,
	`{{ptrf .Any}}`, `{{ptrf .AnyP}}`, `{{strf .ZS}}`, `{{strf .ZP}}`, `{{with .Leaves}}{{ptrf (index . 0)}}{{end}}`,
	`{{errf}}`, `{{sl}}`, `{{index sl 1}}`, `{{two "a" 1}}`, `{{1 | two "a"}}`, `{{"a" | two 1}}`, `{{bf true}}`, `{{true | bf}}`, `{{bf .AnyNil}}`,
	`{{(up .Name)}} {{up (printf "%d" .N)}} {{(.Leaf).Name}} {{(index .Leaves 0).Name}}`,
	`{{rvf .AnyNil}} {{rvf nil}} {{rvf 1}} {{rvf "s"}} {{rvf .}}`,
	// templates
	`{{define "sub"}}<{{.Name}}{{$.N}}>{{end}}{{template "sub" .Leaf}}{{range .Leaves}}{{template "sub" .}}{{end}}`,
	`{{define "plain"}}[{{.}}]{{end}}{{template "plain"}}{{template "plain" .N}}{{template "plain" .AnyNil}}`,
	`{{template "sub2" $x := .Name}}{{$x}}{{define "sub2"}}{{.}}{{end}}`,
	`{{define "v"}}{{$y := 1}}{{$y}}{{end}}{{$y := 2}}{{template "v"}}{{$y}}`,
	`{{define "r"}}{{if .}}{{len .}}{{template "r" (slice . 1)}}{{end}}{{end}}{{template "r" .Strs}}`,
	`{{define "inf"}}{{template "inf" .}}{{end}}{{template "inf" .}}`,
	`{{template "missing"}}`,
	`{{define "a"}}{{.P}}{{end}}{{template "a" .Leaf}}{{with .Leaf}}{{template "a" .}}{{end}}{{range .Leaves}}{{template "a" .}}{{end}}`,
	`{{define "c"}}{{range .}}{{.}}{{break}}{{end}}{{end}}{{range .Leaves}}{{template "c" .Tags}}{{end}}`,
	// misc
	`a{{/* c */}}b{{- /* d */ -}} c`, "a  {{- .N -}}  b\n", `{{.Row.N}}{{.N}}{{.Row.Leaf.P}}`,
	`{{$}}{{$.N}}{{with $}}{{.}}{{end}}`,
	`{{$ = 5}}{{$}}{{.N}}`, `{{$x := 1}}{{range $x := .Strs}}{{$x}}{{end}}{{$x}}`,
	`{{range $i, $e := .Strs}}{{template "t" $e}}{{$i}}{{end}}{{define "t"}}{{$z := .}}{{$z}}{{$}}{{end}}`,
	`{{with $x := .Strs}}{{range $x}}{{.}}{{end}}{{end}}`, `{{range .MAny.l}}{{.}}{{printf "%T" .}}{{end}}`,
	`{{range $k, $v := .MAny}}{{$k}}{{with $v}}{{.}}{{end}}{{if eq $k "s"}}{{len $v}}{{up $v}}{{end}}{{end}}`,
	`{{range .RVs}}{{if .}}T{{end}}{{not .}}{{and .}}{{end}}`, `{{range $i, $e := .LeafPs}}{{if $e}}{{$e.P}}{{end}}{{end}}`,
	`{{range .ZPs}}{{.String}}{{end}}`, `{{range .MAny}}{{.}}{{end}}`, `{{define "x"}}{{.}}{{end}}{{range .RVs}}{{template "x" .}}{{end}}`,
	`{{template "x" .RV}}{{define "x"}}{{.}}{{.Kind}}{{end}}`, `{{with .RV}}{{.}}{{.Int}}{{end}}`, `{{.RV.Int}}{{.RV.Interface}}`,
	`{{define "t"}}{{.M}}{{end}}{{template "t" .Leaf}}{{template "t" .LeafM}}{{template "t" .Any}}{{range .Leaves}}{{template "t" .}}{{end}}{{template "t" .AnyP}}`,
	`{{define "t"}}{{.P}}{{end}}{{template "t" .Leaf}}{{range .Leaves}}{{template "t" .}}{{end}}{{template "t" .AnyP}}{{template "t" .LeafP}}`,
	`{{range $i, $c := "abc"}}{{$i}}{{$c}}{{end}}`, `{{range .Ch}}x{{else}}closed{{end}}`,
}

func TestDifferentialCases(t *testing.T) {
	for _, d := range zDatas {
		for opt := range optNames {
			for _, src := range zCases {
				tmpl, err := zParse(src, opt)
				if err != nil {
					continue
				}
				t.Run(d.name+"/"+optNames[opt], func(t *testing.T) { zCompare(t, src, tmpl, d.data) })
			}
		}
	}
}

// TestDifferentialRace runs every case on many goroutines over one Program per
// case, with data of different types, so field memos are swapped under
// readers (run with -race).
func TestDifferentialRace(t *testing.T) {
	var progs []*Program
	for _, src := range zCases {
		if tmpl, err := zParse(src, optDefault); err == nil && !strings.Contains(src, "inf") {
			progs = append(progs, Compile(tmpl, zFuncs))
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, p := range progs {
				d := zDatas[(g+i)%len(zDatas)]
				x := d.data()
				var got bytes.Buffer
				gotErr := p.Execute(&got, "root", x)
				var want bytes.Buffer
				wantErr := p.Template().ExecuteTemplate(&want, "root", x)
				if got.String() != want.String() || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Errorf("concurrent %d %s: %q %v vs %q %v", i, d.name, got.String(), gotErr, want.String(), wantErr)
				}
			}
		}()
	}
	wg.Wait()
}

// limitWriter fails past 1 MiB, bounding a fuzzed template's output.
type limitWriter struct{ n int }

var errTooLong = errors.New("too long")

func (w *limitWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	if w.n > 1<<20 {
		return 0, errTooLong
	}
	return len(p), nil
}

// fuzzable: no template calls itself (directly or not), and no number
// literal is large (range over an int, printf widths).
func fuzzable(t *template.Template) bool {
	calls := map[string][]string{}
	ok := true
	var walk func(name string, n parse.Node)
	walk = func(name string, n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, c := range n.Nodes {
				walk(name, c)
			}
		case *parse.ActionNode:
			walk(name, n.Pipe)
		case *parse.PipeNode:
			if n == nil {
				return
			}
			for _, c := range n.Cmds {
				walk(name, c)
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(name, a)
			}
		case *parse.ChainNode:
			walk(name, n.Node)
		case *parse.NumberNode:
			if n.IsFloat && (n.Float64 > 64 || n.Float64 < -64) || n.IsComplex {
				ok = false
			}
		case *parse.IfNode:
			walk(name, n.Pipe)
			walk(name, n.List)
			walk(name, n.ElseList)
		case *parse.WithNode:
			walk(name, n.Pipe)
			walk(name, n.List)
			walk(name, n.ElseList)
		case *parse.RangeNode:
			walk(name, n.Pipe)
			walk(name, n.List)
			walk(name, n.ElseList)
		case *parse.TemplateNode:
			calls[name] = append(calls[name], n.Name)
			walk(name, n.Pipe)
		}
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			walk(tt.Name(), tt.Root)
		}
	}
	// any cycle in calls: not fuzzable
	state := map[string]int{}
	var visit func(string) bool
	visit = func(n string) bool {
		switch state[n] {
		case 1:
			return false
		case 2:
			return true
		}
		state[n] = 1
		for _, c := range calls[n] {
			if !visit(c) {
				return false
			}
		}
		state[n] = 2
		return true
	}
	for n := range calls {
		if !visit(n) {
			return false
		}
	}
	return ok
}

func FuzzCompiledMatchesTextTemplate(f *testing.F) {
	for _, src := range zCases {
		f.Add(src, uint8(0), uint8(0))
	}
	for i, c := range cases {
		f.Add(c.src, uint8(i%3), uint8(i%len(zDatas)))
	}
	f.Fuzz(func(t *testing.T, src string, opt, which uint8) {
		tmpl, err := zParse(src, int(opt)%len(optNames))
		if err != nil || !fuzzable(tmpl) {
			return
		}
		data := zDatas[int(which)%len(zDatas)].data
		var lw limitWriter
		if err := tmpl.ExecuteTemplate(&lw, "root", data()); err != nil && errors.Is(err, errTooLong) {
			return
		}
		zCompare(t, src, tmpl, data)
	})
}

// zGen makes random templates from a small grammar over zRow's names, the
// funcs and the builtins: most parse, many fail or give up, all are
// compared.
type zGen struct {
	r       *rand.Rand
	vars    []string
	depth   int
	inRange int
}

var zIdents = []string{
	"Name", "Dup", "BaseM", "BaseP", "Leaf", "LeafP", "NilP", "Leaves", "LeafPs", "Arr", "ArrP", "SliceP", "NilSP",
	"Strs", "Empty", "NilS", "M", "MAny", "MI", "MU", "MKey", "MIf", "MBool", "MF", "MNil", "MPtr", "Any", "AnyP",
	"AnyS", "AnyNil", "AnyRV", "S", "SE", "SF", "SNil", "SPtr", "Err", "ErrNil", "Rdr", "RV", "RV0", "RVS", "RVInv",
	"RVs", "ZS", "ZE", "ZF", "ZP", "ZPP", "ZPNil", "ZI", "ZIs", "ZPs", "ZK", "ZB", "ZFl", "ZBy", "Bytes", "Flag", "N",
	"I8", "I64", "U", "U8", "F", "F32", "C", "Neg", "Fn", "Ch", "PP", "PAny", "Upt", "priv", "Meth", "PMeth", "Two",
	"Err2", "RVM", "RVZ", "AnyM", "NilM", "StrM", "LeafM", "PtrStrM", "MapM", "Tags", "M", "P", "V", "a", "b", "k",
	"s", "n", "nil", "m", "l", "deep", "zz", "ka", "Row", "Nope", "String", "Error", "Kind", "Len",
}

var zFuncNames = []string{"up", "join", "pair", "num", "i64", "anyf", "rvf", "rvany", "rv0", "nilany", "ptrf", "strf",
	"mapf", "sl", "two", "bf", "and", "or", "not", "len", "index", "eq", "ne", "print", "printf"}

var zLits = []string{`1`, `0`, `-1`, `2`, `1.5`, `"s"`, `"%v"`, `"%d"`, `"a"`, `""`, `true`, `false`, `'x'`, `0x10`, `3`, `"%T"`}

func (g *zGen) pick(xs []string) string { return xs[g.r.Intn(len(xs))] }

// zGood: chains that resolve on *zRow.
var zGood = []string{
	".Name", ".BaseM", ".BaseP", ".Leaf", ".Leaf.Name", ".Leaf.Tags", ".Leaf.M", ".Leaf.P", ".LeafP.P", ".LeafP", ".Leaves",
	".LeafPs", ".Arr", ".ArrP", ".SliceP", ".Strs", ".Empty", ".NilS", ".M", ".M.a", ".MAny", ".MAny.s", ".MAny.m.deep",
	".MAny.l", ".MAny.nil", ".MI", ".MU", ".MKey", ".MIf", ".MBool", ".MNil", ".MPtr.k", ".Any", ".Any.Name", ".AnyP",
	".AnyS", ".AnyNil", ".AnyRV", ".S", ".SE", ".SF", ".SNil", ".SPtr", ".Err", ".ErrNil", ".Rdr", ".RV", ".RV0", ".RVS",
	".RVInv", ".RVs", ".ZS", ".ZE", ".ZF", ".ZP", ".ZPP", ".ZPNil", ".ZI", ".ZIs", ".ZPs", ".ZK", ".ZB", ".ZFl", ".ZBy",
	".Bytes", ".Flag", ".N", ".I8", ".I64", ".U", ".U8", ".F", ".F32", ".C", ".Neg", ".PP", ".PAny", ".Upt", ".Meth",
	".PMeth", ".Two", ".RVM", ".RVZ", ".AnyM", ".NilM", ".StrM", ".LeafM", ".LeafM.Name", ".PtrStrM", ".MapM", ".RV.Kind",
	".SE.Error", ".PP.P", ".ZP.String", ".S.String",
}

func (g *zGen) chain() string {
	if g.r.Intn(10) < 7 {
		return g.pick(zGood)
	}
	var b strings.Builder
	for range 1 + g.r.Intn(3) {
		b.WriteString("." + g.pick(zIdents))
	}
	return b.String()
}

func (g *zGen) operand() string {
	switch g.r.Intn(9) {
	case 0, 1, 2:
		return g.chain()
	case 3:
		return "."
	case 4:
		if len(g.vars) > 0 {
			v := g.pick(g.vars)
			if g.r.Intn(2) == 0 {
				return v + g.chain()
			}
			return v
		}
		return "$" + g.chain()
	case 5:
		if g.r.Intn(20) == 0 {
			return "nil"
		}
		return g.pick(zLits)
	case 6:
		if g.depth < 3 {
			g.depth++
			defer func() { g.depth-- }()
			return "(" + g.pipe() + ")"
		}
		return g.chain()
	default:
		return "$"
	}
}

// zArity: each func's fewest and most arguments.
var zArity = map[string][2]int{
	"up": {1, 1}, "join": {2, 2}, "pair": {2, 2}, "num": {1, 1}, "i64": {1, 1}, "anyf": {1, 1}, "rvf": {1, 1},
	"rvany": {0, 0}, "rv0": {0, 0}, "nilany": {0, 0}, "ptrf": {1, 1}, "strf": {1, 1}, "mapf": {1, 1}, "sl": {0, 0},
	"two": {2, 2}, "bf": {1, 1}, "and": {1, 3}, "or": {1, 3}, "not": {1, 1}, "len": {1, 1}, "index": {1, 3},
	"eq": {2, 3}, "ne": {2, 2}, "print": {0, 3}, "printf": {1, 3},
}

// command: final says a pipeline's value comes as the last argument.
func (g *zGen) command(final bool) string {
	if !final && g.r.Intn(3) == 0 {
		return g.operand()
	}
	name := g.pick(zFuncNames)
	a := zArity[name]
	lo, hi := a[0], a[1]
	if final {
		lo, hi = max(lo-1, 0), hi-1
	}
	if hi < lo {
		return g.chain()
	}
	var b strings.Builder
	b.WriteString(name)
	for range lo + g.r.Intn(hi-lo+1) {
		b.WriteString(" " + g.operand())
	}
	return b.String()
}

func (g *zGen) pipe() string {
	var b strings.Builder
	b.WriteString(g.command(false))
	for range g.r.Intn(3) / 2 {
		b.WriteString(" | " + g.command(true))
	}
	return b.String()
}

func (g *zGen) newVar() string {
	v := fmt.Sprintf("$v%d", g.r.Intn(4))
	g.vars = append(g.vars, v)
	return v
}

func (g *zGen) list(n int) string {
	var b strings.Builder
	mark := len(g.vars)
	for range n {
		b.WriteString(g.item())
	}
	g.vars = g.vars[:mark]
	return b.String()
}

func (g *zGen) item() string {
	if g.depth > 3 {
		return "{{" + g.pipe() + "}}"
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.r.Intn(14) {
	case 0:
		return "t"
	case 1:
		return "{{" + g.newVar() + " := " + g.pipe() + "}}"
	case 2:
		if len(g.vars) > 0 {
			return "{{" + g.pick(g.vars) + " = " + g.pipe() + "}}"
		}
		return "{{" + g.pipe() + "}}"
	case 3:
		s := "{{if " + g.pipe() + "}}" + g.list(2)
		if g.r.Intn(2) == 0 {
			s += "{{else if " + g.pipe() + "}}" + g.list(1)
		}
		if g.r.Intn(2) == 0 {
			s += "{{else}}" + g.list(1)
		}
		return s + "{{end}}"
	case 4:
		mark := len(g.vars)
		s := "{{with "
		if g.r.Intn(3) == 0 {
			s += g.newVar() + " := "
		}
		s += g.pipe() + "}}" + g.list(2)
		if g.r.Intn(2) == 0 {
			s += "{{else with " + g.pipe() + "}}" + g.list(1)
		}
		if g.r.Intn(2) == 0 {
			s += "{{else}}" + g.list(1)
		}
		g.vars = g.vars[:mark]
		return s + "{{end}}"
	case 5, 6:
		mark := len(g.vars)
		s := "{{range "
		switch g.r.Intn(4) {
		case 1:
			s += g.newVar() + " := "
		case 2:
			a, b := g.newVar(), g.newVar()
			s += a + ", " + b + " := "
		case 3:
			if len(g.vars) > 1 {
				s += g.pick(g.vars) + ", " + g.pick(g.vars) + " = "
			}
		}
		s += g.pipe() + "}}"
		g.inRange++
		s += g.list(3)
		g.inRange--
		if g.r.Intn(2) == 0 {
			s += "{{else}}" + g.list(1)
		}
		g.vars = g.vars[:mark]
		return s + "{{end}}"
	case 7:
		if g.inRange > 0 {
			return g.pick([]string{"{{break}}", "{{continue}}"})
		}
		return "{{" + g.pipe() + "}}"
	case 8:
		if g.r.Intn(2) == 0 {
			return `{{template "sub"}}`
		}
		return `{{template "sub" ` + g.pipe() + `}}`
	default:
		return "{{" + g.pipe() + "}}"
	}
}

func TestDifferentialRandom(t *testing.T) {
	n := 20000
	if s := os.Getenv("TMPLEXEC_RANDOM"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("TMPLEXEC_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (replay: TMPLEXEC_SEED=%d go test -run TestDifferentialRandom ./generators/tmplexec)", seed, seed)
	r := rand.New(rand.NewSource(seed))
	parsed, fails := 0, 0
	for i := 0; i < n && fails < 20; i++ {
		g := &zGen{r: r}
		sub := `{{define "sub"}}` + g.list(2) + `{{end}}`
		g.vars = nil
		src := g.list(1+r.Intn(3)) + sub
		tmpl, err := zParse(src, r.Intn(len(optNames)))
		if err != nil || !fuzzable(tmpl) {
			continue
		}
		parsed++
		d := zDatas[0]
		if r.Intn(3) == 0 {
			d = zDatas[r.Intn(len(zDatas))]
		}
		var lw limitWriter
		if err := tmpl.ExecuteTemplate(&lw, "root", d.data()); err != nil && errors.Is(err, errTooLong) {
			continue
		}
		if !t.Run(d.name, func(t *testing.T) { zCompare(t, src, tmpl, d.data) }) {
			fails++ // stop after 20
		}
	}
	t.Logf("%d of %d parsed; ran compiled %d, gave up %d, not compiled %d", parsed, n,
		zStats.compiled.Load(), zStats.fellBack.Load(), zStats.notCompiled.Load())
	zWhyN.Range(func(k, v any) bool { t.Logf("not compiled: %s %d", k, v.(*atomic.Int64).Load()); return true })
}
