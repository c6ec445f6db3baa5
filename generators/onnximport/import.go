package onnximport

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// Options of an import.
type Options struct {
	Selection
	// Package identity; empty fields get defaults (DefaultPackage).
	Package, Domain, Version string
	// Namespace is the plugin namespace; nil is the domain, and "" the
	// empty namespace (a runtime's own plugins and its parser's default).
	Namespace *string
	// Targets the ops generate for (Targets; default
	// DefaultImportTargets of the registry).
	Targets []string
	// Rename maps an op type to the op (plugin) name it gets.
	Rename map[string]string
	// AllowStandardNames lets an op be named like a standard ONNX op, for
	// a runtime told to let plugins override built-in ops (the target's
	// NodeReader.StandardNameRule says how).
	AllowStandardNames bool
	// Source is the path the opdef will be written to.
	Source string
}

// Call ties a selected node to the op it becomes.
type Call struct {
	Node *onnx.Node
	Op   *ir.Op
	// key is the node's keyer key ("" when it has none), which Plan
	// reuses.
	key string
}

// Result is an imported package and, per selected node in model order,
// the op it calls.
type Result struct {
	Package *ir.Package
	Calls   []Call
}

// Targets the imported ops may generate for.
var Targets = registry.ImportTargets

// DefaultPackage derives a package name (an identifier) and a lower-case
// directory and domain name from the model's file name.
func DefaultPackage(modelPath string) (name, dir string) {
	stem := strings.TrimSuffix(filepath.Base(modelPath), filepath.Ext(modelPath))
	words := strings.FieldsFunc(stem, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	if len(words) == 0 {
		words = []string{"onnx"}
	}
	if c := words[0][0]; c >= '0' && c <= '9' {
		words = append([]string{"model"}, words...)
	}
	var camel, snake []string
	for _, w := range words {
		camel = append(camel, strings.ToUpper(w[:1])+w[1:])
		snake = append(snake, strings.ToLower(w))
	}
	return strings.Join(camel, ""), strings.Join(snake, "_")
}

// Import makes the op package for the selected nodes of m (read from
// path). It returns nil, with the reasons in l, when nothing can be made.
func Import(m *onnx.Model, path string, opts Options, l *diag.List) *Result {
	nodes := Select(m, path, opts.Selection, l)
	if len(nodes) == 0 || l.HasErrors() {
		return nil
	}
	targets := opts.Targets
	if len(targets) == 0 {
		targets = registry.DefaultImportTargets
	}
	im := &importer{path: path, l: l, errs: newCapped(l, path), scopes: newScopes(nodes), readers: registry.NodeReaders(), reserved: map[string]bool{}}
	// Trailing optional inputs join only when every target's runtime
	// takes them left out; a target that reads no node never does.
	takes := map[string]bool{}
	for _, r := range im.readers {
		for a := range r.ReservedAttrs() {
			im.reserved[a] = true
		}
		if slices.Contains(targets, r.Name) {
			im.concerned = append(im.concerned, r)
		}
		takes[r.Name] = r.TakesOptionalInputs()
	}
	joinOptional := true
	for _, t := range targets {
		joinOptional = joinOptional && takes[t]
	}
	var groups []*group
	byKey := map[string]*group{}
	groupOf := make(map[*onnx.Node]*group, len(nodes))
	memo := map[string]*derived{}
	keys := &keyer{sc: im.scopes}
	keyOf := make([]string, len(nodes))
	for i, n := range nodes {
		key, ok := keys.key(n)
		if ok {
			// Type ids are this import's: Plan tells its own apart.
			keyOf[i] = "i" + key
		}
		d := memo[key]
		if d == nil || !ok {
			if deriveHook != nil {
				deriveHook()
			}
			d = im.derive(n)
		}
		if d == nil {
			continue
		}
		if ok {
			memo[key] = d
		}
		g := byKey[d.key]
		if g == nil {
			g = &group{derived: d}
			byKey[d.key] = g
			groups = append(groups, g)
		}
		g.nodes = append(g.nodes, n)
		groupOf[n] = g
	}
	im.errs.flush()
	if l.HasErrors() {
		return nil
	}
	if joinOptional {
		groups = mergeOptional(groups)
	}
	groups = mergeRanks(groups)
	for _, g := range groups {
		for _, n := range g.nodes {
			groupOf[n] = g
		}
	}
	pkg := newPackage(path, opts)
	im.name(groups, opts, m, pkg)
	if l.HasErrors() {
		return nil
	}
	res := &Result{Package: pkg}
	for _, g := range groups {
		op := g.op
		op.Description = describe(g, path)
		op.Sections = opSections(targets, g.nodes[0].OpType, op.Name)
		for _, r := range im.readers {
			r.KeepIdentity(pkg, op, g.nodes[0])
		}
		pkg.Ops = append(pkg.Ops, op)
		for _, note := range g.notes {
			l.Warnf(diag.Pos{File: path}, note.code, "op %s (node %s): %s", op.Name, label(g.nodes[0]), note.msg)
		}
	}
	for i, n := range nodes {
		if g := groupOf[n]; g != nil {
			res.Calls = append(res.Calls, Call{Node: n, Op: g.op, key: keyOf[i]})
		}
	}
	return res
}

// deriveHook, when set (by tests), is called for every node derived.
var deriveHook func()

// origin is where an op's reference comes from when nobody wrote one: the
// node's op type run by onnx.reference.ReferenceEvaluator, which implements
// the standard ONNX ops and runs a model's functions. A custom op the model
// does not define as a function has none (nil). The model path is written
// relative to the opdef's directory (the working directory for -o -).
func origin(n *onnx.Node, m *onnx.Model, model, opdef string) *ir.ONNXOrigin {
	evaluable := onnx.IsDefaultDomain(n.Domain)
	for _, f := range m.Functions {
		evaluable = evaluable || f.Name == n.OpType && f.Domain == n.Domain
	}
	// Only text an opdef can hold and a Python string can carry.
	if !evaluable || !utf8.ValidString(n.OpType+n.Domain+model) {
		return nil
	}
	dir := "."
	if opdef != "" && opdef != "-" {
		dir = filepath.Dir(opdef)
	}
	rel := filepath.ToSlash(model)
	absDir, err1 := filepath.Abs(dir)
	absModel, err2 := filepath.Abs(model)
	if err1 == nil && err2 == nil {
		if r, err := filepath.Rel(absDir, absModel); err == nil {
			rel = filepath.ToSlash(r)
		} else {
			rel = filepath.ToSlash(absModel)
		}
	}
	return &ir.ONNXOrigin{Model: rel, OpType: n.OpType, Domain: n.Domain}
}

func newPackage(path string, opts Options) *ir.Package {
	name, dir := DefaultPackage(path)
	pkg := &ir.Package{
		Name: opts.Package, Domain: opts.Domain, Version: opts.Version,
		Source: opts.Source,
	}
	if pkg.Name == "" {
		pkg.Name = name
	}
	if pkg.Domain == "" {
		pkg.Domain = dir
		if opts.Package != "" {
			pkg.Domain = strings.ToLower(opts.Package)
		}
	}
	if pkg.Version == "" {
		pkg.Version = "1.0.0"
	}
	pkg.Namespace = pkg.Domain
	if opts.Namespace != nil {
		pkg.Namespace = *opts.Namespace
	}
	return pkg
}

func opSections(targets []string, opType, name string) ir.Sections {
	var secs ir.Sections
	// In the registry's order, whatever the order asked for: the order
	// the sections are written in.
	importers := registry.Importers()
	for _, tg := range registry.All() {
		if im := importers[tg.Name()]; im != nil && slices.Contains(targets, tg.Name()) {
			secs.Add(tg.Name(), im.ImportSection(opType, name), diag.Pos{})
		}
	}
	return secs
}

func describe(g *group, path string) string {
	n := g.nodes[0]
	what := fmt.Sprintf("op type %s", n.OpType)
	if !onnx.IsDefaultDomain(n.Domain) {
		what = fmt.Sprintf("op type %s of domain %s", n.OpType, n.Domain)
	}
	var list []string
	for i, x := range g.nodes {
		if i == 5 {
			list = append(list, fmt.Sprintf("and %d more", len(g.nodes)-5))
			break
		}
		if x.Name != "" {
			list = append(list, x.Name)
		} else {
			list = append(list, label(x))
		}
	}
	// Names in a model are bytes; the opdef is UTF-8 text.
	return strings.ToValidUTF8(fmt.Sprintf("Imported from ONNX %s in %s (nodes: %s).", what, filepath.Base(path), strings.Join(list, ", ")), "\uFFFD")
}

// label names a node briefly: its name, or its position when unnamed.
func label(n *onnx.Node) string {
	if n.Name != "" {
		return strconv.Quote(n.Name)
	}
	return "#" + strconv.Itoa(n.Index)
}

type importer struct {
	path string
	l    *diag.List
	// errs reports the errors about nodes, capped per code.
	errs   *capped
	scopes scopes
	// readers are every target's node reader (target.NodeReader);
	// reserved, the attributes some target's runtime reads itself;
	// concerned, the readers of the targets asked for.
	readers   []registry.NamedNodeReader
	reserved  map[string]bool
	concerned []registry.NamedNodeReader
}

// note is a warning about an op, emitted once for all its nodes.
type note struct{ code, msg string }

// derived is the op one node would become.
type derived struct {
	op    *ir.Op
	key   string
	notes []note
	// identity is what the node names of its callee beyond its op type,
	// as every target's runtime reads it (target.NodeReader): a node made
	// for an existing plugin (a vendor's own plugin, under its version in
	// the empty namespace) keeps naming it after `rewrite onnx`.
	identity string
}

type group struct {
	*derived
	nodes []*onnx.Node
}

func (im *importer) errorf(n *onnx.Node, code, format string, args ...any) {
	im.errs.errorf(code, "%s: %s", n, fmt.Sprintf(format, args...))
}

// derive types and shapes the op node n would become; nil when it cannot
// be imported (the reasons are in the list).
func (im *importer) derive(n *onnx.Node) *derived {
	switch {
	case n.OpType == "":
		im.errorf(n, "onnx-node", "the node has no op type; the model is invalid")
		return nil
	case len(n.Outputs) == 0:
		im.errorf(n, "onnx-node", "the node has no outputs; a plugin must produce at least one")
		return nil
	}
	d := &derived{op: &ir.Op{}}
	sh := &shaper{sym: map[string]string{}, taken: map[string]bool{}}
	inputs := n.Inputs
	for len(inputs) > 0 && inputs[len(inputs)-1] == "" {
		inputs = inputs[:len(inputs)-1]
	}
	// Attribute names are fixed (they are the creator's field names);
	// tensors are named by position, around them.
	for _, a := range n.Attributes {
		sh.taken[a.Name] = true
	}
	inNames := make([]string, len(inputs))
	for i := range inputs {
		inNames[i] = sh.unique(fmt.Sprintf("input%d", i))
	}
	outNames := make([]string, len(n.Outputs))
	for i := range n.Outputs {
		outNames[i] = sh.unique(fmt.Sprintf("output%d", i))
	}
	ok := true
	for _, a := range n.Attributes {
		if im.reserved[a.Name] {
			continue
		}
		p, why := paramFor(a)
		if p == nil {
			im.errorf(n, "onnx-attr-type", "attribute %q is %s, so it cannot become a plugin param; a node with graph attributes (If, Loop, Scan) cannot be a plugin", a.Name, why)
			ok = false
			continue
		}
		if !paramNameRE(a.Name) {
			im.errorf(n, "onnx-attr-type", "attribute name %q cannot be a param name (letters, digits and _.:[]()/+- only)", a.Name)
			ok = false
			continue
		}
		for _, r := range im.concerned {
			if why := r.AttrConcern(a); why != "" {
				d.notes = append(d.notes, note{"onnx-attr-" + r.Name, fmt.Sprintf("attribute %q: %s", a.Name, why)})
			}
		}
		d.op.Params = append(d.op.Params, p)
	}
	for i, in := range inputs {
		name := inNames[i]
		if in == "" {
			im.errorf(n, "onnx-input-omitted", "input %d is omitted (an empty name) before later inputs; a plugin has a fixed list of inputs, so give it a value or import another node", i)
			ok = false
			continue
		}
		v, found := im.scopes.lookup(n.Graph, in)
		t := im.tensor(n, name, fmt.Sprintf("input %d (%q)", i, in), v.typ, found)
		if t == nil {
			ok = false
			continue
		}
		t.Static = v.static
		if t.Shape != nil {
			for j, dim := range v.typ.Shape {
				t.Shape[j] = &ir.Dim{Expr: sh.inputDim(dim, name, j)}
			}
		}
		d.op.Inputs = append(d.op.Inputs, t)
	}
	if !ok {
		return nil
	}
	for k, out := range n.Outputs {
		name := outNames[k]
		if out == "" {
			im.errorf(n, "onnx-input-omitted", "output %d is omitted (an empty name); a plugin produces every output it declares", k)
			return nil
		}
		v, found := im.scopes.lookup(n.Graph, out)
		if !found || v.typ == nil {
			t := im.guessOutput(d, name, out)
			if t == nil {
				im.errorf(n, "onnx-untyped", "output %d (%q) has no type in the graph and the node has no input to copy one from", k, out)
				return nil
			}
			d.op.Outputs = append(d.op.Outputs, t)
			continue
		}
		t := im.tensor(n, name, fmt.Sprintf("output %d (%q)", k, out), v.typ, true)
		if t == nil {
			return nil
		}
		var guessed []string
		for j, dim := range v.typ.Shape {
			e := sh.outputDim(dim)
			if e == nil {
				e = guessDim(d.op.Inputs, len(v.typ.Shape), j)
				what := "unknown"
				if dim.Param != "" {
					what = strconv.Quote(dim.Param)
				}
				guessed = append(guessed, fmt.Sprintf("dim %d (%s in the graph) as %s", j, what, e))
			}
			t.Shape[j] = &ir.Dim{Expr: e}
		}
		if len(guessed) > 0 {
			t.Description = "TODO(opforge import): guessed " + strings.Join(guessed, ", ") + "; write the expression over the input dims and params."
			d.notes = append(d.notes, note{"onnx-output-shape", fmt.Sprintf("the graph does not relate %s %s to the input dims; opforge guessed %s. Edit the shape in the opdef", name, fmt.Sprintf("(%q)", out), strings.Join(guessed, ", "))})
		}
		d.op.Outputs = append(d.op.Outputs, t)
	}
	for _, r := range im.readers {
		d.identity += r.NodeIdentity(n)
	}
	// Nodes naming different callees never share an op.
	d.key = signature(n, d.op) + "|id " + d.identity
	return d
}

// paramNameRE is the opdef schema's pattern for tensor and param names.
func paramNameRE(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.:[]()/+-", r)) {
			return false
		}
	}
	return true
}

