package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/scaffold"
	"github.com/opforge/opforge/generators/selection"
)

// initCmd sets up a repository for opforge: it writes the scaffold's files
// that are missing and never touches one that exists, so running it again
// (or in a repository with work in it) loses nothing.
func initCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o scaffold.Options
	o.Package = "MyOps"
	selection.Name(fs, "package", &o.Package, "package name of the example opdef (default MyOps)")
	fs.BoolVar(&o.Toolchains, "toolchains", false, "also write toolchains/*.yaml, copies of the built-in descriptors to edit")
	rest, err := parse(fs, args)
	if err != nil || len(rest) > 1 {
		if len(rest) > 1 {
			fmt.Fprintln(stderr, "opforge init: one directory at most")
		}
		return 2
	}
	dir := "."
	if len(rest) == 1 {
		dir = rest[0]
	}
	files, err := scaffold.Files(o)
	if err != nil {
		fmt.Fprintf(stderr, "opforge init: %v\n", err)
		return 2
	}
	// The example must pass what gen will check: a package name the
	// targets refuse (a keyword, a reserved form) is refused here.
	for _, f := range files {
		if strings.HasPrefix(f.Path, "opdefs/") {
			var l diag.List
			if pkg := load.Parse(f.Path, f.Data, &l); pkg != nil {
				load.Validate(pkg, &l)
				registry.Check(&l, pkg)
			}
			if l.HasErrors() {
				report(&l, "text", stdout, stderr)
				fmt.Fprintf(stderr, "opforge init: package name %q does not pass the opdef checks; choose another with --package (nothing written)\n", o.Package)
				return 2
			}
		}
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		fmt.Fprintf(stderr, "opforge init: %s is not a directory\n", dir)
		return 1
	}
	var wrote, kept []string
	for _, f := range files {
		full := filepath.Join(dir, filepath.FromSlash(f.Path))
		created, err := createNew(full, f.Data)
		if err != nil {
			fmt.Fprintf(stderr, "opforge init: %v\n", err)
			return 1
		}
		if created {
			wrote = append(wrote, f.Path)
		} else {
			kept = append(kept, f.Path)
		}
	}
	fmt.Fprintf(stdout, "opforge init: %s: wrote %s", dir, list(wrote))
	if len(kept) > 0 {
		fmt.Fprintf(stdout, "; kept %s (already there)", list(kept))
	}
	fmt.Fprintf(stdout, "\nnext, in %s:\n%s", dir, nextSteps())
	return 0
}

// nextSteps is what init suggests doing next, over the registry's targets.
func nextSteps() string {
	var b strings.Builder
	b.WriteString("  opforge gen          # out/: a skeleton per target\n")
	for _, t := range registry.All() {
		fmt.Fprintf(&b, "                       #   %-6s %s\n", t.Name(), t.Summary())
	}
	b.WriteString("  opforge check        # in CI: the opdefs are valid and out/ is what they generate\n")
	b.WriteString("  opforge doctor       # which SDKs and tools each build finds, or what to set\n")
	fmt.Fprintf(&b, "  opforge build TARGET # %s: compile out/ into build/\n", strings.Join(registry.Builders(), ", "))
	return b.String()
}

func list(paths []string) string {
	if len(paths) == 0 {
		return "nothing"
	}
	return strings.Join(paths, ", ")
}

// createNew writes data to path when nothing is there (created false when
// something is), making its directory first.
func createNew(path string, data []byte) (created bool, err error) {
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return atomicfile.CreateNew(path, data, 0o644)
}
