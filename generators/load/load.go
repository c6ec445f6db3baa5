package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/validate"
	"github.com/opforge/opforge/generators/yamldef"
)

// MaxFileSize bounds one op definition file. The largest real op
// definition is a few kilobytes; a bigger file is a mistake, not a
// definition.
const MaxFileSize = 4 << 20

// Files returns the op definition files below root, sorted.
func Files(root string) ([]string, error) {
	matches, err := doublestar.Glob(os.DirFS(root), Pattern(), doublestar.WithFilesOnly())
	if err != nil {
		return nil, err
	}
	out := make([]string, len(matches))
	for i, m := range matches {
		out[i] = filepath.Join(root, filepath.FromSlash(m))
	}
	sort.Strings(out)
	return out, nil
}

// ReadFile reads path within MaxFileSize and refuses binary data, so a
// stray 50 MB file or a compiled object costs no parsing time.
func ReadFile(path string, l *diag.List) ([]byte, bool) {
	if !regular(path, l) {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		l.Errorf(diag.Pos{File: path}, "read", "cannot read: %v", unwrapPath(err))
		return nil, false
	}
	defer f.Close()
	// Read into a buffer of the file's size: growing one by doubling made
	// twice a large opdef's bytes in fresh memory, every gen.
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() <= MaxFileSize {
		buf.Grow(int(fi.Size()) + bytes.MinRead)
	}
	_, err = buf.ReadFrom(io.LimitReader(f, MaxFileSize+1))
	data := buf.Bytes()
	if data == nil {
		data = []byte{} // empty, as io.ReadAll gave it: not nil
	}
	if err != nil {
		l.Errorf(diag.Pos{File: path}, "read", "cannot read: %v", unwrapPath(err))
		return nil, false
	}
	if len(data) > MaxFileSize {
		l.Errorf(diag.Pos{File: path}, "file-too-large", "file is larger than %d MiB; op definition files are small text files", MaxFileSize>>20)
		return nil, false
	}
	return data, CheckText(path, data, l)
}

// Regular reports whether path is a regular file (through one symlink at
// most) without opening it, for readers other than ReadFile (the gen cache).
func Regular(path string) bool {
	var l diag.List
	return regular(path, &l)
}

// regular reports whether path is a regular file, looking with lstat so a
// FIFO, socket or device named *.yaml is refused without being opened
// (opening a FIFO blocks until a writer comes). A symlink is followed once,
// to a regular file.
func regular(path string, l *diag.List) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		l.Errorf(diag.Pos{File: path}, "read", "cannot read: %v", unwrapPath(err))
		return false
	}
	what := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		if err != nil {
			l.Errorf(diag.Pos{File: path}, "read", "cannot read: %v", unwrapPath(err))
			return false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		if fi, err = os.Lstat(target); err != nil {
			l.Errorf(diag.Pos{File: path}, "read", "cannot read: symlink to %s: %v", target, unwrapPath(err))
			return false
		}
		what = "a symlink to "
		if fi.Mode()&fs.ModeSymlink != 0 {
			l.Errorf(diag.Pos{File: path, Line: 1, Col: 1}, "not-regular-file", "%sanother symlink (%s); op definitions are regular files, reached through one symlink at most", what, target)
			return false
		}
	}
	if !fi.Mode().IsRegular() {
		l.Errorf(diag.Pos{File: path, Line: 1, Col: 1}, "not-regular-file", "is %s%s, not a regular file; op definitions are regular files, so it is not read", what, fileKind(fi.Mode()))
		return false
	}
	return true
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "a special file (" + m.Type().String() + ")"
}

