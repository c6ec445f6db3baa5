package yamldef

import (
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/shapeexpr"
	"github.com/opforge/opforge/generators/workpool"
)

// builder turns a schema-valid document into the IR. The schema already
// guaranteed the shapes of values, so the builder only resolves meaning
// (dtypes, expressions, param kinds) and records positions.
type builder struct {
	file string
	l    *diag.List
	// lines of the source, to place the first body line of a literal
	// block scalar (free text checked line by line).
	lines []string
	// quiet reports, after pkg, which ops built with no diagnostic.
	quiet []bool
}

func (b *builder) pos(n *yaml.Node) diag.Pos {
	if n == nil {
		return diag.Pos{File: b.file}
	}
	return diag.Pos{File: b.file, Line: n.Line, Col: n.Column}
}

// object is a mapping node with its members looked up by key: keys and
// vals in order, the first of a duplicated key kept. An opdef's mappings
// are small (an op, a tensor, a param: a dozen keys at most), where a
// scan beats hashing and a map per node costs a thousand-op file
// thousands of allocations; index is made only for a large one.
type object struct {
	node  *yaml.Node
	keys  []string
	vals  []*yaml.Node
	index map[string]int // nil: scan keys
}

// objectIndexFrom is the size from which an object is looked up by map.
const objectIndexFrom = 16

func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxDepth; i++ {
		n = n.Alias
	}
	return n
}

func asObject(n *yaml.Node) object {
	n = resolve(n)
	o := object{node: n}
	if n == nil || n.Kind != yaml.MappingNode {
		return o
	}
	size := len(n.Content) / 2
	o.keys, o.vals = make([]string, 0, size), make([]*yaml.Node, 0, size)
	if size >= objectIndexFrom {
		o.index = make(map[string]int, size)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if o.at(k.Value) >= 0 {
			continue
		}
		if o.index != nil {
			o.index[k.Value] = len(o.keys)
		}
		o.keys = append(o.keys, k.Value)
		o.vals = append(o.vals, resolve(n.Content[i+1]))
	}
	return o
}

// at is key's index in o.keys (-1: none).
func (o object) at(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

func (o object) get(key string) *yaml.Node {
	if i := o.at(key); i >= 0 {
		return o.vals[i]
	}
	return nil
}

func (o object) str(key string) string {
	if n := o.get(key); n != nil && n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return ""
}

// boolean and optBool decode through yaml.v3, so every YAML spelling of a
// boolean the schema accepted (true, True, TRUE) reads the same.
func (o object) boolean(key string) bool {
	v := o.optBool(key)
	return v != nil && *v
}

func (o object) optBool(key string) *bool {
	if n := o.get(key); n != nil {
		var v bool
		if err := n.Decode(&v); err != nil {
			return nil
		}
		return &v
	}
	return nil
}

// optFloat decodes a number, nil when absent.
func (o object) optFloat(key string) *float64 {
	if n := o.get(key); n != nil {
		var v float64
		if err := n.Decode(&v); err == nil {
			return &v
		}
	}
	return nil
}

// integer decodes an integer scalar in any YAML 1.2 spelling (0x1, 1_000).
func (o object) integer(key string) int {
	var v int
	if n := o.get(key); n != nil {
		_ = n.Decode(&v)
	}
	return v
}

func (o object) items(key string) []*yaml.Node {
	n := o.get(key)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = resolve(c)
	}
	return out
}

func (o object) strings(key string) []string {
	var out []string
	for _, n := range o.items(key) {
		out = append(out, n.Value)
	}
	return out
}

func (b *builder) where(o object) ir.Where {
	w := make(ir.Where, 0, len(o.keys))
	for i, k := range o.keys {
		n := o.vals[i]
		w.Set(k, b.pos(n))
		if n != nil && n.Kind == yaml.ScalarNode && n.Style&yaml.LiteralStyle != 0 && strings.TrimSpace(n.Value) != "" {
			// A literal block keeps its lines: line i of the value is
			// line i of the body, which starts below the indicator. A
			// block with no text has no body line: the next non-blank
			// line is another key's, or another op's (whose model would
			// then depend on what follows it, ircodec).
			if p, ok := b.bodyPos(n.Line + 1); ok {
				w.Set(k+ir.LiteralBody, p)
			}
		}
	}
	return w
}

