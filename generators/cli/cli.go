package cli

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
)

// usageFormat is the command summary; usage fills in the registry's
// targets, so adding a target changes no help text here.
const usageFormat = `usage:
  opforge version | --version                                     the opforge version and the commit it was built from
  opforge init [--package NAME] [--toolchains] [DIR]             set up a repository: an example opdef, its schema, .gitignore
  opforge gen [--opdefs DIR] [--toolchains DIR] [--out DIR]      regenerate out/ (writes nothing on error)
              [--package LIST] [--op LIST] [--full] [--force]    (--force overwrites hand edits outside user regions)
  opforge check [--format text|json] [--opdefs DIR] [--out DIR]  validate opdefs and fail when out/ is stale
                [--package LIST] [--op LIST]                     (--package/--op: only these packages' or ops' files)
  opforge mv [op|package] OLD NEW [--opdefs DIR] [--out DIR]    rename an op (or a package): its opdef name, the out/ files and regions named after it
  opforge build %[1]s|all [--package LIST] [--arch LIST] [--jobs N]
                [--unit-timeout 30m]                              build out/ with the vendor toolchains into build/
                 (OPFORGE_COMPILER_LAUNCHER=ccache: compiles through a compiler cache;
                  a unit past --unit-timeout is killed, an artifact that is not an object is never kept)
  opforge verify [--package LIST] [--op LIST] [--target LIST]   run each op on every target it can run here against its reference
                 [--format text|json] [--python PY] [--rtol R] [--atol A]   (exit 1 on a mismatch; a skip is never a pass)
                 [--case-timeout D] [--shard K/N] [--strict]     (every line says kernel or wiring check, and the engine)
  opforge verify --merge [--format text|json] [--strict] REPORT.json ...   one report of the shards' JSON reports
  opforge doctor [--python PY] [--timeout 60s]                    where every SDK, tool and launcher is, or what is missing
                                                                  and a team's build through a shared ccache; per verify
                                                                  target, what it runs on here or what to install or set
  opforge validate [--format text|json] [PATH ...]    check op definitions (default: the op repository's opdefs)
  opforge convert [--to %[8]s] [-o OUT] FILE      convert between %[9]s
  opforge fmt [-w] [--check] FILE ...                canonical YAML, comments kept
  opforge import onnx MODEL SELECT [--rename T=NAME] [-o OPDEF|-] [--force]
                 [--package NAME] [--domain D] [--namespace NS] [--package-version V]
                 [--targets %[2]s] [--allow-standard-names]
                                                     opdefs for the selected nodes of an ONNX model
  opforge import torch --module M (--op NS::NAME,... | --exported FILE.pt2) [-o OPDEF|-] [--force] [--package NAME]
                 [--targets %[2]s] [--dtypes LIST] [--python PY]
                                                     opdefs of ops a module registers with torch.library:
                                                     schema, dtypes and output shapes from torch's fake kernels
  opforge rewrite onnx MODEL SELECT -o OUT [--for %[3]s] [--rename T=NAME] [--opdef OPDEF]
                 [--package NAME] [--allow-standard-names] [--copy-external-data]
                                                     make the selected nodes call the generated ops in
                                                     the --for runtime (default %[7]s):
%[4]s    SELECT is any of --nodes N,... --op-types T,... --unsupported-for %[5]s
gen, check, mv, build and verify work in the op repository around the working directory: the
nearest folder at or above it that holds opdefs/ (as git finds its own); --opdefs, --out, --build
and --toolchains name other folders, relative to the working directory. --package LIST and
--op LIST select by name, comma-separated or repeated; init and import take one --package NAME.
targets:
%[6]s`

// usage is the command summary over the registry's targets.
func usage() string {
	var callers, summaries strings.Builder
	byName := registry.ONNXCallers()
	callerNames := slices.Sorted(maps.Keys(byName))
	for _, name := range callerNames {
		fmt.Fprintf(&callers, "%53s%s: %s\n", "", name, byName[name].CallerSummary())
	}
	for _, t := range registry.All() {
		fmt.Fprintf(&summaries, "  %-6s %s\n", t.Name(), t.Summary())
	}
	return fmt.Sprintf(usageFormat,
		strings.Join(registry.Builders(), "|"),
		strings.Join(registry.ImportTargets, ","),
		strings.Join(callerNames, "|"),
		callers.String(),
		strings.Join(frontEndNames(), "|"),
		summaries.String(),
		registry.DefaultONNXCaller,
		strings.Join(load.Formats(), "|"),
		load.Titles())
}

// Main runs one command and returns the process exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	switch args[0] {
	case "init":
		return initCmd(args[1:], stdout, stderr)
	case "mv":
		return mvCmd(args[1:], stdout, stderr)
	case "validate":
		return validateCmd(args[1:], stdout, stderr)
	case "gen":
		return genCmd(args[1:], stdout, stderr)
	case "check":
		return checkCmd(args[1:], stdout, stderr)
	case "build":
		return buildCmd(args[1:], stdout, stderr)
	case "doctor":
		return doctorCmd(args[1:], stdout, stderr)
	case "convert":
		return convertCmd(args[1:], stdout, stderr)
	case "fmt":
		return fmtCmd(args[1:], stdout, stderr)
	case "import":
		return importCmd(args[1:], stdout, stderr)
	case "rewrite":
		return rewriteCmd(args[1:], stdout, stderr)
	case "verify":
		return verifyCmd(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		return versionCmd(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage())
		return 0
	}
	fmt.Fprintf(stderr, "opforge: unknown command %q\n%s", args[0], usage())
	return 2
}

// report prints diagnostics and returns the exit status they imply.
func report(l *diag.List, format string, stdout, stderr io.Writer) int {
	if format == "json" {
		_ = l.WriteJSON(stdout)
	} else {
		_ = l.WriteText(stderr)
	}
	if l.HasErrors() {
		return 1
	}
	return 0
}

func validateCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "diagnostic format: text or json")
	paths, err := parse(fs, args)
	if err != nil {
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "opforge validate: --format must be text or json\n")
		return 2
	}
	if len(paths) == 0 {
		paths = []string{underRoot("opdefs")}
	}
	var l diag.List
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			l.Errorf(diag.Pos{File: p}, "read", "cannot read: %v", err)
			continue
		}
		if st.IsDir() {
			fs, err := load.Files(p)
			if err != nil {
				l.Errorf(diag.Pos{File: p}, "read", "cannot list: %v", err)
			}
			files = append(files, fs...)
		} else {
			files = append(files, p)
		}
	}
	pkgs := load.Paths(files, &l)
	registry.Check(&l, pkgs...)
	code := report(&l, *format, stdout, stderr)
	if *format == "text" {
		e, w := l.Counts()
		fmt.Fprintf(stderr, "opforge: %d file(s), %s: %d error(s), %d warning(s)\n", len(files), load.Describe(pkgs), e, w)
	}
	return code
}

// parse parses flags wherever they appear among the arguments, so
// `opforge convert in.xml -o out.yaml` works as users type it.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
