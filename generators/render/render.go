package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"sort"
	"sync"
	"text/template"
	"unsafe"

	"github.com/Masterminds/sprig/v3"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/tmplexec"
	"github.com/opforge/opforge/generators/workpool"
)

// sprigFuncs are the sprig functions the templates may call, each chosen
// by name: one whose result depends on its arguments alone, added here
// when a template needs it. An allow list, not a deny list, so a new sprig
// release cannot bring time, chance, the environment or secrets into
// generation (TestFuncMapIsTheAllowList holds the templates to it).
var sprigFuncs = []string{"join"}

// FuncMap returns the hermetic function map (the allowed sprig functions
// and the escapers) plus extra.
func FuncMap(extra template.FuncMap) template.FuncMap {
	all := sprig.TxtFuncMap()
	m := make(template.FuncMap, len(sprigFuncs)+len(escape.Funcs)+len(extra))
	for _, name := range sprigFuncs {
		m[name] = all[name]
	}
	// The escapers: every free text a template prints goes through one.
	for k, v := range escape.Funcs {
		m[k] = v
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// Set is the parsed templates of one target, compiled.
type Set struct {
	p *tmplexec.Program
	// lazy parses and compiles p on first use (MustLoad): every opforge
	// command links every target's templates, and parsing them all at
	// start-up cost more than a no-op build's whole work.
	lazy func() *tmplexec.Program
}

// program is the compiled set, parsing it first when it was loaded lazily.
func (s *Set) program() *tmplexec.Program {
	if s.lazy != nil {
		return s.lazy()
	}
	return s.p
}

// execute writes the named template applied to data to buf. It runs
// compiled (tmplexec), which writes text/template's bytes at a fraction
// of its cost; textTemplate makes it run with text/template itself, for
// the test that compares the two over every template.
func (s *Set) execute(buf *bytes.Buffer, name string, data any) error {
	p := s.program()
	if textTemplate {
		return p.Template().ExecuteTemplate(buf, name, data)
	}
	return p.Execute(buf, name, data)
}

// textTemplate: render with text/template, not compiled (tests only).
var textTemplate bool

// UseTextTemplate makes every set render with text/template itself until
// restore is called: for the test that compares the compiled templates'
// output with text/template's. It must not run beside a generation.
func UseTextTemplate() (restore func()) {
	textTemplate = true
	return func() { textTemplate = false }
}

// CompiledStats says how the sets MustLoad made ran: how many executions
// the compiled code gave up to text/template, and which templates it did
// not compile ("dir/name: why"). Both are empty when every template runs
// compiled; the test over every testdata package holds them to that.
func CompiledStats() (fallbacks int64, notCompiled []string) {
	for _, e := range embedded {
		p := e.set.program()
		fallbacks += p.Fallbacks()
		for name, why := range p.NotCompiled() {
			notCompiled = append(notCompiled, e.dir+"/"+name+": "+why)
		}
	}
	sort.Strings(notCompiled)
	return fallbacks, notCompiled
}

// Load parses every *.tmpl under dir in fsys. Templates are named by
// their file name without the directory ("op.cpp.tmpl").
func Load(fsys fs.FS, dir string, extra template.FuncMap) (*Set, error) {
	funcs := FuncMap(extra)
	root := template.New(dir).Funcs(funcs).Option("missingkey=error")
	matches, err := fs.Glob(fsys, path.Join(dir, "*.tmpl"))
	if err != nil {
		return nil, err
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("no templates in %s", dir)
	}
	for _, m := range matches {
		src, err := fs.ReadFile(fsys, m)
		if err != nil {
			return nil, err
		}
		if _, err := root.New(path.Base(m)).Parse(string(src)); err != nil {
			return nil, err
		}
	}
	return &Set{p: tmplexec.Compile(root, funcs)}, nil
}

// parallelBuffered is workpool.Parallel handing fn a buffer of its worker's own,
// which keeps its size from one call to the next (a sync.Pool loses its
// buffers at every GC).
func parallelBuffered(n int, fn func(buf *bytes.Buffer, i int)) {
	workers := runtime.GOMAXPROCS(0)
	bufs := make([]bytes.Buffer, workers)
	workpool.Workers(workers, n, func(w, i int) { fn(&bufs[w], i) })
}

// File is one file of a package's tree for a target to render.
type File struct {
	Path  string // below the package's directory
	Tmpl  string // template name
	Data  any
	Owned bool // has user-owned regions
	// Moved: where the code of regions the file no longer has belongs
	// now, by region key (fileset.File.Moved).
	Moved map[string]string
}

// Package renders a package's files and returns them below pkg.Name. Files
// render in parallel, since the per-op files of a large package dominate
// generation, and join the set in the order given, so the output and the
// diagnostics stay deterministic. A file pkg.Reuse keeps is not rendered
// (fileset.File.Kept), nor is a shared file of keyed sections whose frame
// key pkg.Reuse.Shared vouches for: its frame renders, and the megabytes
// of its sections are neither spliced nor hashed. Files start in the
// order given: list the package-wide files, which render over every op on
// one core, first, so they do not finish last.
func (s *Set) Package(pkg *ir.Package, files []File, d *diag.TargetList) *fileset.Set {
	outs := make([][]byte, len(files))
	errs := make([]error, len(files))
	paths := make([]string, len(files))
	kept := make([]bool, len(files))
	var render []int // the files not kept
	var keep map[string]bool
	if pkg.Reuse != nil {
		keep = pkg.Reuse.Kept
	}
	for i, f := range files {
		paths[i] = path.Join(pkg.Name, f.Path)
		if kept[i] = keep[paths[i]]; !kept[i] {
			render = append(render, i)
		}
	}
	var shared func(path, key string) bool
	if pkg.Reuse != nil {
		shared = pkg.Reuse.Shared
	}
	parallelBuffered(len(render), func(buf *bytes.Buffer, j int) {
		i := render[j]
		head := fileset.HeaderLine(paths[i], fileset.Header(pkg.Source, files[i].Owned))
		var keep func(string) bool
		// A file with moved regions (Moved) is kept too: its key is its
		// skeleton's, so the file on disk, untouched since the last gen
		// merged it, holds none of the regions that moved.
		if shared != nil {
			keep = func(key string) bool { return shared(paths[i], key) }
		}
		outs[i], kept[i], errs[i] = s.executeKeeping(buf, files[i].Tmpl, files[i].Data, head, keep)
	})
	set := fileset.NewSized(len(files))
	for i, f := range files {
		if errs[i] != nil {
			d.Errorf(pkg.Pos, "internal", "rendering %s: %v", f.Tmpl, errs[i])
			continue
		}
		if err := set.Add(&fileset.File{Path: paths[i], Data: outs[i], Source: pkg.Source, Owned: f.Owned, Moved: f.Moved, Kept: kept[i]}); err != nil {
			d.Errorf(pkg.Pos, "internal", "%v", err)
		}
	}
	return set
}

// Sections renders the named template once per item, on every core, and
// returns the outputs joined in order. A package-wide file that repeats a
// section per op prints the joined sections where its loop stood, so the
// file no longer renders every op on one core; the sections are joined
// before the file is normalized, so it gets the loop's bytes.
func Sections[T any](s *Set, name string, items []T) (*Joined, error) {
	return sections(len(items), templateParts(s, name, func(i int) T { return items[i] }), nil, false)
}

// KeyedSections is Sections for items that each stand for one op of pkg
// (ops[i]), in a file the package's ops share: a section whose op has a
// key (pkg.Reuse.Keys) is taken from pkg.Reuse.Sections when that key
// rendered it before, and stored there when rendered. The key is the
// op's and the template's name: the op's key covers the generator, every
// template and what of the op and its package reaches the op's own
// files, so an item must be made from those alone, as the op's own
// files are (TestIncrementalMatchesCold in generators/gen holds it).
func KeyedSections[T any](s *Set, pkg *ir.Package, name string, items []T, ops []*ir.Op) (*Joined, error) {
	if len(ops) != len(items) {
		return Sections(s, name, items)
	}
	return KeyedSectionsOf(s, pkg, name, ops, func(i int) T { return items[i] })
}

// KeyedSectionsOf is KeyedSections that makes ops[i]'s item (item(i))
// only when its section is not taken from the store, so an unchanged op
// costs neither its item nor its section. An op given as nil has no key:
// its section is made every time, never stored.
func KeyedSectionsOf[T any](s *Set, pkg *ir.Package, name string, ops []*ir.Op, item func(i int) T) (*Joined, error) {
	return sections(len(ops), templateParts(s, name, item), keyedStore(pkg, name, ops), true)
}

// KeyedTexts is KeyedSections for a part of a shared file a target makes
// in Go rather than with a template: part(i) makes ops[i]'s text, from
// that op and its package's facts alone, under the same rule. name tells
// the parts apart from the op's other sections.
func KeyedTexts(pkg *ir.Package, name string, ops []*ir.Op, part func(i int) (string, error)) (string, error) {
	j, err := sections(len(ops), func(_ *bytes.Buffer, i int) (string, error) { return part(i) }, keyedStore(pkg, name, ops), false)
	return j.Text(), err
}

// templateParts makes item(i)'s section with the named template.
func templateParts[T any](s *Set, name string, item func(i int) T) func(*bytes.Buffer, int) (string, error) {
	return func(buf *bytes.Buffer, i int) (string, error) {
		if err := s.execute(buf, name, item(i)); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
}

// Stored gives op's section named name from pkg.Reuse's store, as
// KeyedSections would take it: for what a target keeps beside the op's
// sections and reads before making anything.
func Stored(pkg *ir.Package, op *ir.Op, name string) (string, bool) {
	if k := sectionKey(pkg, op, name); k != "" {
		return pkg.Reuse.Sections.Section(k)
	}
	return "", false
}

// StoredAll reports whether every one of op's sections named names is in
// pkg.Reuse's store (Stored): a target leaves unmodelled an op all of
// whose sections it would take from there.
func StoredAll(pkg *ir.Package, op *ir.Op, names ...string) bool {
	for _, name := range names {
		if _, ok := Stored(pkg, op, name); !ok {
			return false
		}
	}
	return true
}

// Remember keeps text as op's section named name in pkg.Reuse's store
// (nothing without a store or a key).
func Remember(pkg *ir.Package, op *ir.Op, name, text string) {
	if k := sectionKey(pkg, op, name); k != "" {
		pkg.Reuse.Sections.Remember(k, text)
	}
}

// sectionKey is the store's key of op's section named name ("": no
// store, or no key for op).
func sectionKey(pkg *ir.Package, op *ir.Op, name string) string {
	r := pkg.Reuse
	if r == nil || r.Sections == nil || op == nil {
		return ""
	}
	if k := r.Keys[op]; k != "" {
		return k + "\x00" + name
	}
	return ""
}

// opSections is pkg.Reuse's store as the sections of ops named name
// reach it: op i's section by its key (sectionKey), and its sum.
type opSections struct {
	pkg  *ir.Package
	name string
	ops  []*ir.Op
}

// keyedStore is ops' sections named name in pkg.Reuse's store (nil: no
// store, so nothing is reused or kept).
func keyedStore(pkg *ir.Package, name string, ops []*ir.Op) *opSections {
	if r := pkg.Reuse; r == nil || r.Sections == nil {
		return nil
	}
	return &opSections{pkg, name, ops}
}

func (o *opSections) stored(i int) (string, bool) { return Stored(o.pkg, o.ops[i], o.name) }

func (o *opSections) remember(i int, text string) { Remember(o.pkg, o.ops[i], o.name, text) }

// sum is a hash of op i's section text: what a shared file's key holds of
// it (frameKey), so that an op changed in what its section does not show
// leaves the file's key as it was. Kept in the store beside the text
// under the same key, whose text it always is, it is taken once per
// text, not once per gen ("": op i has no key).
func (o *opSections) sum(i int, text string) string {
	k := sectionKey(o.pkg, o.ops[i], o.name)
	if k == "" {
		return ""
	}
	store := o.pkg.Reuse.Sections
	if sum, ok := store.Section(k + sumSuffix); ok {
		return sum
	}
	h := sha256.Sum256(unsafe.Slice(unsafe.StringData(text), len(text))) // a view: no copy of megabytes
	sum := hex.EncodeToString(h[:16])
	store.Remember(k+sumSuffix, sum)
	return sum
}

// sumSuffix keys a section's sum in the store: after the section's key,
// which a NUL separates from the section's name.
const sumSuffix = "\x00sum"

// sections makes n sections on every core, unless keyed (nil: no store)
// has section i's text, gives what it made to keyed, and joins the texts
// in order; with sums, the Joined carries each text's sum too, when every
// one has a key (Joined.sums).
func sections(n int, part func(buf *bytes.Buffer, i int) (string, error), keyed *opSections, sums bool) (*Joined, error) {
	parts := make([]string, n)
	errs := make([]error, n)
	var sum []string
	if keyed != nil && sums {
		sum = make([]string, n)
	}
	parallelBuffered(n, func(buf *bytes.Buffer, i int) {
		if keyed != nil {
			if text, ok := keyed.stored(i); ok {
				parts[i] = text
				if sum != nil {
					sum[i] = keyed.sum(i, text)
				}
				return
			}
		}
		buf.Reset()
		if parts[i], errs[i] = part(buf, i); errs[i] != nil {
			return
		}
		if keyed != nil {
			keyed.remember(i, parts[i])
			if sum != nil {
				sum[i] = keyed.sum(i, parts[i])
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	j := NewJoined(parts)
	if !slices.Contains(sum, "") {
		j.sums = sum
	}
	return j, nil
}

// Execute renders the named template.
func (s *Set) Execute(name string, data any) ([]byte, error) {
	return s.executeInto(new(bytes.Buffer), name, data, "")
}

// executeInto renders the named template into buf, which it resets first,
// and returns a normalized copy with the header line head (none: "") at
// its place (fileset.HeaderAt). The copy is the file's one: its sections
// are spliced in after room for the header, which then needs no copy of
// megabytes of its own.
func (s *Set) executeInto(buf *bytes.Buffer, name string, data any, head string) ([]byte, error) {
	b, _, err := s.executeKeeping(buf, name, data, head, nil)
	return b, err
}

// executeKeeping is executeInto that, for a file of keyed sections (one
// whose every Joined is keyed), first asks keep (nil: nothing is kept)
// whether the file its frame key (frameKey) stands for is kept: then it
// splices nothing and returns kept.
func (s *Set) executeKeeping(buf *bytes.Buffer, name string, data any, head string, keep func(key string) bool) (b []byte, kept bool, err error) {
	buf.Reset()
	if err := s.execute(buf, name, data); err != nil {
		return nil, false, err
	}
	out := buf.Bytes()
	// No Joined made in this process, no mark to look for (and no random
	// source started for one).
	if joinedCount.Load() > 0 && bytes.Contains(out, []byte(joinedNonce())) {
		marks, err := marksOf(out, data)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %v", name, err)
		}
		if keep != nil {
			if key := frameKey(out, marks, head); key != "" && keep(key) {
				return nil, true, nil
			}
		}
		return headed(spliceJoined(out, marks, len(head)), head), false, nil
	}
	if !isNormal(out) {
		return withHead(normalizeLines(out), head), false, nil
	}
	b = make([]byte, len(head), len(head)+len(out)+1)
	return headed(append(b, out...), head), false, nil
}

// headed is the file b holds after len(head) bytes of room, normalized,
// with head in its place: in b itself when the file is normal (the room
// takes the header, and only the line a header follows moves), else in
// a normalized copy.
func headed(b []byte, head string) []byte {
	room := len(head)
	whole := b[room:]
	if !isNormal(whole) {
		return withHead(normalizeLines(whole), head)
	}
	if whole[len(whole)-1] != '\n' {
		b = append(b, '\n')
		whole = b[room:]
	}
	at := fileset.HeaderAt(whole)
	copy(b, whole[:at])
	copy(b[at:], head)
	return b
}

// withHead is b with the header line head in its place ("": b).
func withHead(b []byte, head string) []byte {
	if head == "" {
		return b
	}
	return fileset.WithHeaderLine(b, head)
}

// normalize trims trailing spaces and collapses runs of blank lines that
// template control blocks leave behind, drops leading and trailing blank
// lines, and ends the file with a newline. It returns a new slice: b may
// be reused.
func normalize(b []byte) []byte {
	if !isNormal(b) {
		return normalizeLines(b)
	}
	return headed(append(make([]byte, 0, len(b)+1), b...), "")
}

// normalizeLines is normalize line by line.
func normalizeLines(b []byte) []byte {
	out := make([]byte, 0, len(b)+1)
	blank := false // blank lines since the last line written
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		line = trimTrailingSpace(line)
		if len(line) == 0 {
			blank = true
			continue
		}
		if len(out) > 0 {
			out = append(out, '\n')
			if blank {
				out = append(out, '\n')
			}
		}
		out = append(out, line...)
		blank = false
	}
	return append(out, '\n')
}

// isNormal reports whether normalize has nothing to change in b but a
// missing final newline: no blank line first, last or after another, no
// line ending in a space or tab. Many rendered files are, and checking
// costs a fraction of copying b line by line.
func isNormal(b []byte) bool {
	if len(b) == 0 || b[0] == '\n' {
		return false
	}
	blank := false // the last line was empty
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			c := b[len(b)-1]
			return c != ' ' && c != '\t'
		}
		if j == 0 {
			if blank {
				return false
			}
			blank = true
		} else {
			if c := b[i+j-1]; c == ' ' || c == '\t' {
				return false
			}
			blank = false
		}
		i += j + 1
	}
	return !blank
}

// trimTrailingSpace drops trailing spaces and tabs. It is
// bytes.TrimRight(line, " \t") without building the cutset's table on
// every one of the hundreds of thousands of lines a large package has.
func trimTrailingSpace(line []byte) []byte {
	n := len(line)
	for n > 0 && (line[n-1] == ' ' || line[n-1] == '\t') {
		n--
	}
	return line[:n]
}

// MustLoad is Load for templates embedded in the binary, where a failure
// is a build-time bug, not an input error. The templates are parsed on
// first use, not when the package is initialized: a command that renders
// nothing (a no-op build) pays nothing for them.
func MustLoad(fsys fs.FS, dir string, extra template.FuncMap) *Set {
	s := &Set{}
	e := &embeddedSet{set: s, fsys: fsys, dir: dir, extra: extra}
	e.reload(fsys)
	embedded = append(embedded, e)
	return s
}

// Warm parses and compiles every set MustLoad made that is not yet, on a
// goroutine of its own, and returns a func that waits for it to finish.
// gen starts it while the targets check the opdefs, most of which runs on
// one core: the largest set alone takes about 7 ms, which the first
// rendering would otherwise wait for. Wait before the sets are reloaded
// (ReloadAll).
func Warm() (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, e := range embedded {
			e.set.program()
		}
	}()
	return func() { <-done }
}

// embedded are the sets MustLoad made, at package initialization (so
// without a lock), and where each was read from.
var embedded []*embeddedSet

type embeddedSet struct {
	set   *Set
	fsys  fs.FS
	dir   string
	extra template.FuncMap
}

// reload makes the set parse its templates from fsys on first use.
func (e *embeddedSet) reload(fsys fs.FS) {
	e.fsys = fsys
	e.set.lazy = sync.OnceValue(func() *tmplexec.Program {
		s, err := Load(fsys, e.dir, e.extra)
		if err != nil {
			panic(fmt.Sprintf("%s templates: %v", e.dir, err))
		}
		return s.p
	})
}

// Digest hashes the names and bytes of every template of the sets
// MustLoad made: what a cache of rendered output keys templates by.
// Reading them costs a fraction of a millisecond; nothing is parsed.
func Digest() string {
	h := sha256.New()
	for _, e := range embedded {
		matches, _ := fs.Glob(e.fsys, path.Join(e.dir, "*.tmpl"))
		for _, m := range matches {
			src, err := fs.ReadFile(e.fsys, m)
			if err != nil {
				panic(fmt.Sprintf("%s: %v", m, err)) // embedded: a build-time bug
			}
			fmt.Fprintf(h, "%s\x00%d\x00", m, len(src))
			h.Write(src)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// ReloadAll parses every set MustLoad made from fsys instead, with the
// same directory layout, until restore is called: for tests that prove a
// template's bytes reach every cache of what it renders. It must not run
// beside a generation.
func ReloadAll(fsys fs.FS) (restore func()) {
	saved := make([]fs.FS, len(embedded))
	for i, e := range embedded {
		saved[i] = e.fsys
		e.reload(fsys)
	}
	return func() {
		for i, e := range embedded {
			e.reload(saved[i])
		}
	}
}