// bodyPos is the position of the first non-blank line at or after line,
// at its first non-space character.
func (b *builder) bodyPos(line int) (diag.Pos, bool) {
	for ; line >= 1 && line <= len(b.lines); line++ {
		t := strings.TrimRight(b.lines[line-1], "\r")
		if strings.TrimSpace(t) != "" {
			return diag.Pos{File: b.file, Line: line, Col: 1 + len(t) - len(strings.TrimLeft(t, " "))}, true
		}
	}
	return diag.Pos{}, false
}

func (b *builder) pkg(root *yaml.Node) *ir.Package {
	doc := asObject(root)
	p := asObject(doc.get("package"))
	pkg := &ir.Package{
		Name:      p.str("name"),
		Domain:    p.str("domain"),
		Version:   p.str("version"),
		Namespace: p.str("namespace"),
		Source:    b.file,
		Pos:       b.pos(p.node),
		Where:     b.where(p),
	}
	// Absent, the namespace is the domain; written "", it is the empty
	// namespace (where a runtime's own plugins live, and where it looks
	// plugins up by default).
	if p.get("namespace") == nil {
		pkg.Namespace = pkg.Domain
	}
	pkg.Acknowledged = b.acknowledged(p)
	targets := asObject(doc.get("targets"))
	for _, name := range targets.keys {
		n := targets.get(name)
		// Every target's section is its own to decode.
		pkg.Sections.Add(name, b.section(n), b.pos(n))
	}
	// Ops build on every core, each with a diagnostics list of its own,
	// joined in op order as a serial build would give them.
	items := doc.items("ops")
	ops := make([]*ir.Op, len(items))
	lists := make([]diag.List, len(items))
	workpool.Parallel(len(items), func(i int) {
		ob := &builder{file: b.file, l: &lists[i], lines: b.lines}
		ops[i] = ob.op(asObject(items[i]))
	})
	b.quiet = make([]bool, len(items))
	for i := range lists {
		b.quiet[i] = lists[i].Len() == 0
		b.l.Merge(&lists[i])
	}
	if len(ops) > 0 {
		pkg.Ops = ops
	}
	return pkg
}

func (b *builder) constraints(ns []*yaml.Node) []ir.Constraint {
	var out []ir.Constraint
	for _, n := range ns {
		o := asObject(n)
		out = append(out, ir.Constraint{ID: o.integer("id"), Type: o.str("type"), Text: o.str("text"), Pos: b.pos(n)})
	}
	return out
}