// CheckText refuses NUL bytes and invalid UTF-8 with the position of the
// first bad byte.
func CheckText(path string, data []byte, l *diag.List) bool {
	bad := bytes.IndexByte(data, 0)
	if bad < 0 && !utf8.Valid(data) {
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				bad = i
				break
			}
			i += n
		}
	}
	if bad < 0 {
		return true
	}
	line := 1 + bytes.Count(data[:bad], []byte{'\n'})
	col := 1 + utf8.RuneCount(data[bytes.LastIndexByte(data[:bad], '\n')+1:bad])
	l.Errorf(diag.Pos{File: path, Line: line, Col: col}, "not-text", "file is not UTF-8 text (byte 0x%02x at offset %d); is it a binary file?", data[bad], bad)
	return false
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse reads bytes of the given file name by its extension (YAML, or a
// registered Format), without the semantic checks.
func Parse(path string, data []byte, l *diag.List) *ir.Package {
	return Loader{}.Parse(path, data, l)
}

// Loader loads op definitions as the package's functions do; Chunks,
// when set, keeps the parsed items of YAML files' ops lists from one run
// to the next, so that a file with one op changed parses that op
// (yamldef.ParseSliced).
type Loader struct {
	Chunks yamldef.Chunks
}

// Parse is the package's Parse.
func (ld Loader) Parse(path string, data []byte, l *diag.List) *ir.Package {
	if !CheckText(path, data, l) {
		return nil
	}
	ext := filepath.Ext(path)
	if slices.Contains(yamlExtensions, strings.ToLower(ext)) {
		return yamldef.LoadWith(path, data, ld.Chunks, l)
	}
	if f := formatOf(ext); f != nil {
		return f.Parse(path, data, l)
	}
	l.Errorf(diag.Pos{File: path}, "file-type", "unknown op definition format %q; use %s", ext, mainExtensions())
	return nil
}

// Encode writes pkg in the named format (one of Formats); schemaPath is
// the schema a YAML file names. Where the format cannot hold something of
// pkg, its writer reports it in l.
func Encode(pkg *ir.Package, format, schemaPath string, l *diag.List) ([]byte, error) {
	if format == yamlFormat {
		return yamldef.Write(pkg, schemaPath)
	}
	for _, f := range formats {
		if f.Name() == format {
			return f.Encode(pkg, l)
		}
	}
	return nil, fmt.Errorf("unknown op definition format %q; use %s", format, strings.Join(Formats(), " or "))
}

// Validate runs the semantic checks shared by every target on a parsed
// package (not the targets' own: registry.Check runs those).
func Validate(pkg *ir.Package, l *diag.List) {
	validate.Package(pkg, l)
}

// File loads and validates one file.
func File(path string, l *diag.List) *ir.Package { return Loader{}.File(path, l) }

// File is the package's File.
func (ld Loader) File(path string, l *diag.List) *ir.Package {
	data, ok := ReadFile(path, l)
	if !ok {
		return nil
	}
	pkg := ld.Parse(path, data, l)
	if pkg != nil {
		ld.validate(pkg, l)
	}
	return pkg
}

// validate is Validate, remembering in ld.Chunks which checks each op
// passed (validate.Memo).
func (ld Loader) validate(pkg *ir.Package, l *diag.List) {
	var memo validate.Memo
	if ld.Chunks != nil {
		memo = chunkMemo{ld.Chunks}
	}
	validate.PackageWith(pkg, l, memo)
	if ld.Chunks != nil {
		pkg.Checked = checkedStore{ld.Chunks}
	}
}

// Tree loads and validates every op definition below root. Packages are
// returned sorted by name; a package name defined twice is an error (the
// second is validated, then dropped).
func Tree(root string, l *diag.List) []*ir.Package { return Loader{}.Tree(root, l) }

// Tree is the package's Tree.
func (ld Loader) Tree(root string, l *diag.List) []*ir.Package {
	files, err := Files(root)
	if err != nil {
		l.Errorf(diag.Pos{File: root}, "read", "cannot list op definitions: %v", err)
		return nil
	}
	if len(files) == 0 {
		l.Warnf(diag.Pos{File: root}, "no-opdefs", "no op definitions (%s) found", Pattern())
	}
	return ld.Paths(files, l)
}

// Paths loads and validates the given files.
func Paths(files []string, l *diag.List) []*ir.Package { return Loader{}.Paths(files, l) }

// Paths is the package's Paths.
func (ld Loader) Paths(files []string, l *diag.List) []*ir.Package {
	var pkgs []*ir.Package
	byName := map[string]*ir.Package{}
	for _, f := range files {
		pkg := ld.File(f, l)
		if pkg == nil {
			continue
		}
		if first, dup := byName[pkg.Name]; dup {
			// A format may define one package in several files (one per
			// backend, say), and decides which is kept.
			if keep := sameFormatDuplicate(first, pkg, l); keep != nil {
				if keep != first {
					byName[pkg.Name] = keep
					pkgs[slices.Index(pkgs, first)] = keep
				}
				continue
			}
			l.Errorf(pkg.Where.At("name", pkg.Pos), "duplicate-package", "package %s is also defined in %s; each package lives in one file", pkg.Name, first.Source)
			continue
		}
		byName[pkg.Name] = pkg
		pkgs = append(pkgs, pkg)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Name < pkgs[j].Name })
	return pkgs
}

// Describe summarises packages for a one-line report.
func Describe(pkgs []*ir.Package) string {
	ops := 0
	for _, p := range pkgs {
		ops += len(p.Ops)
	}
	return fmt.Sprintf("%d package(s), %d op(s)", len(pkgs), ops)
}

// sameFormatDuplicate is the package to keep of two of one name read in
// one registered format, as that format decides (Format.Duplicate); nil
// when they are of different formats, YAML, or both to keep.
func sameFormatDuplicate(first, second *ir.Package, l *diag.List) *ir.Package {
	f, g := formatOf(filepath.Ext(first.Source)), formatOf(filepath.Ext(second.Source))
	if f == nil || g == nil || f.Name() != g.Name() {
		return nil
	}
	return f.Duplicate(first, second, l)
}

// chunkMemo keeps the checks ops passed (validate.Memo) in the store that
// keeps the YAML opdefs' parsed items, which scopes its records to the
// generator (yamldef.Chunks.Vet).
type chunkMemo struct{ chunks yamldef.Chunks }

func (m chunkMemo) Passed(check, key string) bool {
	_, ok := m.chunks.Vetted("passed " + check + " " + key)
	return ok
}

func (m chunkMemo) Pass(check, key string) { m.chunks.Vet("passed "+check+" "+key, "1") }

// checkedStore keeps what the targets' checks concluded of ops
// (ir.Package.Checked) in the same store, scoped to the generator as the
// memo's records are: another binary has other checks.
type checkedStore struct{ chunks yamldef.Chunks }

func (c checkedStore) Section(key string) (string, bool) { return c.chunks.Vetted("checked " + key) }

func (c checkedStore) Remember(key, text string) { c.chunks.Vet("checked "+key, text) }
