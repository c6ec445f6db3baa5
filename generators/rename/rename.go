package rename

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/gen"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/regions"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/writer"
)

// Plan is a rename, computed in memory.
type Plan struct {
	What, From, To string
	Package        string
	// OpDef is the opdef file and Data its renamed text; Renamed is the
	// package parsed from it.
	OpDef   string
	Data    []byte
	Orig    []byte // the opdef's text Data was made from
	Renamed *ir.Package
	// Moves are out/ files (slash paths below out/) to carry to a new path.
	Moves [][2]string
	// Rekeyed are out/ files whose region keys carry the op's name, with
	// those keys renamed (path below out/ -> new bytes).
	Rekeyed map[string][]byte
	// spellings are the old and new name as files and keys spell them.
	spellings [][2]string
}

// Rename is the plan as gen.Plan takes it: the whole rename, the gen of the
// renamed opdef included, becomes one journaled, all-or-nothing Apply.
func (p *Plan) Rename() *gen.Rename {
	carry := map[string]writer.Carry{}
	c := writer.Carry{Rekey: p.rekeyText, Key: p.rekeyKey}
	for _, m := range p.Moves {
		c.From = m[0]
		carry[m[1]] = c
	}
	for path := range p.Rekeyed {
		c.From = path
		carry[path] = c
	}
	return &gen.Rename{Package: p.Renamed, Carry: carry,
		Outside: []writer.Outside{{Path: p.OpDef, Data: p.Data, Base: p.Orig}},
		Move:    &writer.Move{What: p.What, From: p.From, To: p.To}}
}

// Op plans renaming op from to to. Every opdef is loaded and checked; the
// op must exist in exactly one YAML opdef, and the new name must be free.
func Op(o gen.Options, from, to string, l *diag.List) *Plan {
	pkgs := load.Tree(o.OpDefs, l)
	registry.Check(l, pkgs...)
	if l.HasErrors() {
		return nil
	}
	var pkg *ir.Package
	var op *ir.Op
	for _, p := range pkgs {
		if x := p.Op(from); x != nil {
			pkg, op = p, x
		}
	}
	switch {
	case from == to:
		l.Errorf(diag.Pos{File: filepath.ToSlash(o.OpDefs)}, "rename", "the old and the new name are both %s", from)
		return nil
	case op == nil:
		l.Errorf(diag.Pos{File: filepath.ToSlash(o.OpDefs)}, "rename", "no op %s is defined under %s", from, o.OpDefs)
		return nil
	case pkg.Op(to) != nil:
		l.Errorf(pkg.Op(to).Pos, "rename", "package %s already has an op %s", pkg.Name, to)
		return nil
	}
	return plan(o, pkg, op.Where.At("name", op.Pos), "op", from, to, l)
}

// Package plans renaming package from to to: its name in its opdef, its
// directories and the files named after it under out/.
func Package(o gen.Options, from, to string, l *diag.List) *Plan {
	pkgs := load.Tree(o.OpDefs, l)
	registry.Check(l, pkgs...)
	if l.HasErrors() {
		return nil
	}
	if from == to {
		l.Errorf(diag.Pos{File: filepath.ToSlash(o.OpDefs)}, "rename", "the old and the new name are both %s", from)
		return nil
	}
	var pkg *ir.Package
	for _, p := range pkgs {
		switch p.Name {
		case from:
			pkg = p
		case to:
			l.Errorf(p.Pos, "rename", "a package %s exists already", to)
			return nil
		}
	}
	if pkg == nil {
		l.Errorf(diag.Pos{File: filepath.ToSlash(o.OpDefs)}, "rename", "no package %s is defined under %s", from, o.OpDefs)
		return nil
	}
	return plan(o, pkg, pkg.Where.At("name", pkg.Pos), "package", from, to, l)
}