func (b *builder) op(o object) *ir.Op {
	op := &ir.Op{
		Name:        o.str("name"),
		Description: o.str("description"),
		Pos:         b.pos(o.node),
		Where:       b.where(o),
	}
	op.UseDefaultTranslation = o.optBool("use_default_translation")
	for _, n := range o.items("references") {
		r := asObject(n)
		op.References = append(op.References, ir.Reference{Source: r.str("source"), URL: r.str("url"), Text: r.str("text")})
	}
	if n := o.get("verify"); n != nil {
		x := asObject(n)
		op.Verify = &ir.VerifyTolerance{Rtol: x.optFloat("rtol"), Atol: x.optFloat("atol")}
		sz := asObject(x.get("sizes"))
		for _, k := range sz.keys {
			d := resolve(sz.get(k))
			op.Verify.Sizes = append(op.Verify.Sizes, ir.VerifySize{Symbol: k, Pos: b.keyPos(sz.node, k), Value: &ir.Dim{Expr: b.expr(d), Pos: b.exprPos(d)}})
		}
		for _, n := range x.items("cases") {
			op.Verify.Cases = append(op.Verify.Cases, b.verifyCase(n))
		}
	}
	if n := o.get("onnx"); n != nil {
		x := asObject(n)
		op.ONNX = &ir.ONNXOrigin{Model: x.str("model"), OpType: x.str("op_type"), Domain: x.str("domain"), Pos: b.pos(n)}
		if mp := x.get("model"); mp != nil {
			op.ONNX.Pos = b.pos(mp)
		}
		op.ONNX.ModelPath = op.ONNX.Model
		if !filepath.IsAbs(filepath.FromSlash(op.ONNX.Model)) {
			op.ONNX.ModelPath = filepath.ToSlash(filepath.Join(filepath.Dir(b.file), filepath.FromSlash(op.ONNX.Model)))
		}
	}
	if n := o.get("torch"); n != nil {
		x := asObject(n)
		op.Torch = &ir.TorchOrigin{Module: x.str("module"), Op: x.str("op"), Pos: b.pos(n)}
		if k := x.get("triton"); k != nil {
			op.Torch.Triton = b.tritonKernel(k)
		}
	}
	types := asObject(o.get("types"))
	for _, name := range types.keys {
		n := types.get(name)
		tv := &ir.TypeVar{Name: name, Pos: b.keyPos(types.node, name)}
		for _, d := range n.Content {
			tv.Allowed = append(tv.Allowed, b.dtype(resolve(d)))
			tv.AllowedPos = append(tv.AllowedPos, b.pos(d))
		}
		op.TypeVars = append(op.TypeVars, tv)
	}
	for _, n := range o.items("inputs") {
		op.Inputs = append(op.Inputs, b.tensor(asObject(n)))
	}
	for _, n := range o.items("outputs") {
		op.Outputs = append(op.Outputs, b.tensor(asObject(n)))
	}
	for _, n := range o.items("params") {
		op.Params = append(op.Params, b.param(asObject(n)))
	}
	dd := asObject(o.get("data_dependent"))
	for _, name := range dd.keys {
		so := asObject(dd.get(name))
		s := &ir.SizeSymbol{Name: name, Pos: b.keyPos(dd.node, name), Where: b.where(so)}
		s.Upper = b.expr(so.get("upper"))
		s.Where.Set("upper", b.exprPos(so.get("upper")))
		if so.get("opt") != nil {
			s.Opt = b.expr(so.get("opt"))
			s.Where.Set("opt", b.exprPos(so.get("opt")))
		}
		op.DataDependent = append(op.DataDependent, s)
	}
	op.Requires = b.requires(o.items("requires"))
	b.targets(op, o.get("targets"))
	op.Acknowledged = b.acknowledged(o)
	op.LastLine = lastLine(o.node)
	return op
}

// acknowledged reads the warning codes a mapping acknowledges.
func (b *builder) acknowledged(o object) []ir.Acknowledgement {
	var out []ir.Acknowledgement
	for _, n := range o.items("acknowledge") {
		out = append(out, ir.Acknowledgement{Code: n.Value, Pos: b.pos(n)})
	}
	return out
}

// lastLine is the last line any node of n's tree starts on.
func lastLine(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	last := n.Line
	for _, c := range n.Content {
		last = max(last, lastLine(c))
	}
	return last
}

// verifyCase reads one case of an op's verify section.
func (b *builder) verifyCase(n *yaml.Node) ir.VerifyCase {
	co := asObject(n)
	vc := ir.VerifyCase{Pos: b.pos(n), Name: co.str("name")}
	if nn := co.get("name"); nn != nil {
		vc.NamePos = b.pos(nn)
	}
	dims := asObject(co.get("dims"))
	for _, k := range dims.keys {
		var v int64
		_ = dims.get(k).Decode(&v)
		vc.Dims = append(vc.Dims, ir.VerifyDim{Symbol: k, Value: v, Pos: b.keyPos(dims.node, k)})
	}
	shapes := asObject(co.get("shapes"))
	for _, k := range shapes.keys {
		s := ir.VerifyShape{Input: k, Pos: b.keyPos(shapes.node, k), Dims: []int64{}}
		for _, d := range asItems(shapes.get(k)) {
			var v int64
			_ = d.Decode(&v)
			s.Dims = append(s.Dims, v)
		}
		vc.Shapes = append(vc.Shapes, s)
	}
	params := asObject(co.get("params"))
	for _, k := range params.keys {
		vc.Params = append(vc.Params, ir.VerifyParam{Name: k, Pos: b.keyPos(params.node, k), Value: b.literal(params.get(k))})
	}
	types := asObject(co.get("types"))
	for _, k := range types.keys {
		v := types.get(k)
		vc.Types = append(vc.Types, ir.VerifyType{Name: k, DType: ir.DType(v.Value), Pos: b.keyPos(types.node, k), ValuePos: b.pos(v)})
	}
	return vc
}