// tensor makes the opforge tensor of a value of type typ (shape dims are
// left for the caller); nil when the value cannot be a plugin tensor.
func (im *importer) tensor(n *onnx.Node, name, what string, typ *onnx.Type, found bool) *ir.Tensor {
	switch {
	case !found || typ == nil:
		im.errorf(n, "onnx-untyped", "%s has no type in the graph; run ONNX shape inference first (onnx.shape_inference.infer_shapes_path(%q, OUT)) so every value feeding the node is typed", what, filepath.Base(im.path))
		return nil
	case typ.Kind != onnx.TypeTensor:
		im.errorf(n, "onnx-type", "%s is a %s; plugins take and produce dense tensors", what, typ)
		return nil
	}
	dt, ok := dtypes[typ.Elem]
	if !ok {
		im.errorf(n, "onnx-type", "%s has element type %s, which has no opforge dtype", what, typ.Elem)
		return nil
	}
	t := &ir.Tensor{Name: name, Ident: name, Type: ir.TypeRef{DTypes: []ir.DType{dt}}, Rank: ir.RankAny}
	if typ.Ranked {
		t.Rank = len(typ.Shape)
		t.Shape = make([]*ir.Dim, len(typ.Shape))
	}
	return t
}

// guessOutput types an output the graph does not type as a copy of the
// first input, with a warning: exporters rarely type custom ops' outputs,
// and an op that validates with a marked guess is a better start than
// none.
func (im *importer) guessOutput(d *derived, name, value string) *ir.Tensor {
	if len(d.op.Inputs) == 0 {
		return nil
	}
	in := d.op.Inputs[0]
	t := &ir.Tensor{Name: name, Ident: name, Type: in.Type, Rank: in.Rank}
	if in.Shape != nil {
		t.Shape = make([]*ir.Dim, len(in.Shape))
		for j, dim := range in.Shape {
			t.Shape[j] = &ir.Dim{Expr: dim.Expr}
		}
	}
	t.Description = "TODO(opforge import): the model does not type this output; its dtype and shape are copied from " + in.Name + "."
	d.notes = append(d.notes, note{"onnx-output-type", fmt.Sprintf("%s (%q) has no type in the graph; opforge gave it the dtype and shape of %s. Check them in the opdef, or add value_info for it to the model", name, value, in.Name)})
	return t
}

