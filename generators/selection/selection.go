// Package selection is the one parser of the flags that name packages and
// ops, and the one check of the names they give, so every command reads
// `--package` and `--op` alike: gen, check, build and verify select with
// `--package LIST` and `--op LIST` (each comma-separated and repeatable,
// the lists joined), and init and import name the one package they make
// with `--package NAME`, through Name.
package selection

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
)

// Flags are a command's selection: no name selects everything.
type Flags struct {
	Packages []string
	Ops      []string
}

// Register adds --package LIST to fs, and --op LIST when opUsage is not
// "" (a command that works on whole packages, such as build, has none).
func (s *Flags) Register(fs *flag.FlagSet, packageUsage, opUsage string) {
	fs.Func("package", packageUsage+" (comma-separated; repeatable)", list(&s.Packages, "package"))
	if opUsage != "" {
		fs.Func("op", opUsage+" (comma-separated; repeatable)", list(&s.Ops, "op"))
	}
}

// list appends the comma-separated names of one flag to dst; an empty
// name (`--op A,,B`, `--package ""`) is a mistake, not "everything".
func list(dst *[]string, what string) func(string) error {
	return func(v string) error {
		for _, n := range strings.Split(v, ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				return fmt.Errorf("an empty %s name in %q", what, v)
			}
			if !slices.Contains(*dst, n) {
				*dst = append(*dst, n)
			}
		}
		return nil
	}
}

// Name is StringVar for the flag (--package NAME) of a command that makes
// one package: one name, given once. A list, the other commands' form, is
// refused with a message saying so, not taken as a name.
func Name(fs *flag.FlagSet, flagName string, dst *string, usage string) {
	given := false
	fs.Func(flagName, usage+" (one name)", func(v string) error {
		switch {
		case given:
			return fmt.Errorf("given twice: this command makes one package, so name it once")
		case strings.Contains(v, ","):
			return fmt.Errorf("%q is a list: this command makes one package, so --%s takes one name", v, flagName)
		case strings.TrimSpace(v) == "":
			return fmt.Errorf("an empty name")
		}
		given, *dst = true, v
		return nil
	})
}

// Resolve keeps the packages of pkgs (in their order) that the flags
// select: those named by --package, and of those, the ones that define an
// op named by --op. A name no package (or no selected package's op) has
// is an error at where (the opdefs folder), with the nearest name and the
// names there are; nil is returned then.
func (s Flags) Resolve(pkgs []*ir.Package, where string, l *diag.List) []*ir.Package {
	pos := diag.Pos{File: where}
	ok := true
	if len(s.Packages) > 0 {
		kept, unknown := ir.SelectPackages(pkgs, s.Packages)
		for _, msg := range Unknown("package", "is defined under "+where, unknown, ir.PackageNames(pkgs)) {
			l.Errorf(pos, "unknown-package", "%s", msg)
			ok = false
		}
		pkgs = kept
	}
	if len(s.Ops) > 0 {
		var kept []*ir.Package
		for _, pkg := range pkgs {
			if slices.ContainsFunc(s.Ops, func(name string) bool { return pkg.Op(name) != nil }) {
				kept = append(kept, pkg)
			}
		}
		var unknown []string
		for _, name := range s.Ops {
			if !slices.ContainsFunc(kept, func(p *ir.Package) bool { return p.Op(name) != nil }) {
				unknown = append(unknown, name)
			}
		}
		in := "is defined under " + where
		if len(s.Packages) > 0 {
			in = "is in the packages selected (" + strings.Join(s.Packages, ", ") + ")"
		}
		for _, msg := range Unknown("op", in, unknown, opNames(pkgs)) {
			l.Errorf(pos, "unknown-op", "%s", msg)
			ok = false
		}
		pkgs = kept
	}
	if !ok {
		return nil
	}
	return pkgs
}

// Unknown is the one message for names that name nothing: `no <what> "X"
// <where>`, then the nearest known name within two edits (`; did you mean
// "Y"?`) or, when none is near, the names known.
func Unknown(what, where string, unknown, known []string) []string {
	var msgs []string
	for _, name := range unknown {
		msg := fmt.Sprintf("no %s %q %s", what, name, where)
		switch near := nearest(name, known); {
		case near != "":
			msg += fmt.Sprintf("; did you mean %q?", near)
		case len(known) > 0:
			msg += fmt.Sprintf("; %ss: %s", what, strings.Join(known, ", "))
		default:
			msg += fmt.Sprintf("; there are no %ss", what)
		}
		msgs = append(msgs, msg)
	}
	return msgs
}

// nearest is the name of known within two edits of got, ignoring case, or
// "".
func nearest(got string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := names.Distance(strings.ToLower(got), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func opNames(pkgs []*ir.Package) []string {
	var out []string
	for _, p := range pkgs {
		for _, op := range p.Ops {
			out = append(out, op.Name)
		}
	}
	return out
}