// asItems are a sequence node's items, aliases resolved.
func asItems(n *yaml.Node) []*yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = resolve(c)
	}
	return out
}

func (b *builder) keyPos(mapping *yaml.Node, key string) diag.Pos {
	if mapping != nil {
		for i := 0; i+1 < len(mapping.Content); i += 2 {
			if mapping.Content[i].Value == key {
				return b.pos(mapping.Content[i])
			}
		}
	}
	return b.pos(mapping)
}

func (b *builder) targets(op *ir.Op, n *yaml.Node) {
	if n == nil {
		// No targets section: the op generates for every target.
		for _, name := range opTargetNames() {
			op.Sections.Add(name, nil, op.Pos)
		}
		return
	}
	// Every target's section is its own to decode, less the narrowing of
	// the op's dtypes and ranks for that target, which the core owns.
	t := asObject(n)
	for _, name := range t.keys {
		n := t.get(name)
		node, narrow := ir.TakeNarrowing(b.section(n))
		op.Sections.Add(name, node, b.pos(n)).Narrow = narrow
	}
}

func (b *builder) dtype(n *yaml.Node) ir.DType {
	d := ir.DType(n.Value)
	if !d.Valid() {
		b.l.Errorf(b.pos(n), "unknown-dtype", "unknown dtype %q; known dtypes: %s", n.Value, strings.Join(ir.DTypeNames(), ", "))
	}
	return d
}

func (b *builder) tensor(o object) *ir.Tensor {
	t := &ir.Tensor{
		Name:             o.str("name"),
		Description:      o.str("description"),
		Layout:           ir.Layout(o.str("layout")),
		ShapeText:        o.str("shape_text"),
		DynamicShapeText: o.str("dynamic_shape_text"),
		Optional:         o.boolean("optional"),
		Variadic:         o.boolean("variadic"),
		Count:            o.str("count"),
		Static:           o.boolean("static"),
		ShapeTensor:      o.boolean("shape_tensor"),
		DTypeParam:       o.str("dtype_param"),
		Pos:              b.pos(o.node),
		Where:            b.where(o),
	}
	t.Ident = names.Ident(t.Name)
	if n := o.get("type"); n != nil {
		if n.Kind == yaml.SequenceNode {
			for i, d := range n.Content {
				t.Type.DTypes = append(t.Type.DTypes, b.dtype(resolve(d)))
				t.Where.Set("type["+strconv.Itoa(i)+"]", b.pos(d))
			}
		} else if ir.DType(n.Value).Valid() {
			t.Type.DTypes = []ir.DType{ir.DType(n.Value)}
		} else {
			// A type variable; the validator reports it if undeclared.
			t.Type.Var = n.Value
		}
	}
	if n := o.get("default"); n != nil {
		t.Default = b.literal(n)
	}
	t.Constraints = b.constraints(o.items("constraints"))
	if n := o.get("range"); n != nil && n.Kind == yaml.SequenceNode && len(n.Content) == 2 {
		// range: [lo, hi] (inputs only, two bounds: the schema says so).
		lo, hi := resolve(n.Content[0]), resolve(n.Content[1])
		t.Range = &ir.ValueRange{
			Lo: &ir.Dim{Expr: b.expr(lo), Pos: b.exprPos(lo)},
			Hi: &ir.Dim{Expr: b.expr(hi), Pos: b.exprPos(hi)},
		}
	}
	t.Rank = ir.RankAny
	if shape := o.get("shape"); shape != nil && shape.Kind == yaml.MappingNode {
		// shape: {like: x} or {broadcast: [a, b]} (outputs only; the schema says so).
		so := asObject(shape)
		t.Like = b.like(so)
		if n := so.get("broadcast"); n != nil {
			t.Broadcast = &ir.ShapeBroadcast{At: b.pos(n)}
			for _, c := range n.Content {
				c = resolve(c)
				t.Broadcast.Inputs = append(t.Broadcast.Inputs, c.Value)
				t.Broadcast.Pos = append(t.Broadcast.Pos, b.pos(c))
			}
		}
	} else if shape != nil {
		// shape: [] is a known 0-D shape, not an unknown one.
		t.Shape = make([]*ir.Dim, 0, len(shape.Content))
		for _, d := range shape.Content {
			d = resolve(d)
			t.Shape = append(t.Shape, &ir.Dim{Expr: b.expr(d), Pos: b.exprPos(d)})
		}
		t.Rank = len(t.Shape)
	}
	if rn := o.get("rank"); rn != nil && rn.Kind == yaml.SequenceNode {
		// rank: [min, max] (the schema checked two integers 0..8).
		lo, _ := strconv.Atoi(resolve(rn.Content[0]).Value)
		hi, _ := strconv.Atoi(resolve(rn.Content[1]).Value)
		switch {
		case t.Shape != nil || t.Like != nil || t.Broadcast != nil:
			b.l.Errorf(b.pos(rn), "rank-range", "a rank range is for tensors of any rank; this one has a shape, which fixes its rank (drop the range or the shape)")
		case lo > hi:
			b.l.Errorf(b.pos(rn.Content[1]), "rank-range", "rank range [%d, %d] is empty: the maximum is below the minimum", lo, hi)
		default:
			t.Rank, t.RankRange = ir.RankAny, &ir.RankRange{Min: lo, Max: hi}
		}
	} else if rn != nil {
		rank, scalar := b.rank(rn)
		if t.Shape != nil && rank != len(t.Shape) {
			b.l.Errorf(b.pos(rn), "rank-mismatch", "rank %s does not match the %d dims of shape", rn.Value, len(t.Shape))
		}
		t.Rank, t.Scalar = rank, scalar
	}
	return t
}

