package load

import (
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

// Format is an op definition format besides opforge's YAML, which load
// reads itself (yamldef): a vendor's own format, which the target owning
// it provides (target.SourceFormat) and the registry registers, so load
// reads it by extension, and `opforge convert` writes it, without naming
// any vendor.
type Format interface {
	// Name is the format's name for `opforge convert --to`.
	Name() string
	// Title names the format for help text.
	Title() string
	// Extensions are the extensions of its files, with the dot, lower
	// case.
	Extensions() []string
	// Parse reads one file into a package, without the semantic checks.
	Parse(path string, data []byte, l *diag.List) *ir.Package
	// Encode writes pkg in the format, reporting in l what the format
	// cannot hold.
	Encode(pkg *ir.Package, l *diag.List) ([]byte, error)
	// Duplicate decides between two packages of one name both read in
	// this format, first before second: the one to keep, having warned
	// about the other, or nil when they are two definitions of one
	// package (a duplicate-package error).
	Duplicate(first, second *ir.Package, l *diag.List) *ir.Package
}

// yamlFormat names the format load reads itself.
const yamlFormat = "yaml"

// yamlExtensions are the extensions of opforge's YAML files.
var yamlExtensions = []string{".yaml", ".yml"}

// formats are the registered formats, in the order registered.
var formats []Format

// Register adds a format. It is called while the program starts (the
// registry's init), before anything loads, so nothing reads formats while
// it changes; a second format of the same name or extension is ignored,
// so registering twice is harmless.
func Register(f Format) {
	for _, g := range formats {
		if g.Name() == f.Name() || slices.ContainsFunc(f.Extensions(), func(e string) bool { return slices.Contains(g.Extensions(), e) }) {
			return
		}
	}
	formats = append(formats, f)
}

// formatOf is the registered format reading files of extension ext (with
// the dot, any case), or nil.
func formatOf(ext string) Format {
	ext = strings.ToLower(ext)
	for _, f := range formats {
		if slices.Contains(f.Extensions(), ext) {
			return f
		}
	}
	return nil
}

// Formats are the op definition formats Parse reads and Encode writes, by
// the name `opforge convert --to` takes: yaml, then the registered ones.
func Formats() []string {
	names := []string{yamlFormat}
	for _, f := range formats {
		names = append(names, f.Name())
	}
	return names
}

// Titles names the formats for help text ("YAML and ...").
func Titles() string {
	titles := []string{"YAML"}
	for _, f := range formats {
		titles = append(titles, f.Title())
	}
	if len(titles) == 1 {
		return titles[0]
	}
	return strings.Join(titles[:len(titles)-1], ", ") + " and " + titles[len(titles)-1]
}

// Pattern selects op definition files below the opdefs root: those of
// every format's extensions.
func Pattern() string {
	exts := slices.Clone(yamlExtensions)
	for _, f := range formats {
		exts = append(exts, f.Extensions()...)
	}
	for i, e := range exts {
		exts[i] = strings.TrimPrefix(e, ".")
	}
	return "**/*.{" + strings.Join(exts, ",") + "}"
}

// mainExtensions lists each format's first extension, for messages
// (".yaml or ...").
func mainExtensions() string {
	exts := []string{yamlExtensions[0]}
	for _, f := range formats {
		exts = append(exts, f.Extensions()[0])
	}
	return strings.Join(exts, " or ")
}
