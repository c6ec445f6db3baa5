package registry

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

// TestCaseCollisionsSkipIsExact: caseCollisions starts a path at its own
// name when the path before it is the same name's, in the same directory.
// Over random trees of names differing in case, it reports exactly what
// looking at every directory of every path (caseCollisionsEveryPrefix,
// the code before that shortcut) reports.
func TestCaseCollisionsSkipIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	parts := []string{"a", "A", "b", "B", "ops", "Ops", "x.h", "X.h"}
	for round := range 3000 {
		pkgs := []*ir.Package{{Name: "P"}, {Name: "p"}}
		var ops []*ir.Op
		for i := range 4 {
			op := &ir.Op{Name: []string{"Foo", "foo", "Bar", "bar"}[i], Pos: diag.Pos{File: "f.yaml", Line: i + 1}}
			ops = append(ops, op)
		}
		var paths []outPath
		for range 1 + rng.IntN(12) {
			owner := outPath{pkg: pkgs[rng.IntN(2)]}
			if rng.IntN(4) > 0 {
				owner.op = ops[rng.IntN(len(ops))]
			}
			dir := []string{"trt", owner.pkg.Name}
			for range rng.IntN(3) {
				dir = append(dir, parts[rng.IntN(len(parts))])
			}
			// A name's files come in runs, as the targets list them.
			for range 1 + rng.IntN(3) {
				p := owner
				p.path = strings.Join(append(dir, parts[rng.IntN(len(parts))]), "/")
				paths = append(paths, p)
			}
		}
		var got, want diag.List
		caseCollisions(&got, paths)
		caseCollisionsEveryPrefix(&want, paths)
		if !reflect.DeepEqual(fmt.Sprint(got.Sorted()), fmt.Sprint(want.Sorted())) {
			var listed []string
			for _, p := range paths {
				listed = append(listed, p.owner()+" "+p.path)
			}
			t.Fatalf("round %d, paths:\n%s\ngot  %v\nwant %v", round, strings.Join(listed, "\n"), got.Sorted(), want.Sorted())
		}
	}
}

func caseCollisionsEveryPrefix(l *diag.List, paths []outPath) {
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
	for _, file := range paths {
		path := file.path
		lower := strings.ToLower(path)
		sameBytes := len(lower) == len(path) && isASCII(path)
		for i, end := 0, prefixEnd(path, 0); end <= len(path); i, end = i+1, prefixEnd(path, end+1) {
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