// like reads `shape: {like: x[, axis: a, replace: e | remove: true |
// keep: true | keep: <bool param>]}`; the schema checked the keys and
// their kinds.
func (b *builder) like(o object) *ir.ShapeLike {
	n := o.get("like")
	if n == nil {
		return nil
	}
	l := &ir.ShapeLike{Input: n.Value, Pos: b.pos(n)}
	var modes []string
	for _, k := range o.keys {
		switch k {
		case "replace", "remove", "keep":
			modes = append(modes, k)
		}
	}
	axis := o.get("axis")
	if axis != nil {
		l.Axis, l.AxisPos = axis.Value, b.pos(axis)
	}
	switch {
	case axis == nil && len(modes) > 0:
		b.l.Errorf(b.pos(o.get(modes[0])), "shape-like", "%s needs an axis: add axis: <an integer param> beside like: %s", modes[0], l.Input)
	case axis != nil && len(modes) == 0:
		b.l.Errorf(l.AxisPos, "shape-like", "axis param %q says which dim of %q changes but not how: add replace: <dim>, remove: true or keep: true", l.Axis, l.Input)
	case len(modes) > 1:
		b.l.Errorf(b.pos(o.get(modes[1])), "shape-like", "%s and %s both say what becomes of the dim at axis param %q; keep one", modes[0], modes[1], l.Axis)
	case len(modes) == 1:
		m := o.get(modes[0])
		l.Mode, l.ModePos = ir.AxisMode(modes[0]), b.pos(m)
		switch {
		case l.Mode == ir.AxisReplace:
			l.Replace = &ir.Dim{Expr: b.expr(m), Pos: b.exprPos(m)}
		case l.Mode == ir.AxisKeep && m.Tag != "!!bool":
			// keep: <a bool param> keeps the dim when the param is true
			// and removes it when false (torch's keepdim).
			l.Mode, l.KeepParam = ir.AxisKeepIf, m.Value
		}
	}
	return l
}

func (b *builder) rank(n *yaml.Node) (rank int, scalar bool) {
	switch n.Value {
	case "any":
		return ir.RankAny, false
	case "scalar":
		return 0, true
	}
	r, _ := strconv.Atoi(n.Value)
	return r, false
}

