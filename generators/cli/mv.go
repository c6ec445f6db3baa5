package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/filelock"
	"github.com/opforge/opforge/generators/gen"
	"github.com/opforge/opforge/generators/rename"
	"github.com/opforge/opforge/generators/writer"
)

// mvCmd renames an op (or a package) with the code written for it: the
// opdef's name, the out/ files named after it and the region keys carrying
// its name, and the gen of the renamed opdef, all in one journaled Apply
// (writer.Recover finishes or rolls back one a kill interrupted). It starts
// only from a tree that is exactly what the opdefs generate, so nothing
// but the rename changes.
func mvCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := gen.DefaultOptions
	locs := locationFlags(fs, &o)
	// Not a selection (as in every other command): the older spelling of
	// `opforge mv package OLD NEW`, kept so that form goes on working.
	oldForm := fs.Bool("package", false, "rename a package: the older spelling of `opforge mv package OLD NEW`")
	cachePath := fs.String("cache", genCachePath, "gen's no-op cache file (in the build directory)")
	locs = append(locs, location{"cache", cachePath, genCachePath})
	rest, err := parse(fs, args)
	if err != nil {
		return 2
	}
	what, from, to, ok := mvOperands(rest, *oldForm)
	if !ok {
		fmt.Fprintln(stderr, "usage: opforge mv [op|package] OLD NEW [--opdefs DIR] [--out DIR]   (renames an op; `opforge mv package OLD NEW` a package)")
		return 2
	}
	at, ok := settle("mv", fs, locs, []string{"opdefs", "out"}, stderr)
	if !ok || !existingDir("mv", "opdefs", o.OpDefs, stderr) {
		return 1
	}
	o.ToolchainsGiven = at.given["toolchains"]
	// mv writes out/ and the opdefs: it takes turns with gen.
	unlock, err := filelock.Lock(filepath.Join(filepath.Dir(*cachePath), genLockName), func(holder string) {
		fmt.Fprintf(stderr, "opforge mv: waiting for another opforge gen on %s/ (pid %s)\n", o.Out, holder)
	})
	if err != nil {
		fmt.Fprintf(stderr, "opforge mv: %v\n", err)
		return 1
	}
	defer unlock()
	var l diag.List
	if m := writer.MoveRecorded(filepath.Clean(o.Out)); m != nil {
		done := writer.Recover(filepath.Clean(o.Out), &l)
		if l.HasErrors() {
			report(&l, "text", stdout, stderr)
			fmt.Fprintln(stderr, "opforge mv: nothing renamed")
			return 1
		}
		fmt.Fprintf(stderr, "opforge mv: %s\n", done)
		if strings.HasPrefix(done, "finished") && m.What == what && m.From == from && m.To == to {
			fmt.Fprintf(stdout, "opforge mv: %s -> %s: done\n", from, to)
			return 0
		}
	}
	// A gen or mv killed while staging left temporaries, and nothing else:
	// they are no drift.
	writer.RemoveLeftovers(filepath.Clean(o.Out))
	var plan *rename.Plan
	if what == "package" {
		plan = rename.Package(o, from, to, &l)
	} else {
		plan = rename.Op(o, from, to, &l)
	}
	if plan == nil && rename.Done(o, what, from, to) {
		fmt.Fprintf(stdout, "opforge mv: there is no %s %s and there is a %s %s: already renamed, nothing to do\n", what, from, what, to)
		return 0
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
	// The gen of the renamed opdef, with the user code carried to the new
	// names and the opdef itself, is one plan. Only its diagnostics are
	// shown: the ones above were of the old name.
	l = diag.List{}
	renamed := o
	renamed.Rename = plan.Rename()
	wp := gen.Plan(renamed, &l)
	if wp == nil || l.HasErrors() {
		report(&l, "text", stdout, stderr)
		fmt.Fprintln(stderr, "opforge mv: nothing renamed (nothing was written)")
		return 1
	}
	if cache, err := gen.OpenCache(o, *cachePath); err == nil {
		_ = cache.Invalidate() // the opdef changes: the cache must not vouch for the old tree
	}
	if _, err := writer.Apply(wp); err != nil {
		reportMvFailure(o.Out, err, &l)
		report(&l, "text", stdout, stderr)
		return 1
	}
	report(&l, "text", stdout, stderr)
	fmt.Fprintf(stdout, "opforge mv: %s -> %s in package %s:\n%s", from, to, plan.Package, plan)
	return 0
}

// mvOperands reads what is renamed: `OLD NEW` (an op), `op OLD NEW` or
// `package OLD NEW`; with the older `--package` flag, `OLD NEW` is a
// package. ok is false for anything else, a flag and a word that
// disagree included, and `package NEW` (a name left out, not an op named
// "package": that one is `op package NEW`).
func mvOperands(args []string, packageFlag bool) (what, from, to string, ok bool) {
	what = "op"
	if packageFlag {
		what = "package"
	}
	switch {
	case len(args) == 2 && args[0] != "op" && args[0] != "package":
		return what, args[0], args[1], true
	case len(args) == 3 && (args[0] == "package" || args[0] == "op" && !packageFlag):
		return args[0], args[1], args[2], true
	}
	return "", "", "", false
}

// reportMvFailure says exactly where a failed rename left the tree: put
// back (the Apply undid every change, the opdef's included), or part-way,
// with the files it could not put back and the journal that lets the next
// gen or mv finish or roll it back.
func reportMvFailure(out string, err error, l *diag.List) {
	var ae *writer.ApplyError
	if !errors.As(err, &ae) {
		l.Errorf(diag.Pos{File: filepath.ToSlash(out)}, "write", "cannot write: %v; nothing was renamed", err)
		return
	}
	pos := diag.Pos{File: filepath.ToSlash(filepath.Join(out, filepath.FromSlash(ae.Path)))}
	if len(ae.NotRestored) == 0 {
		l.Errorf(pos, "write", "cannot write: %v; nothing was renamed: every file opforge had changed, the opdef included, was put back, so the opdefs and %s are as before: fix the cause and run the mv again", ae.Err, out)
		return
	}
	l.Errorf(pos, "write", "cannot write: %v, and could not put back %s: the rename is part-done; its journal %s keeps the old bytes of every file it changed: fix the cause, then run `opforge gen` (or the same mv), which finishes or rolls back the rename; delete no file by hand", ae.Err, strings.Join(ae.NotRestored, ", "), writer.PendingName)
}
