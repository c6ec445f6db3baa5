package registry

import (
	"fmt"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/reference"
	"github.com/opforge/opforge/generators/target"
)

// MaxNameBytes is the longest file name (one path component) the common
// file systems take: ext4, XFS, btrfs, APFS and NTFS (255 UTF-16 units,
// more than 255 ASCII bytes) all allow 255.
const MaxNameBytes = 255

// outPath is one file gen would write, below out/, and the name it is
// named after.
type outPath struct {
	path string
	pkg  *ir.Package
	op   *ir.Op // nil: named after the package
}

func (o outPath) owner() string {
	if o.op != nil {
		return "op " + clip(o.op.Name)
	}
	return "package " + clip(o.pkg.Name)
}

func (o outPath) pos() diag.Pos {
	if o.op != nil {
		return o.op.Where.At("name", o.op.Pos)
	}
	return o.pkg.Where.At("name", o.pkg.Pos)
}

// plannedPaths lists what gen writes for pkgs, below out/, from the
// targets' own path functions (target.Pather) and the reference module's.
func plannedPaths(pkgs []*ir.Package) []outPath {
	var out []outPath
	for _, pkg := range pkgs {
		for _, t := range All() {
			p, ok := t.(target.Pather)
			if !ok {
				continue
			}
			for _, f := range p.Paths(pkg) {
				out = append(out, outPath{path: t.Name() + "/" + pkg.Name + "/" + f.Path, pkg: pkg, op: f.Op})
			}
		}
		if len(pkg.Ops) > 0 {
			out = append(out, outPath{path: reference.Path(pkg), pkg: pkg})
		}
	}
	return out
}

// checkPaths refuses, at the op or package name, names whose files a
// file system cannot hold: a path component longer than MaxNameBytes
// (gen would fail with ENAMETOOLONG), and two paths equal but for case
// (one file on macOS and Windows).
func checkPaths(l *diag.List, pkgs []*ir.Package) {
	paths := plannedPaths(pkgs)
	tooLong(l, paths)
	caseCollisions(l, paths)
}

// tooLong reports, once per name, the longest component it makes.
func tooLong(l *diag.List, paths []outPath) {
	type worst struct {
		p    outPath
		part string
	}
	var order []string
	by := map[string]*worst{}
	for _, p := range paths {
		if len(p.path) <= MaxNameBytes {
			continue // no part of it is longer
		}
		for part := range strings.SplitSeq(p.path, "/") {
			if len(part) <= MaxNameBytes {
				continue
			}
			key := p.owner() + "\x00" + p.pkg.Name
			w := by[key]
			if w == nil {
				w = &worst{}
				by[key] = w
				order = append(order, key)
			}
			if len(part) > len(w.part) {
				w.p, w.part = p, part
			}
		}
	}
	for _, key := range order {
		w := by[key]
		l.Errorf(w.p.pos(), "name-too-long", "%s makes the file name %q (in out/%s) %d bytes long; file systems take at most %d: shorten the name", w.p.owner(), clip(w.part), w.p.path[:len(w.p.path)-len(lastPart(w.p.path))], len(w.part), MaxNameBytes)
	}
}

// caseCollisions reports each pair of names two of whose paths (files or
// the directories they lie in) are equal but for case, at the second,
// naming the first.
func caseCollisions(l *diag.List, paths []outPath) {
	type seen struct {
		exact string
		p     outPath
	}
	// Every file's directories are visited: a few thousand files make
	// several times as many prefixes, each a slice of the path (and of
	// the path lower-cased once), not a new string.
	first := make(map[string]seen, 2*len(paths))
	reported := map[string]bool{}
	collided := map[string]bool{} // folded directories reported
	// A name's files mostly share one directory, listed one after the
	// other: a path in the directory of the path before it, of the same
	// name, meets at each directory exactly what that path met (the same
	// bytes, owner and maps), so it starts at its own name, or stops as
	// that path stopped in a directory.
	var prev outPath
	prevDir, prevStopped := -1, false
	for _, file := range paths {
		path := file.path
		dir := strings.LastIndexByte(path, '/')
		i, end := 0, prefixEnd(path, 0)
		if dir >= 0 && dir == prevDir && path[:dir] == prev.path[:dir] && file.pkg == prev.pkg && sameOwner(prev, file) {
			if prevStopped {
				continue
			}
			i, end = strings.Count(path, "/"), len(path)
		}
		prev, prevDir, prevStopped = file, dir, false
		lower := strings.ToLower(path)
		sameBytes := len(lower) == len(path) && isASCII(path)
		for ; end <= len(path); i, end = i+1, prefixEnd(path, end+1) {
			p := file
			if i <= 1 {
				p.op = nil // <target>/<Package>: named after the package
			}
			exact := path[:end]
			fold := lower[:min(end, len(lower))]
			if !sameBytes {
				fold = strings.ToLower(exact)
			}
			if collided[fold] {
				prevStopped = end < len(path)
				break // below a directory reported already
			}
			f, ok := first[fold]
			if !ok {
				first[fold] = seen{exact, p}
				continue
			}
			if sameOwner(f.p, p) {
				continue // one name's own paths
			}
			if f.exact == exact {
				// A shared directory; or one file two names make, which
				// the targets refuse with the reason (aipu-duplicate for
				// equal snake_case stems) and the file set as well.
				continue
			}
			if sameFoldedOps(f.p, p) {
				continue // validate reported the names (case-collision)
			}
			what := "file"
			if end < len(path) {
				what = "directory"
				collided[fold] = true // what lies below it collides too
			}
			prevStopped = end < len(path)
			pair := f.p.owner() + "\x00" + p.owner() + "\x00" + p.pkg.Name
			if reported[pair] {
				break
			}
			reported[pair] = true
			l.Errorf(p.pos(), "path-collision", "%s generates out/%s and %s (%s) generates out/%s: the paths differ only in case, so on macOS and Windows they are one %s; rename one", p.owner(), exact, f.p.owner(), f.p.pos(), f.exact, what)
			break
		}
	}
}

// prefixEnd is where the path component starting at from ends: the
// next '/' or the path's end (past it, len(path)+1).
func prefixEnd(path string, from int) int {
	if from > len(path) {
		return len(path) + 1
	}
	if j := strings.IndexByte(path[from:], '/'); j >= 0 {
		return from + j
	}
	return len(path)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// sameOwner is a.owner() == b.owner() && a.pkg == b.pkg, without making
// the owners' strings (it is asked for every shared directory of every
// file).
func sameOwner(a, b outPath) bool {
	if a.pkg != b.pkg || (a.op == nil) != (b.op == nil) {
		return false
	}
	if a.op == nil {
		return true
	}
	return a.op == b.op || clip(a.op.Name) == clip(b.op.Name)
}

// sameFoldedOps: two ops of one package whose names differ only in case,
// which validate refuses already.
func sameFoldedOps(a, b outPath) bool {
	return a.op != nil && b.op != nil && a.pkg == b.pkg && strings.EqualFold(a.op.Name, b.op.Name)
}

func lastPart(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// clip shortens a long name for a message: its start and end.
func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	return fmt.Sprintf("%s...%s", s[:40], s[len(s)-30:])
}
