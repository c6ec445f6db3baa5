package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/yamldef"
)

func convertCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "", "output format: yaml or xml (default: the other one)")
	out := fs.String("o", "", "output file (default: standard output)")
	pos, err := parse(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "opforge convert: expected exactly one input file")
		return 2
	}
	in := pos[0]
	isXML := strings.EqualFold(filepath.Ext(in), ".xml")
	if *to == "" {
		*to = map[bool]string{true: "yaml", false: "xml"}[isXML]
	}
	if *to != "yaml" && *to != "xml" {
		fmt.Fprintln(stderr, "opforge convert: --to must be yaml or xml")
		return 2
	}
	var l diag.List
	pkg := load.File(in, &l)
	registry.Check(&l, pkg)
	var data []byte
	if pkg != nil && !l.HasErrors() {
		schemaPath := yamldef.DefaultSchemaPath
		if *out != "" {
			schemaPath = schemaPathFrom(*out)
		}
		data, err = load.Encode(pkg, *to, schemaPath, &l)
		if err != nil {
			l.Errorf(diag.Pos{File: in}, "convert", "cannot write %s: %v", *to, err)
		}
	}
	if code := report(&l, "text", stdout, stderr); code != 0 || data == nil {
		return max(code, 1)
	}
	if *out == "" {
		_, _ = stdout.Write(data)
		return 0
	}
	if _, err := atomicfile.Write(*out, data, 0o644); err != nil {
		fmt.Fprintf(stderr, "opforge convert: %v\n", err)
		return 1
	}
	return 0
}

// schemaPathFrom finds schemas/opdef.schema.json relative to out when out
// lies inside this repository's opdefs/, else the conventional path.
func schemaPathFrom(out string) string {
	abs, err := filepath.Abs(out)
	if err != nil {
		return yamldef.DefaultSchemaPath
	}
	for dir := filepath.Dir(abs); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		candidate := filepath.Join(dir, "schemas", "opdef.schema.json")
		if _, err := os.Stat(candidate); err == nil {
			rel, err := filepath.Rel(filepath.Dir(abs), candidate)
			if err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return yamldef.DefaultSchemaPath
}

func fmtCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fmt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	write := fs.Bool("w", false, "write the result back to the file")
	check := fs.Bool("check", false, "list files whose formatting differs and exit 1")
	files, err := parse(fs, args)
	if err != nil {
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "opforge fmt: expected YAML files")
		return 2
	}
	var l diag.List
	differ := false
	for _, path := range files {
		data, ok := load.ReadFile(path, &l)
		if !ok {
			continue
		}
		formatted, ok := yamldef.Format(path, data, &l)
		if !ok {
			continue
		}
		same := string(formatted) == string(data)
		switch {
		case *check:
			if !same {
				fmt.Fprintln(stdout, path)
				differ = true
			}
		case *write:
			if !same {
				if _, err := atomicfile.Write(path, formatted, 0o644); err != nil {
					l.Errorf(diag.Pos{File: path}, "write", "cannot write: %v", err)
				}
			}
		default:
			_, _ = stdout.Write(formatted)
		}
	}
	code := report(&l, "text", stdout, stderr)
	if differ && code == 0 {
		code = 1
	}
	return code
}