// exprPos is where the text of a dim node starts: inside the quotes of a
// quoted scalar, so that a symbol's column in the expression can be added.
func (b *builder) exprPos(n *yaml.Node) diag.Pos {
	p := b.pos(n)
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		p.Col++
	}
	return p
}

// expr parses a dim node: an integer or an expression string. Parse errors
// point at the column inside the string.
func (b *builder) expr(n *yaml.Node) *shapeexpr.Expr {
	if n.ShortTag() == "!!int" {
		v, _ := strconv.ParseInt(n.Value, 0, 64)
		return &shapeexpr.Expr{Kind: shapeexpr.Const, Value: v, Col: 1}
	}
	e, err := shapeexpr.Parse(n.Value)
	if err != nil {
		p := b.pos(n)
		if pe, ok := err.(*shapeexpr.Error); ok {
			if n.Style == 0 || n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
				p.Col += pe.Col - 1
				if n.Style != 0 {
					p.Col++
				}
			}
			b.l.Errorf(p, "shape-syntax", "invalid dimension expression %q: %s", n.Value, pe.Msg)
		} else {
			b.l.Errorf(p, "shape-syntax", "invalid dimension expression %q: %v", n.Value, err)
		}
		return &shapeexpr.Expr{Kind: shapeexpr.Const, Col: 1}
	}
	return e
}

func (b *builder) literal(n *yaml.Node) *ir.Literal {
	n = resolve(n)
	lit := &ir.Literal{Text: n.Value, Pos: b.pos(n)}
	switch {
	case n.Kind == yaml.SequenceNode:
		lit.Kind = ir.LitList
		lit.Text = ""
		for _, c := range n.Content {
			lit.List = append(lit.List, b.literal(c))
		}
	case n.ShortTag() == "!!int":
		lit.Kind = ir.LitInt
	case n.ShortTag() == "!!float":
		lit.Kind = ir.LitFloat
	case n.ShortTag() == "!!bool":
		lit.Kind = ir.LitBool
		lit.Text = strconv.FormatBool(n.Value == "true" || n.Value == "True" || n.Value == "TRUE")
	default:
		lit.Kind = ir.LitString
	}
	return lit
}

func (b *builder) param(o object) *ir.Param {
	p := &ir.Param{
		Name:        o.str("name"),
		Description: o.str("description"),
		Values:      o.strings("values"),
		ShapeText:   o.str("shape_text"),
		Layout:      ir.Layout(o.str("layout")),
		Pos:         b.pos(o.node),
		Where:       b.where(o),
	}
	p.Ident = names.Ident(p.Name)
	p.Constraints = b.constraints(o.items("constraints"))
	if n := o.get("default"); n != nil {
		p.Default = b.literal(n)
	}
	p.Mandatory = p.Default == nil
	if m := o.optBool("mandatory"); m != nil {
		p.Mandatory = *m
	}
	p.Min, p.MinExclusive = b.bound(o, p, "min", "exclusive_min")
	p.Max, p.MaxExclusive = b.bound(o, p, "max", "exclusive_max")
	b.paramType(p, o)
	p.DTypeCode = b.dtypeCode(o)
	return p
}

// bound reads a param's bound, inclusive (key) or exclusive (strictKey);
// a param may give one of the two.
func (b *builder) bound(o object, p *ir.Param, key, strictKey string) (*float64, bool) {
	n, strict := o.get(key), o.get(strictKey)
	if n != nil && strict != nil {
		b.l.Errorf(b.pos(strict), "range-both", "param %q has both %s and %s; a bound is inclusive or exclusive, keep one", p.Name, key, strictKey)
	}
	if strict != nil {
		n = strict
	}
	if n == nil {
		return nil, false
	}
	var v float64
	_ = n.Decode(&v) // the schema guaranteed a number; Decode reads every YAML spelling
	return &v, strict != nil
}

