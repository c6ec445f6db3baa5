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

	"github.com/opforge/opforge/generators/diag"
)

// rootMarker is the folder that makes a directory an op repository's
// root. It is opdefs/, which every command reads and `opforge init`
// writes, rather than a marker file of its own: a marker would be one more
// thing to keep, and could disagree with where the opdefs are (a
// repository made before it existed has none).
const rootMarker = "opdefs"

// findRoot walks up from dir (absolute) to the nearest folder holding
// opdefs/, as git finds its work tree; ok is false when no folder up to
// the file system's root holds one, and looked lists every folder tried.
func findRoot(dir string) (root string, looked []string, ok bool) {
	for {
		looked = append(looked, dir)
		if st, err := os.Stat(filepath.Join(dir, rootMarker)); err == nil && st.IsDir() {
			return dir, looked, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", looked, false
		}
		dir = parent
	}
}

// rootFromHere finds the op repository's root from the working directory
// (findRoot) and writes it as the working directory reaches it: "." there,
// "../.." two folders down.
func rootFromHere() (root string, looked []string, found bool, err error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", nil, false, fmt.Errorf("cannot tell the working directory: %w", err)
	}
	abs, looked, found := findRoot(cwd)
	if !found {
		return "", looked, false, nil
	}
	if root, err = filepath.Rel(cwd, abs); err != nil {
		root = abs
	}
	return root, looked, true, nil
}

// underRoot is rel (slash-separated) below the op repository's root that
// the working directory lies in, as the working directory reaches it; rel
// itself outside any op repository.
func underRoot(rel string) string {
	if root, _, found, err := rootFromHere(); found && err == nil {
		return filepath.Join(root, filepath.FromSlash(rel))
	}
	return filepath.FromSlash(rel)
}

// location is a folder (or file) flag of a command and its place below the
// op repository's root when the user does not set it.
type location struct {
	flag  string
	value *string
	under string // below the root, slash-separated
}

// place is where a command that works on an op repository works.
type place struct {
	// root is the repository's root as the working directory reaches it
	// ("." there, "../.." two folders down); outside any op repository it
	// is the folder holding --out, which writer treats as the repository
	// too.
	root string
	// found is false outside any op repository.
	found bool
	// defaulted is true when some location took its default: the command
	// then depends on the root.
	defaulted bool
	// given are the flags set on the command line.
	given map[string]bool
}

// settle gives each location the user did not set on the command line its
// place below the op repository's root, found from the working directory
// as git finds its work tree, and written relative to the working
// directory, so that every path the command prints reads from where the
// user stands. Paths set on the command line stay as given (relative to
// the working directory). Outside any op repository the locations named
// in need must be set, and the rest go beside --out; otherwise settle says
// where it looked and returns false.
func settle(cmd string, fs *flag.FlagSet, locs []location, need []string, stderr io.Writer) (place, bool) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	root, looked, found, err := rootFromHere()
	if err != nil {
		fmt.Fprintf(stderr, "opforge %s: %v\n", cmd, err)
		return place{}, false
	}
	p := place{root: root, found: found, given: set}
	if !found {
		var missing []string
		for _, n := range need {
			if !set[n] {
				missing = append(missing, "--"+n+" DIR")
			}
		}
		if len(missing) > 0 {
			fmt.Fprintf(stderr, "opforge %s: not in an op repository: no %s/ folder in the working directory or any folder above it (looked in %s); run `opforge init` to make one, or name %s\n",
				cmd, rootMarker, lookedIn(looked), strings.Join(missing, " and "))
			return place{}, false
		}
		p.root = "."
		for _, l := range locs {
			if l.flag == "out" {
				p.root = filepath.Dir(filepath.Clean(*l.value))
			}
		}
	}
	for _, l := range locs {
		if !set[l.flag] {
			*l.value = filepath.Join(p.root, filepath.FromSlash(l.under))
			p.defaulted = true
		}
	}
	return p, true
}

// lookedIn names the folders findRoot tried: all of them when they are
// few, else the first two and the last.
func lookedIn(dirs []string) string {
	if len(dirs) <= 4 {
		return strings.Join(dirs, ", ")
	}
	return fmt.Sprintf("%s, %s, ... %s: %d folders", dirs[0], dirs[1], dirs[len(dirs)-1], len(dirs))
}

// existingDir reports an error when the location flag named set a path
// that is not a folder: a typo there must not read as an empty repository.
func existingDir(cmd, name, path string, stderr io.Writer) bool {
	st, err := os.Stat(path)
	why := ""
	switch {
	case errors.Is(err, fs.ErrNotExist):
		why = "no such folder"
	case err != nil:
		why = err.Error()
	case !st.IsDir():
		why = "not a folder"
	default:
		return true
	}
	fmt.Fprintf(stderr, "opforge %s: --%s %s: %s\n", cmd, name, path, why)
	return false
}

// atRoot runs a command that builds from the op repository's root, where
// the build units' relative paths and their cache keys are the same
// whatever folder the user stands in: it changes into the root (saying
// so the way make does, which editors follow to find the files a
// compiler names), with the location flags rewritten to be relative to
// it, and returns the way back and the root as seen from the working
// directory, with which the command's printed paths are made readable
// from there. Nothing changes when the command stands at the root, or
// does not depend on it (every location set on the command line).
func (p place) atRoot(locs []location, announce io.Writer) (back func(), prefix string, err error) {
	if !p.found || !p.defaulted || p.root == "." {
		return func() {}, "", nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, "", err
	}
	root, err := filepath.Abs(p.root)
	if err != nil {
		return nil, "", err
	}
	for _, l := range locs {
		*l.value = fromRoot(root, cwd, *l.value)
	}
	if err := os.Chdir(root); err != nil {
		return nil, "", err
	}
	if announce != nil {
		fmt.Fprintf(announce, "opforge: Entering directory '%s'\n", root)
	}
	return func() {
		if announce != nil {
			fmt.Fprintf(announce, "opforge: Leaving directory '%s'\n", root)
		}
		_ = os.Chdir(cwd)
	}, p.root, nil
}

// fromRoot rewrites path, relative to cwd, as the root reaches it:
// relative below the root, absolute elsewhere.
func fromRoot(root, cwd, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

// rebased is l with every relative file name read from prefix (the root
// as the working directory reaches it), for a command that ran at the
// root.
func rebased(l *diag.List, prefix string) *diag.List {
	if prefix == "" {
		return l
	}
	var out diag.List
	for _, d := range l.Sorted() {
		if d.Pos.File != "" && !filepath.IsAbs(d.Pos.File) {
			d.Pos.File = filepath.ToSlash(filepath.Join(prefix, filepath.FromSlash(d.Pos.File)))
		}
		out.Add(d)
	}
	return &out
}
