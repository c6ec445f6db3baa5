package scaffold

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sync"

	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/schemas"
	"github.com/opforge/opforge/templates"
	"github.com/opforge/opforge/toolchains"
)

// Options name what init writes.
type Options struct {
	// Package is the example opdef's package name (an identifier).
	Package string
	// Toolchains also writes toolchains/<target>.yaml, copies of the
	// built-in descriptors to edit.
	Toolchains bool
}

// File is one file of the scaffold: a slash path relative to the
// repository root.
type File struct {
	Path string
	Data []byte
}

var packageName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`) })

// Files returns the scaffold, in a fixed order.
func Files(o Options) ([]File, error) {
	if !packageName().MatchString(o.Package) {
		return nil, fmt.Errorf("package name %q: use letters, digits and _, starting with a letter", o.Package)
	}
	// The domain doubles as the plugin namespace, which a target's Python
	// plugin ids allow no dots in.
	model := struct{ Package, Domain string }{o.Package, names.Snake(o.Package)}
	set, err := render.Load(templates.FS, "init", nil)
	if err != nil {
		return nil, err
	}
	example, err := set.Execute("opdef.yaml.tmpl", model)
	if err != nil {
		return nil, err
	}
	ignore, err := set.Execute("gitignore.tmpl", model)
	if err != nil {
		return nil, err
	}
	files := []File{
		{Path: ".gitignore", Data: ignore},
		{Path: path.Join("opdefs", names.Snake(o.Package), names.Snake(o.Package)+".yaml"), Data: example},
		{Path: "schemas/opdef.schema.json", Data: schemas.OpDefJSON},
	}
	if o.Toolchains {
		names, _ := fs.Glob(toolchains.FS, "*.yaml")
		for _, n := range names {
			data, err := fs.ReadFile(toolchains.FS, n)
			if err != nil {
				return nil, err
			}
			files = append(files, File{Path: "toolchains/" + n, Data: data})
		}
		files = append(files, File{Path: "schemas/toolchain.schema.json", Data: schemas.ToolchainJSON})
	}
	return files, nil
}