// paramType resolves the type spelling(s) of a param into its kind,
// element dtypes and array length.
func (b *builder) paramType(p *ir.Param, o object) {
	tn := o.get("type")
	var spellings []*yaml.Node
	if tn.Kind == yaml.SequenceNode {
		for _, c := range tn.Content {
			spellings = append(spellings, resolve(c))
		}
	} else {
		spellings = []*yaml.Node{tn}
	}
	p.Rank = 0
	first := true
	for _, s := range spellings {
		kind, dt, length := ir.ParamScalar, ir.DType(""), 0
		text := s.Value
		switch {
		case text == "bool":
			kind, dt = ir.ParamBool, ir.Bool
		case text == "string":
			kind, dt = ir.ParamString, ir.String
		case text == "enum":
			kind = ir.ParamEnum
		case strings.HasSuffix(text, "]"):
			i := strings.IndexByte(text, '[')
			kind, dt = ir.ParamArray, ir.DType(text[:i])
			if n := text[i+1 : len(text)-1]; n != "" {
				length, _ = strconv.Atoi(n)
				if length <= 0 || length > 1<<16 {
					b.l.Errorf(b.pos(s), "param-array-length", "array length in %q must be between 1 and 65536 (use %s[] for a variable length)", text, text[:i])
					length = 0
				}
			}
		default:
			dt = ir.DType(text)
		}
		if dt != "" && !dt.Valid() {
			b.l.Errorf(b.pos(s), "unknown-dtype", "unknown dtype %q in param type %q; known dtypes: %s", string(dt), text, strings.Join(ir.DTypeNames(), ", "))
		}
		if first {
			p.Kind, p.Length = kind, length
			first = false
		} else if kind != p.Kind || length != p.Length {
			b.l.Errorf(b.pos(s), "param-type-mix", "param %q lists type %q, which is not the same kind of value as %q; alternatives may differ only in dtype", p.Name, text, spellings[0].Value)
			continue
		}
		if dt != "" {
			p.Where.Set("type["+strconv.Itoa(len(p.DTypes))+"]", b.pos(s))
			p.DTypes = append(p.DTypes, dt)
		}
	}
	if p.Kind == ir.ParamEnum {
		for _, d := range o.items("storage") {
			p.DTypes = append(p.DTypes, b.dtype(d))
		}
		if len(p.DTypes) == 0 {
			p.DTypes = []ir.DType{ir.Uint32}
		}
	} else if s := o.get("storage"); s != nil {
		b.l.Errorf(b.pos(s), "param-storage", "storage applies to enum params only; param %q has type %s", p.Name, p.Kind)
	}
	if rn := o.get("rank"); rn != nil && rn.Kind == yaml.SequenceNode {
		b.l.Errorf(b.pos(rn), "rank-range", "a rank range is for input and output tensors; param %q takes a rank, any or scalar", p.Name)
	} else if rn != nil {
		rank, scalar := b.rank(rn)
		switch {
		case p.Kind != ir.ParamScalar:
			b.l.Errorf(b.pos(rn), "param-rank", "rank applies to tensor params (a dtype with rank 2 or more, or any); param %q is %s", p.Name, p.Kind)
		case scalar:
			// explicit SCALAR: the default.
		case rank == 0:
			p.ZeroD = true
		case rank == 1:
			b.l.Errorf(b.pos(rn), "param-rank", "a rank-1 param is an array: write type %q instead of rank 1", string(p.DTypes[0])+"[]")
		default:
			p.Kind, p.Rank = ir.ParamTensor, rank
		}
	}
}

// tritonKernel reads torch.triton: the kernel an imported op launches.
func (b *builder) tritonKernel(n *yaml.Node) *ir.TritonKernel {
	x := asObject(n)
	k := &ir.TritonKernel{Kernel: x.str("kernel"), Source: x.str("source"), Block: x.str("block"), Pos: b.pos(n)}
	for _, a := range x.items("args") {
		k.Args = append(k.Args, resolve(a).Value)
		k.ArgsPos = append(k.ArgsPos, b.pos(a))
	}
	cs := asObject(x.get("constexprs"))
	for _, name := range cs.keys {
		k.Constexprs = append(k.Constexprs, ir.TritonConstexpr{Name: name, Value: cs.str(name), Pos: b.keyPos(cs.node, name)})
	}
	return k
}
