package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/onnximport"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/selection"
	"github.com/opforge/opforge/generators/target"
	"github.com/opforge/opforge/generators/yamldef"
)

// listFlag collects comma-separated values; the flag may repeat.
type listFlag []string

func (f *listFlag) String() string { return strings.Join(*f, ",") }

func (f *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*f = append(*f, s)
		}
	}
	return nil
}

// onnxFlags are the selection and naming flags import and rewrite share,
// so that both commands map the same nodes to the same ops.
type onnxFlags struct {
	nodes, opTypes, renames listFlag
	unsupportedFor          string
	allowStandard           bool
	pkg                     string
}

// frontEndNames are the targets --unsupported-for accepts, sorted.
func frontEndNames() []string {
	var names []string
	for t := range registry.FrontEnds() {
		names = append(names, t)
	}
	sort.Strings(names)
	return names
}

func (o *onnxFlags) register(fs *flag.FlagSet) {
	fs.Var(&o.nodes, "nodes", "select nodes by name (comma-separated, repeatable)")
	fs.Var(&o.opTypes, "op-types", "select nodes by op type: the ops the target lacks (comma-separated, repeatable)")
	fs.StringVar(&o.unsupportedFor, "unsupported-for", "", "select nodes whose op the target's ONNX front end cannot run: "+strings.Join(frontEndNames(), ", "))
	fs.Var(&o.renames, "rename", "name the op of an op type: OPTYPE=NAME (comma-separated, repeatable)")
	fs.BoolVar(&o.allowStandard, "allow-standard-names", false, "allow op names of standard ONNX ops (for a runtime that lets a custom op override a standard one; import says which ones do not)")
	selection.Name(fs, "package", &o.pkg, "package name (default: from the model's file name)")
}

func (o *onnxFlags) options(stderr io.Writer, cmd string) (onnximport.Options, bool) {
	opts := onnximport.Options{
		Selection:          onnximport.Selection{Nodes: o.nodes, OpTypes: o.opTypes, UnsupportedFor: o.unsupportedFor, FrontEnds: registry.FrontEnds()},
		Package:            o.pkg,
		AllowStandardNames: o.allowStandard,
		Rename:             map[string]string{},
	}
	if opts.Selection.Empty() {
		fmt.Fprintf(stderr, "opforge %s onnx: select nodes with --nodes, --op-types or --unsupported-for\n", cmd)
		return opts, false
	}
	for _, r := range o.renames {
		from, to, ok := strings.Cut(r, "=")
		if !ok || from == "" || to == "" {
			fmt.Fprintf(stderr, "opforge %s onnx: --rename takes OPTYPE=NAME, not %q\n", cmd, r)
			return opts, false
		}
		opts.Rename[from] = to
	}
	return opts, true
}

// defaultOpdef is where import writes, and rewrite reads, the package of
// a model: opdefs/<pkg>/<pkg>.yaml, in the op repository's opdefs/ when
// the command runs inside one.
func defaultOpdef(model, pkg string) string {
	_, dir := onnximport.DefaultPackage(model)
	if pkg != "" {
		dir = strings.ToLower(pkg)
	}
	return filepath.Join(underRoot("opdefs"), dir, dir+".yaml")
}

// parseOnnx parses the flags of `import onnx MODEL` / `rewrite onnx
// MODEL` and returns MODEL.
func parseOnnx(fs *flag.FlagSet, args []string, cmd string, stderr io.Writer) (string, bool) {
	pos, err := parse(fs, args)
	if err != nil {
		return "", false
	}
	if len(pos) != 2 || pos[0] != "onnx" {
		fmt.Fprintf(stderr, "opforge %s: expected `opforge %s onnx MODEL` (onnx is the only model format)\n", cmd, cmd)
		return "", false
	}
	return pos[1], true
}

func readModel(path string, l *diag.List) *onnx.Model {
	m, err := onnx.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			l.Errorf(diag.Pos{File: path}, "read", "cannot read: %v", pe.Err)
		} else {
			l.Errorf(diag.Pos{File: path}, "onnx-read", "%v", err)
		}
	}
	return m
}