// Done reports whether the opdefs already say to and no longer from (what
// is "op" or "package"): an interrupted mv that a gen finished, which a
// retried mv then has nothing left to do for.
func Done(o gen.Options, what, from, to string) bool {
	var l diag.List
	hasFrom, hasTo := false, false
	for _, p := range load.Tree(o.OpDefs, &l) {
		if what == "package" {
			hasFrom, hasTo = hasFrom || p.Name == from, hasTo || p.Name == to
		} else {
			hasFrom, hasTo = hasFrom || p.Op(from) != nil, hasTo || p.Op(to) != nil
		}
	}
	return !hasFrom && hasTo
}

// plan renames the name at pos in pkg's opdef, regenerates the package
// under the new name in memory and pairs the old tree with the new one.
func plan(o gen.Options, pkg *ir.Package, pos diag.Pos, what, from, to string, l *diag.List) *Plan {
	if !strings.HasSuffix(pkg.Source, ".yaml") && !strings.HasSuffix(pkg.Source, ".yml") {
		l.Errorf(pos, "rename", "%s %s is defined in an XML config; opforge mv edits YAML opdefs only: rename it there and move its code by hand (opforge convert --to yaml turns the config into YAML)", what, from)
		return nil
	}
	data, err := os.ReadFile(pkg.Source)
	if err != nil {
		l.Errorf(diag.Pos{File: pkg.Source}, "read", "cannot read: %v", err)
		return nil
	}
	edited, ok := renameAt(data, pos, from, to)
	if !ok {
		l.Errorf(pos, "rename", "cannot find the name %s here to rename it", from)
		return nil
	}
	renamed := load.Parse(pkg.Source, edited, l)
	if renamed == nil || l.HasErrors() {
		return nil
	}
	load.Validate(renamed, l)
	registry.Check(l, renamed)
	if l.HasErrors() {
		return nil
	}
	ts := registry.WithToolchains(o.Toolchains)
	before := gen.Files([]*ir.Package{pkg}, ts, l)
	after := gen.Files([]*ir.Package{renamed}, ts, l)
	if l.HasErrors() {
		return nil
	}
	p := &Plan{What: what, From: from, To: to, Package: renamed.Name, OpDef: pkg.Source, Data: edited, Orig: data, Renamed: renamed, Rekeyed: map[string][]byte{}}
	p.pair(before, after, from, to, o.Out, l)
	if l.HasErrors() {
		return nil
	}
	return p
}

// renameAt replaces the op name at pos (the name's value in the YAML text,
// plain or quoted).
func renameAt(data []byte, pos diag.Pos, from, to string) ([]byte, bool) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if pos.Line < 1 || pos.Line > len(lines) {
		return nil, false
	}
	start := 0
	for _, l := range lines[:pos.Line-1] {
		start += len(l)
	}
	line := lines[pos.Line-1]
	col := max(pos.Col-1, 0)
	if col < len(line) && (line[col] == '"' || line[col] == '\'') {
		col++
	}
	if !bytes.HasPrefix(line[min(col, len(line)):], []byte(from)) {
		return nil, false
	}
	at := start + col
	out := append(append(append([]byte{}, data[:at]...), to...), data[at+len(from):]...)
	return out, true
}

