// Package scaffold holds the files `opforge init` gives a new repository:
// one commented example opdef, the opdef schema where that opdef's
// modeline finds it, and a .gitignore. The toolchain descriptors are not
// among them: the binary carries them, and a toolchains/ directory is
// written only on request, to override them.
package scaffold

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"text/template"

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

var packageName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// Files returns the scaffold, in a fixed order.
func Files(o Options) ([]File, error) {
	if !packageName.MatchString(o.Package) {
		return nil, fmt.Errorf("package name %q: use letters, digits and _, starting with a letter", o.Package)
	}
	// The domain doubles as the TensorRT plugin namespace, which Python
	// plugin ids allow no dots in.
	model := struct{ Package, Domain string }{o.Package, snake(o.Package)}
	example, err := render("init/opdef.yaml.tmpl", model)
	if err != nil {
		return nil, err
	}
	ignore, err := render("init/gitignore.tmpl", model)
	if err != nil {
		return nil, err
	}
	files := []File{
		{Path: ".gitignore", Data: ignore},
		{Path: path.Join("opdefs", snake(o.Package), snake(o.Package)+".yaml"), Data: example},
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

func render(name string, model any) ([]byte, error) {
	t, err := template.New(path.Base(name)).Option("missingkey=error").ParseFS(templates.FS, name)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, model); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// snake turns MyOps into my_ops for directory and file names.
func snake(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			if i > 0 && s[i-1] != '_' && !(s[i-1] >= 'A' && s[i-1] <= 'Z') {
				b = append(b, '_')
			}
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}