// onnxMemoryLimit is the soft memory limit of import and rewrite: the
// garbage collector works harder near it instead of letting the heap
// grow to twice what is live, so the largest model within
// onnx.DefaultLimits stays within about 1 GiB.
const onnxMemoryLimit = 768 << 20

// boundMemory sets onnxMemoryLimit for one command, unless GOMEMLIMIT
// sets a limit of the user's; it returns what restores the previous one.
func boundMemory() (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(onnxMemoryLimit)
	return func() { debug.SetMemoryLimit(prev) }
}

func importCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "torch" {
		return importTorchCmd(args[1:], stdout, stderr)
	}
	defer boundMemory()()
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var of onnxFlags
	of.register(fs)
	out := fs.String("o", "", "opdef file to write, or - for standard output (default: opdefs/<package>/<package>.yaml)")
	force := fs.Bool("force", false, "overwrite an existing opdef file")
	domain := fs.String("domain", "", "package domain (default: the package name in lower case)")
	namespace := fs.String("namespace", "", "plugin namespace, for the targets whose plugins have one; \"\" is the empty namespace (default: the domain)")
	version := fs.String("package-version", "1.0.0", "package version, which is also the plugins' version")
	var targetNames listFlag
	fs.Var(&targetNames, "targets", "targets the ops generate for: "+strings.Join(registry.ImportTargets, ", ")+" (default: "+strings.Join(registry.DefaultImportTargets, ", ")+", or the --unsupported-for target)")
	model, ok := parseOnnx(fs, args, "import", stderr)
	if !ok {
		return 2
	}
	opts, ok := of.options(stderr, "import")
	if !ok {
		return 2
	}
	opts.Domain, opts.Version = *domain, *version
	// --namespace "" is the empty namespace; only an absent flag means the
	// domain.
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "namespace" {
			opts.Namespace = namespace
		}
	})
	for _, t := range targetNames {
		if !slices.Contains(onnximport.Targets, t) {
			fmt.Fprintf(stderr, "opforge import onnx: unknown target %q; targets are %s\n", t, strings.Join(onnximport.Targets, ", "))
			return 2
		}
	}
	opts.Targets = targetNames
	if len(targetNames) == 0 && of.unsupportedFor != "" {
		opts.Targets = []string{of.unsupportedFor}
	}
	if *out == "" {
		*out = defaultOpdef(model, of.pkg)
	}
	opts.Source = *out
	var l diag.List
	if *out != "-" && !*force {
		if _, err := os.Stat(*out); err == nil {
			l.Errorf(diag.Pos{File: *out}, "write", "exists; pass --force to overwrite it (or -o another file)")
			return report(&l, "text", stdout, stderr)
		}
	}
	m := readModel(model, &l)
	var res *onnximport.Result
	if m != nil {
		res = onnximport.Import(m, model, opts, &l)
	}
	if res == nil {
		code := report(&l, "text", stdout, stderr)
		fmt.Fprintln(stderr, "opforge import onnx: nothing written")
		return code
	}
	schema := yamldef.DefaultSchemaPath
	if *out != "-" {
		schema = schemaPathFrom(*out)
	}
	data, err := yamldef.Write(res.Package, schema)
	if err != nil {
		l.Errorf(diag.Pos{File: *out}, "internal", "cannot write YAML: %v", err)
	}
	// The written opdef must load and validate like any other, for every
	// target it names: check the bytes themselves.
	if data != nil {
		name := *out
		if name == "-" {
			name = defaultOpdef(model, of.pkg)
		}
		if pkg := load.Parse(name, data, &l); pkg != nil {
			load.Validate(pkg, &l)
			registry.Check(&l, pkg)
		}
	}
	if l.HasErrors() {
		report(&l, "text", stdout, stderr)
		fmt.Fprintln(stderr, "opforge import onnx: the opdef would not validate; nothing written (--targets drops a target that cannot take these ops)")
		return 1
	}
	if *out == "-" {
		_, _ = stdout.Write(data)
		return report(&l, "text", stdout, stderr)
	}
	if _, err := atomicfile.Write(*out, data, 0o644); err != nil {
		l.Errorf(diag.Pos{File: *out}, "write", "cannot write: %v", err)
		return report(&l, "text", stdout, stderr)
	}
	code := report(&l, "text", stdout, stderr)
	fmt.Fprintf(stdout, "opforge import onnx: wrote %s: package %s, %d op(s) for %d node(s)\n", *out, res.Package.Name, len(res.Package.Ops), len(res.Calls))
	for _, op := range res.Package.Ops {
		var nodes []string
		more := 0
		for _, c := range res.Calls {
			switch {
			case c.Op != op:
			case len(nodes) < maxListed:
				nodes = append(nodes, nodeLabel(c.Node))
			default:
				more++
			}
		}
		if more > 0 {
			nodes = append(nodes, fmt.Sprintf("and %d more", more))
		}
		fmt.Fprintf(stdout, "  %s <- %s\n", op.Name, strings.Join(nodes, ", "))
	}
	return code
}