// pair finds what the rename moves: files generated under the old name
// only whose new-name counterpart is generated under the new name only,
// and, in files generated under both, region keys that carry the old name.
func (p *Plan) pair(before, after *fileset.Set, from, to, out string, l *diag.List) {
	spellings := [][2]string{{from, to}, {names.Snake(from), names.Snake(to)}, {strings.ToUpper(names.Snake(from)), strings.ToUpper(names.Snake(to))}}
	p.spellings = spellings
	for _, f := range before.Files() {
		if after.Get(f.Path) != nil {
			if f.Owned {
				p.rekey(f.Path, out, l)
			}
			continue
		}
		// Each part of the path may spell the name its own way
		// (<target>/VisionOps/<dir>/vision_ops.py).
		parts := strings.Split(f.Path, "/")
		for i, part := range parts {
			for _, s := range spellings {
				if r := replaceToken(part, s[0], s[1]); r != part {
					parts[i] = r
					break
				}
			}
		}
		moved := ""
		if c := strings.Join(parts, "/"); c != f.Path && after.Get(c) != nil && before.Get(c) == nil {
			moved = c
		}
		disk := filepath.Join(out, filepath.FromSlash(f.Path))
		if _, err := os.Lstat(disk); err != nil {
			continue // never generated here: nothing to carry
		}
		if moved == "" {
			if f.Owned {
				l.Errorf(diag.Pos{File: filepath.ToSlash(disk)}, "rename", "no file takes the place of this one under the name %s; nothing was renamed", to)
			}
			continue
		}
		if _, err := os.Lstat(filepath.Join(out, filepath.FromSlash(moved))); err == nil {
			l.Errorf(diag.Pos{File: filepath.ToSlash(filepath.Join(out, filepath.FromSlash(moved)))}, "rename", "exists already; move it away to rename %s to %s", from, to)
			continue
		}
		p.Moves = append(p.Moves, [2]string{f.Path, moved})
	}
	slices.SortFunc(p.Moves, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
}

// rekey renames, in the file at path below out, the region keys that end
// in ":<old name>" (package-wide files key a region per op that way).
func (p *Plan) rekey(path string, out string, l *diag.List) {
	disk := filepath.Join(out, filepath.FromSlash(path))
	data, err := os.ReadFile(disk)
	if err != nil {
		return // not generated yet: gen writes it fresh
	}
	if _, err := regions.Parse(string(data)); err != nil {
		l.Errorf(diag.Pos{File: filepath.ToSlash(disk)}, "rename", "its user regions cannot be read (%v); fix the markers first", err)
		return
	}
	if text := p.rekeyText(data); !bytes.Equal(text, data) {
		p.Rekeyed[path] = text
	}
}

// rekeyKey renames a region key that ends in ":<old name>".
func (p *Plan) rekeyKey(key string) string {
	for _, s := range p.spellings {
		if head, ok := strings.CutSuffix(key, ":"+s[0]); ok {
			return head + ":" + s[1]
		}
	}
	return key
}

// rekeyText renames, in a file's markers, every region key rekeyKey
// renames (the text unchanged when its regions cannot be read: the writer
// reports that).
func (p *Plan) rekeyText(data []byte) []byte {
	rs, err := regions.Parse(string(data))
	if err != nil {
		return data
	}
	text := string(data)
	for _, r := range rs {
		if k := p.rekeyKey(r.Key); k != r.Key {
			text = renameMarkers(text, r.Key, k)
		}
	}
	return []byte(text)
}

// renameMarkers renames key in the begin and end marker lines only.
func renameMarkers(text, key, newKey string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, line := range lines {
		if !strings.Contains(line, "opforge:") {
			continue
		}
		for _, kind := range []string{"opforge:begin ", "opforge:end "} {
			if j := strings.Index(line, kind+key); j >= 0 {
				rest := line[j+len(kind)+len(key):]
				if rest == "" || strings.IndexAny(rest[:1], " \t\r\n-") == 0 {
					lines[i] = line[:j] + kind + newKey + rest
				}
			}
		}
	}
	return strings.Join(lines, "")
}

// replaceToken replaces old in a file name only where it stands as a whole
// name part (Add in AddPlugin.h, not in AddBias.h): followed by an upper
// case letter, a '.', a '_' or the end; preceded by the start, '_' or '.'.
func replaceToken(base, old, new string) string {
	for i := 0; i+len(old) <= len(base); i++ {
		if base[i:i+len(old)] != old {
			continue
		}
		if i > 0 && base[i-1] != '_' && base[i-1] != '.' {
			continue
		}
		if j := i + len(old); j < len(base) {
			c := base[j]
			if !(c == '.' || c == '_' || (c >= 'A' && c <= 'Z')) {
				continue
			}
		}
		return base[:i] + new + base[i+len(old):]
	}
	return base
}

// String lists the plan for the user.
func (p *Plan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s: the name\n", p.OpDef)
	for _, m := range p.Moves {
		fmt.Fprintf(&b, "  %s -> %s\n", m[0], m[1])
	}
	keys := make([]string, 0, len(p.Rekeyed))
	for k := range p.Rekeyed {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s: region keys\n", k)
	}
	return b.String()
}