// guessDim is the dim an unrelated output dim j gets: dim j of the first
// input of the output's rank, else of the first input that has a dim j,
// else 1.
func guessDim(inputs []*ir.Tensor, rank, j int) *shapeexpr.Expr {
	for _, sameRank := range []bool{true, false} {
		for _, in := range inputs {
			if in.Shape != nil && len(in.Shape) > j && (!sameRank || len(in.Shape) == rank) {
				return in.Shape[j].Expr
			}
		}
	}
	return &shapeexpr.Expr{Kind: shapeexpr.Const, Value: 1}
}

// shaper turns ONNX dims into opforge dims: input dims are constants or
// symbols (a dim_param keeps its name when it is a safe identifier);
// output dims are constants, input symbols, or expressions over them when
// the exporter wrote one as a dim_param ("2*s0").
type shaper struct {
	sym   map[string]string // dim_param -> symbol
	taken map[string]bool   // tensor, param and symbol names
}

func (s *shaper) unique(base string) string {
	name := base
	for i := 2; s.taken[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	s.taken[name] = true
	return name
}

func (s *shaper) inputDim(d onnx.Dim, tensor string, j int) *shapeexpr.Expr {
	if d.HasValue && d.Value >= 0 {
		return &shapeexpr.Expr{Kind: shapeexpr.Const, Value: d.Value}
	}
	if d.Param != "" {
		if sym, ok := s.sym[d.Param]; ok {
			return &shapeexpr.Expr{Kind: shapeexpr.Sym, Name: sym}
		}
	}
	base := fmt.Sprintf("%s_d%d", tensor, j)
	if names.IsIdent(d.Param) && names.Reserved(d.Param) == "" {
		base = d.Param
	}
	sym := s.unique(base)
	if d.Param != "" {
		s.sym[d.Param] = sym
	}
	return &shapeexpr.Expr{Kind: shapeexpr.Sym, Name: sym}
}

func (s *shaper) outputDim(d onnx.Dim) *shapeexpr.Expr {
	switch {
	case d.HasValue && d.Value >= 0:
		return &shapeexpr.Expr{Kind: shapeexpr.Const, Value: d.Value}
	case d.Param == "":
		return nil
	}
	if sym, ok := s.sym[d.Param]; ok {
		return &shapeexpr.Expr{Kind: shapeexpr.Sym, Name: sym}
	}
	e, err := shapeexpr.Parse(d.Param)
	if err != nil || len(e.Symbols()) == 0 {
		return nil
	}
	for _, x := range e.Symbols() {
		if x.Kind != shapeexpr.Sym || s.sym[x.Name] == "" {
			return nil
		}
	}
	return rename(e, func(n string) string { return s.sym[n] })
}

// rename copies e with every symbol renamed by f.
func rename(e *shapeexpr.Expr, f func(string) string) *shapeexpr.Expr {
	c := *e
	if c.Kind == shapeexpr.Sym || c.Kind == shapeexpr.Index {
		c.Name = f(c.Name)
	}
	c.Args = make([]*shapeexpr.Expr, len(e.Args))
	for i, a := range e.Args {
		c.Args[i] = rename(a, f)
	}
	return &c
}

// signature is the op's identity for sharing: op type and domain, then
// every tensor's dtype, staticness and dims, and every param's name and
// type. Symbols are numbered in order of first use, so nodes whose dims
// have different names but the same structure share an op.
func signature(n *onnx.Node, op *ir.Op) string { return signatureN(n, op, len(op.Inputs)) }

// signatureN is the signature of op as if it had only its first k inputs.
func signatureN(n *onnx.Node, op *ir.Op, k int) string {
	canon := map[string]string{}
	ref := func(name string) string {
		if c, ok := canon[name]; ok {
			return c
		}
		canon[name] = "$" + strconv.Itoa(len(canon))
		return canon[name]
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s::%s", n.Domain, n.OpType)
	tensor := func(kind string, t *ir.Tensor) {
		fmt.Fprintf(&sb, "|%s %s static=%v rank=%d", kind, t.Type.DTypes[0], t.Static, t.Rank)
		for _, d := range t.Shape {
			sb.WriteString(" " + rename(d.Expr, ref).String())
		}
	}
	for _, t := range op.Inputs[:k] {
		tensor("in", t)
	}
	for _, p := range op.Params {
		fmt.Fprintf(&sb, "|param %s %s %v rank=%d", p.Name, p.Kind, p.DTypes, p.Rank)
	}
	for _, t := range op.Outputs {
		tensor("out", t)
	}
	return sb.String()
}

// name gives every group its op name: the op type (or its --rename),
// made an identifier, with _2, _3... for further signatures of one op
// type. Names that a runtime's parser would resolve to something else
// than the plugin are refused (target.NodeReader's name rules).
func (im *importer) name(groups []*group, opts Options, m *onnx.Model, pkg *ir.Package) {
	used := map[string]bool{}
	renamed := map[string]bool{}
	standard := map[string][]string{} // op name -> op types
	functions := map[string]bool{}
	for _, f := range m.Functions {
		functions[f.Name] = true
	}
	// What the runtimes say of names taken by standard ops and the
	// model's functions (every registered reader's, whatever --targets).
	var standardRules, functionRules []string
	for _, r := range im.readers {
		if why := r.StandardNameRule(); why != "" {
			standardRules = append(standardRules, why)
		}
		if why := r.FunctionNameRule(); why != "" {
			functionRules = append(functionRules, why)
		}
	}
	for _, g := range groups {
		opType := g.nodes[0].OpType
		base := opType
		if r, ok := opts.Rename[opType]; ok {
			base, renamed[opType] = r, true
		}
		base = names.Ident(base)
		name := base
		for i := 2; used[strings.ToLower(name)]; i++ {
			name = base + "_" + strconv.Itoa(i)
		}
		used[strings.ToLower(name)] = true
		g.op.Name = name
		g.op.ONNX = origin(g.nodes[0], m, im.path, opts.Source)
		if _, std := onnx.StandardOp(name); std && !opts.AllowStandardNames && len(standardRules) > 0 {
			standard[name] = append(standard[name], opType)
		}
		if functions[name] && len(functionRules) > 0 {
			im.l.Errorf(diag.Pos{File: im.path}, "onnx-function-name", "op %s has the name of a function of the model; %s: pass --rename %s=%sPlugin", name, strings.Join(functionRules, "; "), opType, name)
		}
	}
	if len(standard) > 0 {
		var list, fix []string
		for name, types := range standard {
			list = append(list, name)
			fix = append(fix, types[0]+"="+name+"Plugin")
		}
		sort.Strings(list)
		sort.Strings(fix)
		im.l.Errorf(diag.Pos{File: im.path}, "onnx-standard-name", "standard ONNX op names: %s. %s. Pass --rename %s, or --allow-standard-names if you build with that flag",
			strings.Join(list, ", "), strings.Join(standardRules, "; "), strings.Join(fix, ","))
	}
	var unused []string
	for t := range opts.Rename {
		if !renamed[t] {
			unused = append(unused, t)
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		im.l.Warnf(diag.Pos{File: im.path}, "onnx-select", "--rename names op type %s, which no selected node has", strings.Join(unused, ", "))
	}
}