// maxListed is how many nodes import and rewrite list per op or in all;
// a model can have a million.
const maxListed = 100

func nodeLabel(n *onnx.Node) string {
	if n.Name != "" {
		return n.Name
	}
	return fmt.Sprintf("#%d (%s)", n.Index, n.OpType)
}

func rewriteCmd(args []string, stdout, stderr io.Writer) int {
	defer boundMemory()()
	fs := flag.NewFlagSet("rewrite", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var of onnxFlags
	of.register(fs)
	out := fs.String("o", "", "rewritten model to write (required)")
	opdef := fs.String("opdef", "", "the opdef the plugins are generated from (default: opdefs/<package>/<package>.yaml)")
	copyExternal := fs.Bool("copy-external-data", false, "copy external data files next to the output when it is written to another directory")
	callers := registry.ONNXCallers()
	forTarget := fs.String("for", registry.DefaultONNXCaller, "the runtime the rewritten nodes call the ops in: "+callerList(callers))
	model, ok := parseOnnx(fs, args, "rewrite", stderr)
	if !ok {
		return 2
	}
	caller := callers[*forTarget]
	if caller == nil {
		fmt.Fprintf(stderr, "opforge rewrite onnx: --for %q: ops are called from ONNX nodes on %s\n", *forTarget, strings.Join(slices.Sorted(maps.Keys(callers)), ", "))
		return 2
	}
	if *out == "" {
		fmt.Fprintln(stderr, "opforge rewrite onnx: -o OUT is required")
		return 2
	}
	opts, ok := of.options(stderr, "rewrite")
	if !ok {
		return 2
	}
	// The import below must map nodes to ops as import onnx did: the same
	// targets decide which nodes join one op.
	if of.unsupportedFor != "" {
		opts.Targets = []string{of.unsupportedFor}
	}
	if *opdef == "" {
		*opdef = defaultOpdef(model, of.pkg)
	}
	var l diag.List
	m := readModel(model, &l)
	if m == nil {
		return report(&l, "text", stdout, stderr)
	}
	// Import again, with the same selection and naming, to know which op
	// each node becomes; its warnings were shown by import.
	var il diag.List
	res := onnximport.Import(m, model, opts, &il)
	for _, d := range il.Sorted() {
		if d.Severity == diag.Error {
			l.Add(d)
		}
	}
	var pkg *ir.Package
	if res != nil {
		if _, err := os.Stat(*opdef); err != nil {
			l.Errorf(diag.Pos{File: *opdef}, "read", "no opdef here: run `opforge import onnx %s` first, or pass --opdef", model)
		} else {
			pkg = load.File(*opdef, &l)
			registry.Check(&l, pkg)
		}
	}
	if res == nil && !l.HasErrors() {
		report(&l, "text", stdout, stderr)
		fmt.Fprintln(stderr, "opforge rewrite onnx: no node to rewrite; nothing written")
		return 0
	}
	if pkg == nil || l.HasErrors() {
		code := report(&l, "text", stdout, stderr)
		fmt.Fprintln(stderr, "opforge rewrite onnx: nothing written")
		return max(code, 1)
	}
	edits, opsets := onnximport.Plan(m, model, res.Calls, pkg, caller, opts.AllowStandardNames, &l)
	if !l.HasErrors() {
		externalData(m, model, *out, *copyExternal, &l)
	}
	var data *onnx.Output
	if !l.HasErrors() {
		var err error
		if data, err = m.RewriteOutput(edits, opsets); err != nil {
			l.Errorf(diag.Pos{File: model}, "internal", "cannot rewrite: %v", err)
		}
	}
	if l.HasErrors() {
		report(&l, "text", stdout, stderr)
		fmt.Fprintln(stderr, "opforge rewrite onnx: nothing written")
		return 1
	}
	// Written from the runs it is made of: most are the model's own
	// bytes, and a second copy of a large model would double the memory.
	if err := atomicfile.ReplaceFrom(*out, data, 0o644); err != nil {
		l.Errorf(diag.Pos{File: *out}, "write", "cannot write: %v", err)
		return report(&l, "text", stdout, stderr)
	}
	code := report(&l, "text", stdout, stderr)
	fmt.Fprintf(stdout, "opforge rewrite onnx: wrote %s: %d node(s) call ops of %s on %s\n", *out, len(edits), pkg.Name, *forTarget)
	listed := 0
	for _, c := range res.Calls {
		if _, ok := edits[c.Node]; ok {
			if listed++; listed > maxListed {
				continue
			}
			call := caller.ONNXCall(pkg, pkg.Op(c.Op.Name), c.Node)
			fmt.Fprintf(stdout, "  %s -> %s\n", nodeLabel(c.Node), call.Label)
		}
	}
	if listed > maxListed {
		fmt.Fprintf(stdout, "  and %d more\n", listed-maxListed)
	}
	return code
}

// externalData makes sure the external data the model references is
// found next to the rewritten model: ONNX resolves it relative to the
// model file. Writing to the model's own directory needs nothing; else
// each file must already be there or is copied with --copy-external-data.
func externalData(m *onnx.Model, model, out string, copyFiles bool, l *diag.List) {
	files := m.ExternalFiles()
	if len(files) == 0 {
		return
	}
	src, dst := filepath.Dir(model), filepath.Dir(out)
	for _, loc := range files {
		if err := onnx.CheckExternalLocation(loc); err != nil {
			l.Errorf(diag.Pos{File: model}, "onnx-external-data", "%v", err)
		}
	}
	if l.HasErrors() || sameDir(src, dst) {
		return
	}
	var missing []string
	for _, loc := range files {
		from := filepath.Join(src, filepath.FromSlash(loc))
		to := filepath.Join(dst, filepath.FromSlash(loc))
		if _, err := os.Stat(to); err == nil {
			continue
		}
		if !copyFiles {
			missing = append(missing, loc)
			continue
		}
		if err := copyFile(from, to); err != nil {
			l.Errorf(diag.Pos{File: from}, "onnx-external-data", "cannot copy external data to %s: %v", to, err)
		}
	}
	if len(missing) > 0 {
		l.Errorf(diag.Pos{File: model}, "onnx-external-data", "the model keeps tensor data in %s, found relative to the model's directory; %s would not find it in %s. Write the output next to the model, copy the files there, or pass --copy-external-data",
			strings.Join(missing, ", "), out, dst)
	}
}

func sameDir(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return atomicfile.ReplaceFrom(to, in, 0o644)
}

// callerList names each runtime rewrite onnx --for takes: "<target>
// (<its CallerSummary>), ...".
func callerList(callers map[string]target.ONNXCaller) string {
	var l []string
	for _, name := range slices.Sorted(maps.Keys(callers)) {
		l = append(l, name+" ("+callers[name].CallerSummary()+")")
	}
	return strings.Join(l, ", ")
}
