package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/filelock"
	"github.com/opforge/opforge/generators/gen"
	"github.com/opforge/opforge/generators/rename"
	"github.com/opforge/opforge/generators/writer"
)

// mvCmd renames an op (or a package) with the code written for it: the
// opdef's name, the out/ files named after it and the region keys carrying
// its name, then a gen. It starts only from a tree that is exactly what the
// opdefs generate, so nothing but the rename changes.
func mvCmd(args []string, stdout, stderr io.Writer) int {
	// Not genFlags: there --package selects packages; here it says what
	// OLD names.
	fs := flag.NewFlagSet("mv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := gen.DefaultOptions
	locationFlags(fs, &o)
	pkg := fs.Bool("package", false, "rename a package, not an op")
	rest, err := parse(fs, args)
	if err != nil || len(rest) != 2 {
		fmt.Fprintln(stderr, "usage: opforge mv [--package] [--opdefs DIR] [--out DIR] OLD NEW   (renames an op, or with --package a package)")
		return 2
	}
	from, to := rest[0], rest[1]
	// mv writes out/ and the opdefs: it takes turns with gen.
	unlock, err := filelock.Lock(filepath.Join(filepath.Dir(genCachePath), genLockName), func(holder string) {
		fmt.Fprintf(stderr, "opforge mv: waiting for another opforge gen on %s/ (pid %s)\n", o.Out, holder)
	})
	if err != nil {
		fmt.Fprintf(stderr, "opforge mv: %v\n", err)
		return 1
	}
	defer unlock()
	var l diag.List
	var plan *rename.Plan
	if *pkg {
		plan = rename.Package(o, from, to, &l)
	} else {
		plan = rename.Op(o, from, to, &l)
	}
	if plan == nil {
		report(&l, "text", stdout, stderr)
		fmt.Fprintln(stderr, "opforge mv: nothing renamed")
		return 1
	}
	if current := gen.Plan(o, &l); current != nil && !l.HasErrors() {
		writer.Diff(current, &l)
	}
	if l.HasErrors() {
		report(&l, "text", stdout, stderr)
		fmt.Fprintf(stderr, "opforge mv: %s is not what the opdefs generate; run opforge gen first (nothing renamed)\n", o.Out)
		return 1
	}
	if err := apply(o.Out, plan); err != nil {
		fmt.Fprintf(stderr, "opforge mv: %v\n", err)
		return 1
	}
	// The tree was exactly what the opdefs generate, and the moved files
	// and renamed keys are its own text: a gen with --force lays the new
	// name's skeletons around the regions. Only its diagnostics are shown:
	// the ones above were of the old name.
	l = diag.List{}
	regenerate := o
	regenerate.Force = true
	regen := gen.Plan(regenerate, &l)
	if regen == nil || l.HasErrors() {
		report(&l, "text", stdout, stderr)
		fmt.Fprintln(stderr, "opforge mv: renamed, but gen failed; fix the errors above and run opforge gen")
		return 1
	}
	if _, err := writer.Apply(regen); err != nil {
		writer.Report(o.Out, err, &l)
		report(&l, "text", stdout, stderr)
		return 1
	}
	report(&l, "text", stdout, stderr)
	fmt.Fprintf(stdout, "opforge mv: %s -> %s in package %s:\n%s", from, to, plan.Package, plan)
	return 0
}

// apply carries the out/ files and keys over, then renames the op in its
// opdef: each file is replaced atomically, a moved file is written at its
// new path before the old one goes, and a failure part-way puts back
// everything done so far, so the tree and the opdefs stay as they were.
func apply(out string, p *rename.Plan) (err error) {
	var undo []func()
	defer func() {
		if err != nil {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
		}
	}()
	replace := func(path string, data []byte) error {
		old, rerr := os.ReadFile(path)
		st, serr := os.Stat(path)
		if rerr != nil || serr != nil {
			return errors.Join(rerr, serr)
		}
		if err := atomicfile.Replace(path, data, st.Mode().Perm()); err != nil {
			return err
		}
		undo = append(undo, func() { _ = atomicfile.Replace(path, old, st.Mode().Perm()) })
		return nil
	}
	for _, m := range p.Moves {
		src, dst := filepath.Join(out, filepath.FromSlash(m[0])), filepath.Join(out, filepath.FromSlash(m[1]))
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		st, err := os.Stat(src)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := atomicfile.Replace(dst, data, st.Mode().Perm()); err != nil {
			return err
		}
		undo = append(undo, func() { _ = os.Remove(dst) })
		if err := os.Remove(src); err != nil {
			return err
		}
		undo = append(undo, func() { _ = atomicfile.Replace(src, data, st.Mode().Perm()) })
	}
	for path, data := range p.Rekeyed {
		if err := replace(filepath.Join(out, filepath.FromSlash(path)), data); err != nil {
			return err
		}
	}
	return replace(p.OpDef, p.Data)
}
