package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/torchimport"
	"github.com/opforge/opforge/generators/yamldef"
)

// importTorchCmd is `opforge import torch`: opdefs of ops a module
// registers with torch.library, read from torch itself.
func importTorchCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("import torch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	module := fs.String("module", "", "the module that registers the ops: an importable module name or a .py file (required)")
	var ops, targetNames, dtypes listFlag
	fs.Var(&ops, "op", "the ops, NS::NAME (comma-separated, repeatable; required unless --exported)")
	exported := fs.String("exported", "", "a torch.export'ed program (.pt2 of torch.export.save): import the custom ops it calls, instead of --op; --module must register them")
	out := fs.String("o", "", "opdef file to write, or - for standard output (default: opdefs/<package>/<package>.yaml)")
	force := fs.Bool("force", false, "overwrite an existing opdef file")
	var pkgName string
	fs.StringVar(&pkgName, "package", "", "package name (default: the ops' namespace in PascalCase, then Ops)")
	fs.Var(&targetNames, "targets", "targets the ops generate for: "+strings.Join(registry.ImportTargets, ", ")+" (default: all of them)")
	fs.Var(&dtypes, "dtypes", "the dtypes the ops take (default: those the fake kernel, and the CPU kernel where there is one, accept)")
	python := fs.String("python", "", "the Python with torch that imports the module (default: $OPFORGE_PYTHON, else python3)")
	pos, err := parse(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 0 || *module == "" || (len(ops) == 0) == (*exported == "") {
		fmt.Fprintln(stderr, "opforge import torch: expected `opforge import torch --module M --op NS::NAME[,...]` or `opforge import torch --module M --exported FILE.pt2`")
		return 2
	}
	if *exported != "" {
		found, code := exportedOps(*python, *module, *exported, stdout, stderr)
		if found == nil {
			return code
		}
		ops = found
	}
	namespaces := map[string]bool{}
	for _, o := range ops {
		ns, name, ok := strings.Cut(o, "::")
		if !ok || !names.IsIdent(ns) || !names.IsIdent(name) {
			fmt.Fprintf(stderr, "opforge import torch: --op takes NS::NAME, not %q\n", o)
			return 2
		}
		namespaces[ns] = true
	}
	for _, t := range targetNames {
		if !slices.Contains(registry.ImportTargets, t) {
			fmt.Fprintf(stderr, "opforge import torch: unknown target %q; targets are %s\n", t, strings.Join(registry.ImportTargets, ", "))
			return 2
		}
	}
	if len(targetNames) == 0 {
		targetNames = registry.ImportTargets
	}
	if pkgName == "" && len(namespaces) > 1 {
		fmt.Fprintln(stderr, "opforge import torch: the ops come from several namespaces; name their package with --package")
		return 2
	}
	if pkgName != "" && !names.IsIdent(pkgName) {
		fmt.Fprintf(stderr, "opforge import torch: --package takes an identifier, not %q\n", pkgName)
		return 2
	}
	opts := torchimport.Options{Module: *module, Package: pkgName, Targets: targetNames}
	if opts.Package == "" {
		ns, _, _ := strings.Cut(ops[0], "::")
		opts.Package = torchimport.PackageName(ns)
	}
	dir := strings.ToLower(opts.Package)
	if *out == "" {
		*out = filepath.Join(underRoot("opdefs"), dir, dir+".yaml")
	}
	opts.Source = *out
	var l diag.List
	if *out != "-" && !*force {
		if _, err := os.Stat(*out); err == nil {
			l.Errorf(diag.Pos{File: *out}, "write", "exists; pass --force to overwrite it (or -o another file)")
			return report(&l, "text", stdout, stderr)
		}
	}
	rep, err := torchimport.Inspect(torchimport.Python(*python), *module, ops, dtypes)
	if err != nil {
		l.Errorf(diag.Pos{File: *module}, "torch-import", "%v", err)
		code := report(&l, "text", stdout, stderr)
		fmt.Fprintln(stderr, "opforge import torch: nothing written")
		return code
	}
	res := torchimport.Build(rep, opts, &l)
	if res == nil {
		code := report(&l, "text", stdout, stderr)
		fmt.Fprintln(stderr, "opforge import torch: nothing written")
		return max(code, 1)
	}
	res.Warnings = append(res.Warnings, torchimport.Fit(res.Package)...)
	schema := yamldef.DefaultSchemaPath
	name := *out
	if *out != "-" {
		schema = schemaPathFrom(*out)
	} else {
		name = filepath.Join(underRoot("opdefs"), dir, dir+".yaml")
	}
	data, err := yamldef.Write(res.Package, schema)
	if err != nil {
		l.Errorf(diag.Pos{File: name}, "internal", "cannot write YAML: %v", err)
	}
	// The written opdef must load and validate like any other, for every
	// target it names: check the bytes themselves.
	if data != nil {
		if pkg := load.Parse(name, data, &l); pkg != nil {
			load.Validate(pkg, &l)
			registry.Check(&l, pkg)
		}
		torchimport.Place(name, data, res.Warnings, &l)
	}
	if l.HasErrors() {
		report(&l, "text", stdout, stderr)
		fmt.Fprintln(stderr, "opforge import torch: the opdef would not validate; nothing written (--targets drops a target that cannot take these ops)")
		return 1
	}
	if *out == "-" {
		_, _ = stdout.Write(data)
		return report(&l, "text", stdout, stderr)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		l.Errorf(diag.Pos{File: *out}, "write", "cannot write: %v", err)
		return report(&l, "text", stdout, stderr)
	}
	if _, err := atomicfile.Write(*out, data, 0o644); err != nil {
		l.Errorf(diag.Pos{File: *out}, "write", "cannot write: %v", err)
		return report(&l, "text", stdout, stderr)
	}
	code := report(&l, "text", stdout, stderr)
	fmt.Fprintf(stdout, "opforge import torch: wrote %s: package %s, %d op(s) (torch %s)\n", *out, res.Package.Name, len(res.Package.Ops), rep.Torch)
	for _, op := range res.Package.Ops {
		fmt.Fprintf(stdout, "  %s <- torch.ops.%s\n", op.Name, strings.Replace(op.Torch.Op, "::", ".", 1))
	}
	return code
}

// exportedOps are the custom ops the torch.export'ed program file calls,
// or nil and the exit code after reporting why there are none.
func exportedOps(python, module, file string, stdout, stderr io.Writer) ([]string, int) {
	var l diag.List
	found, err := torchimport.ExportedOps(torchimport.Python(python), module, file)
	switch {
	case err != nil:
		l.Errorf(diag.Pos{File: file}, "torch-import", "%v", err)
	case len(found) == 0:
		l.Errorf(diag.Pos{File: file}, "torch-import", "the program calls no custom ops (only torch's aten and prims): nothing to import")
	default:
		return found, 0
	}
	code := report(&l, "text", stdout, stderr)
	fmt.Fprintln(stderr, "opforge import torch: nothing written")
	return nil, max(code, 1)
}
