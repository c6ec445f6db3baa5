package qnnxml

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/beevik/etree"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
)

// Load parses one QNN op-package XML config into the IR. It returns nil
// when the file is not structurally valid; every problem found is in l.
func Load(file string, data []byte, l *diag.List) *ir.Package {
	d := parse(file, data, l)
	if d == nil {
		return nil
	}
	root := d.doc.Root()
	if root.Tag != "OpDefCollection" {
		switch root.Tag {
		case "OpDefList", "SupplementalOpDefList", "SupplementalOpDefSpecification":
			l.Errorf(d.at(root), "qnn-bare-root", "a bare <%s> has no PackageName, Domain or Version; wrap it in <OpDefCollection PackageName=... Domain=... Version=...>", root.Tag)
		default:
			l.Errorf(d.at(root), "qnn-root", "unsupported root <%s>; a QNN op-package config starts with <OpDefCollection>", root.Tag)
		}
		return nil
	}
	mark := l.Len()
	(&checker{d: d, l: l}).check(root, "OpDefCollection")
	if l.HasErrorsSince(mark) {
		return nil
	}
	b := &builder{d: d, l: l}
	return b.pkg(root)
}

type builder struct {
	d *document
	l *diag.List
}

func text(e *etree.Element) string {
	if e == nil {
		return ""
	}
	return strings.TrimSpace(directText(e))
}

func childText(e *etree.Element, tag string) string { return text(e.SelectElement(tag)) }

func (b *builder) pkg(root *etree.Element) *ir.Package {
	pkg := &ir.Package{
		Name:    root.SelectAttrValue("PackageName", ""),
		Domain:  root.SelectAttrValue("Domain", ""),
		Version: root.SelectAttrValue("Version", ""),
		Source:  b.d.file,
		Pos:     b.d.at(root),
		Where:   ir.Where{},
	}
	pkg.Namespace = pkg.Domain
	// The htp target's package options: UseQHPI and the
	// SupplementalOpDefLists.
	opts := htpopt.DefaultPackage()
	var node *ir.Node
	var at diag.Pos
	if q := root.SelectAttr("UseQHPI"); q != nil && q.Value == "true" {
		opts.UseQHPI = true
		node, at = ir.Map(false).Set("use_qhpi", ir.BoolNode(true)), b.d.attrAt(root, "UseQHPI")
		pkg.Where.Set("use_qhpi", b.d.attrAt(root, "UseQHPI"))
		// QHPI (QAIRT docs, "Qualcomm Hexagon Plugin Interface", 2.44):
		// a C API that coexists with DEF_PACKAGE_OP packages; both kinds
		// implement QnnOpPackage.h and are registered with
		// backendRegisterOpPackage. No public project commits the
		// generator's QHPI output (LiteRT commits only this config and
		// docs that build and register it like a classic package), and the
		// QHPI headers are in none of the QNN header sets at hand (2.13,
		// 2.25, 2.36, 2.43), so opforge generates the classic package.
		b.l.Warnf(b.d.attrAt(root, "UseQHPI"), "qnn-qhpi", "UseQHPI=\"true\": qnn-op-package-generator would write a QHPI (Qualcomm Hexagon Plugin Interface) package; opforge generates the classic HTP op package instead (DEF_PACKAGE_OP registration, the same %sInterfaceProvider, libQnn%s.so and make targets), which the HTP backend registers the same way and runs beside QHPI packages; a QHPI skeleton needs the QHPI C API headers, which are in no QNN header set opforge is checked against (2.13 to 2.43); drop the attribute to silence this", pkg.Name, pkg.Name)
	}
	// In a fixed order: a Where is a list, and two loads of one config
	// give the same package.
	for _, fa := range [][2]string{{"name", "PackageName"}, {"domain", "Domain"}, {"version", "Version"}} {
		pkg.Where.Set(fa[0], b.d.attrAt(root, fa[1]))
	}
	for _, e := range root.SelectElement("OpDefList").SelectElements("OpDef") {
		pkg.Ops = append(pkg.Ops, b.op(e))
	}
	for _, e := range root.SelectElements("SupplementalOpDefList") {
		opts.Supplementals = append(opts.Supplementals, b.supplemental(e))
	}
	if opts.UseQHPI || len(opts.Supplementals) > 0 {
		if node == nil {
			node, at = ir.Map(false), opts.Supplementals[0].Pos
		}
		htpopt.SetPackage(pkg.Sections.Add(htpopt.Target, node, at), opts)
	}
	return pkg
}

// description joins Content and Code parts. Content text is re-flowed
// (configs indent it to the XML nesting); Code keeps its lines.
func description(e *etree.Element) string {
	var parts []string
	for _, d := range e.SelectElements("Description") {
		for _, c := range d.ChildElements() {
			switch c.Tag {
			case "Content":
				if s := strings.Join(strings.Fields(directText(c)), " "); s != "" {
					parts = append(parts, s)
				}
			case "Code":
				if s := strings.Trim(directText(c), "\n"); strings.TrimSpace(s) != "" {
					parts = append(parts, dedent(s))
				}
			}
		}
	}
	return strings.Join(parts, "\n")
}

func dedent(s string) string {
	lines := strings.Split(s, "\n")
	indent := -1
	for _, ln := range lines {
		if strings.TrimSpace(ln) == "" {
			continue
		}
		n := len(ln) - len(strings.TrimLeft(ln, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, ln := range lines {
		if len(ln) >= indent && indent > 0 {
			lines[i] = ln[indent:]
		}
	}
	return strings.Join(lines, "\n")
}

func (b *builder) op(e *etree.Element) *ir.Op {
	op := &ir.Op{
		Name:        childText(e, "Name"),
		Description: description(e),
		Pos:         b.d.at(e),
		Where:       ir.WhereOf("name", b.d.at(e.SelectElement("Name"))),
	}
	if d := e.SelectElement("Description"); d != nil {
		op.Where.Set("description", b.d.at(d))
	}
	if r := e.SelectElement("Reference"); r != nil {
		op.Where.Set("references", b.d.at(r))
	}
	for _, r := range e.SelectElements("Reference") {
		op.References = append(op.References, ir.Reference{Source: r.SelectAttrValue("Source", ""), URL: r.SelectAttrValue("Url", ""), Text: text(r)})
	}
	for _, in := range e.SelectElements("Input") {
		op.Inputs = append(op.Inputs, b.tensor(in, "input"))
	}
	for _, out := range e.SelectElements("Output") {
		op.Outputs = append(op.Outputs, b.tensor(out, "output"))
	}
	for _, p := range e.SelectElements("Parameter") {
		op.Params = append(op.Params, b.param(p))
	}
	if u := e.SelectElement("UseDefaultTranslation"); u != nil {
		v := boolValue(u)
		op.UseDefaultTranslation = &v
	}
	// The htp section, as the htp target reads it (htpopt): the op's
	// SupportedBackend values. A QNN config speaks only for QNN backends;
	// TensorRT and AIPU need facts it cannot state (output shapes), so they
	// stay off until the op is converted to YAML and completed there.
	var backends []string
	for _, sb := range e.SelectElements("SupportedBackend") {
		backends = append(backends, text(sb))
	}
	op.Sections.Add(htpopt.Target, ir.Map(true).Set("backends", ir.Strs(backends...)), b.d.at(e.SelectElement("SupportedBackend")))
	return op
}

func boolValue(e *etree.Element) bool {
	t := text(e)
	return t == "true" || t == "1"
}

func (b *builder) where(e *etree.Element) ir.Where {
	w := ir.Where{}
	for _, c := range e.ChildElements() {
		key := strings.ToLower(c.Tag)
		if _, seen := w.Lookup(key); !seen {
			w.Set(key, b.d.at(c))
		}
	}
	if s := e.SelectElement("Shape"); s != nil {
		for _, c := range s.ChildElements() {
			w.Set(strings.ToLower(c.Tag), b.d.at(c))
		}
	}
	// The dtypes are "type" in the IR and in YAML: position them under that
	// key too, so rules about dtypes point at <Datatype> without knowing
	// which format an op came from.
	if p, ok := w.Lookup("datatype"); ok {
		w.Set("type", p)
	}
	for i, d := range e.SelectElements("Datatype") {
		w.Set("type["+strconv.Itoa(i)+"]", b.d.at(d))
	}
	return w
}

func (b *builder) dtypes(e *etree.Element) []ir.DType {
	var out []ir.DType
	for _, d := range e.SelectElements("Datatype") {
		dt, ok := DTypeFromQNN(text(d))
		if !ok {
			b.l.Errorf(b.d.at(d), "unknown-dtype", "unknown datatype %q", text(d))
			continue
		}
		out = append(out, dt)
	}
	return out
}

func (b *builder) constraints(e *etree.Element) []ir.Constraint {
	var out []ir.Constraint
	for _, c := range e.SelectElements("Constraint") {
		id, _ := strconv.Atoi(strings.TrimSpace(c.SelectAttrValue("id", "")))
		body := strings.Join(strings.Fields(directText(c)), " ")
		for _, code := range c.SelectElements("Code") {
			body = strings.TrimSpace(body + " " + strings.Join(strings.Fields(directText(code)), " "))
		}
		out = append(out, ir.Constraint{ID: id, Type: c.SelectAttrValue("Type", ""), Text: body, Pos: b.d.at(c)})
	}
	return out
}

// rankOf maps a Rank enumerator: 0D..5D to a rank, ND to any, SCALAR to
// rank 0 marked scalar.
func rankOf(s string) (rank int, scalar bool) {
	switch s {
	case "SCALAR":
		return 0, true
	case "ND":
		return ir.RankAny, false
	}
	r, _ := strconv.Atoi(strings.TrimSuffix(s, "D"))
	return r, false
}

var layoutFromQNN = map[string]ir.Layout{
	"NHWC": ir.LayoutNHWC, "NDHWC": ir.LayoutNDHWC, "NONTRIVIAL": ir.LayoutNontrivial,
	"UNDEFINED": ir.LayoutUndefined, "BACKEND_SPECIFIC": ir.LayoutBackendSpecific,
}

func (b *builder) tensor(e *etree.Element, kind string) *ir.Tensor {
	t := &ir.Tensor{
		Name:        childText(e, "Name"),
		Description: description(e),
		Optional:    !boolValue(e.SelectElement("Mandatory")),
		Constraints: b.constraints(e),
		Pos:         b.d.at(e),
		Where:       b.where(e),
	}
	t.Ident = names.Ident(t.Name)
	t.Type.DTypes = b.dtypes(e)
	shape := e.SelectElement("Shape")
	t.Rank, t.Scalar = rankOf(childText(shape, "Rank"))
	if ly := shape.SelectElement("Layout"); ly != nil {
		t.Layout = layoutFromQNN[text(ly)]
	}
	// A layout for another rank: the QNN generator refuses a layout only on
	// a 0D tensor (validate's scalar-layout), so this format takes it with a
	// warning where YAML's layout-rank is an error.
	if want := t.Layout.Rank(); want > 0 && t.Rank != ir.RankAny && t.Rank != want && !(t.Rank == 0 && !t.Scalar) {
		b.l.Warnf(t.Where.At("layout", t.Pos), "qnn-layout-rank", "%s %q has layout %s, which needs rank %d, but its rank is %d; the QNN generator accepts this and so does opforge, but the layout says nothing about its dims", kind, t.Name, t.Layout, want, t.Rank)
	}
	t.ShapeText = childText(shape, "Text")
	if d := e.SelectElement("Default"); d != nil {
		t.Default = b.literal(d)
	}
	if r := e.SelectElement("Repeated"); r != nil {
		t.Variadic = boolValue(r)
	}
	if s := e.SelectElement("IsStaticTensor"); s != nil {
		t.Static = boolValue(s)
	}
	if ds := e.SelectElement("DynamicShape"); ds != nil {
		t.DynamicShapeText = childText(ds, "Text")
	}
	return t
}

// Compiled on first use: every opforge command pays the package's
// initialization, a no-op build included.
var (
	intRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[+-]?[0-9]+$`) })
	floatRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	})
)

// literal reads a Default the way the QNN translator classifies it —
// except that "false" is false (the SDK's bool("false") is true).
func (b *builder) literal(e *etree.Element) *ir.Literal {
	return parseLiteral(text(e), b.d.at(e))
}

func parseLiteral(s string, pos diag.Pos) *ir.Literal {
	lit := &ir.Literal{Text: s, Pos: pos}
	switch {
	case s == "true" || s == "false" || s == "True" || s == "False":
		lit.Kind, lit.Text = ir.LitBool, strings.ToLower(s)
	case intRE().MatchString(s):
		lit.Kind = ir.LitInt
	case floatRE().MatchString(s):
		lit.Kind = ir.LitFloat
	case len(s) >= 2 && (s[0] == '[' && s[len(s)-1] == ']' || s[0] == '{' && s[len(s)-1] == '}'):
		lit.Kind, lit.Text = ir.LitList, ""
		inner := strings.TrimSpace(s[1 : len(s)-1])
		if inner != "" {
			for _, part := range strings.Split(inner, ",") {
				lit.List = append(lit.List, parseLiteral(strings.TrimSpace(part), pos))
			}
		}
	default:
		lit.Kind = ir.LitString
	}
	return lit
}

func (b *builder) param(e *etree.Element) *ir.Param {
	p := &ir.Param{
		Name:        childText(e, "Name"),
		Description: description(e),
		Mandatory:   boolValue(e.SelectElement("Mandatory")),
		Constraints: b.constraints(e),
		Pos:         b.d.at(e),
		Where:       b.where(e),
	}
	p.Ident = names.Ident(p.Name)
	p.DTypes = b.dtypes(e)
	shape := e.SelectElement("Shape")
	rankText := childText(shape, "Rank")
	rank, scalar := rankOf(rankText)
	if ly := shape.SelectElement("Layout"); ly != nil {
		p.Layout = layoutFromQNN[text(ly)]
	}
	p.ShapeText = childText(shape, "Text")
	if d := e.SelectElement("Default"); d != nil {
		p.Default = b.literal(d)
	}
	enum := e.SelectElement("Enumeration")
	switch {
	case enum != nil:
		p.Kind = ir.ParamEnum
		for _, v := range enum.SelectElements("Enum") {
			p.Values = append(p.Values, text(v))
		}
		// QNN enum defaults are indices; the IR names the value.
		if p.Default != nil && p.Default.Kind == ir.LitInt {
			if i, err := strconv.Atoi(p.Default.Text); err == nil && i >= 0 && i < len(p.Values) {
				p.Default = &ir.Literal{Kind: ir.LitString, Text: p.Values[i], Pos: p.Default.Pos}
			}
		}
	case len(p.DTypes) > 0 && p.DTypes[0] == ir.Bool && (scalar || rank == 0):
		p.Kind = ir.ParamBool
	case len(p.DTypes) > 0 && p.DTypes[0] == ir.String && (scalar || rank == 0):
		p.Kind = ir.ParamString
	case scalar || rank == 0:
		p.Kind = ir.ParamScalar
	case rank == 1:
		p.Kind = ir.ParamArray
	default:
		p.Kind, p.Rank = ir.ParamTensor, rank
	}
	if !scalar && rank == 0 {
		p.ZeroD = true
	}
	b.qnnDefault(e, p)
	if enum != nil && !scalar {
		b.l.Errorf(b.d.at(enum), "qnn-enum-rank", "enum param %q must have Rank SCALAR, found %s", p.Name, rankText)
	}
	return p
}

func (b *builder) supplemental(e *etree.Element) *htpopt.Supplemental {
	s := &htpopt.Supplemental{Backend: e.SelectAttrValue("Backend", ""), Runtime: e.SelectAttrValue("Runtime", ""), Pos: b.d.at(e)}
	if so := e.SelectElement("SupportedOps"); so != nil {
		for _, n := range so.SelectElements("OpName") {
			s.SupportedOps = append(s.SupportedOps, text(n))
			s.SupportedOpsPos = append(s.SupportedOpsPos, b.d.at(n))
		}
	}
	for _, od := range e.SelectElements("SupplementalOpDef") {
		op := &htpopt.SupplementalOp{Name: childText(od, "Name"), Pos: b.d.at(od)}
		op.Inputs = b.supplementalTensors(od.SelectElements("Input"))
		op.Outputs = b.supplementalTensors(od.SelectElements("Output"))
		op.Params = b.supplementalTensors(od.SelectElements("Parameter"))
		s.Ops = append(s.Ops, op)
	}
	return s
}

func (b *builder) supplementalTensors(es []*etree.Element) []*htpopt.SupplementalTensor {
	var out []*htpopt.SupplementalTensor
	for _, e := range es {
		t := &htpopt.SupplementalTensor{Name: childText(e, "Name"), Constraints: b.constraints(e), DTypes: b.dtypes(e), Pos: b.d.at(e)}
		if sh := e.SelectElement("Shape"); sh != nil {
			for _, ly := range sh.SelectElements("Layout") {
				t.Layouts = append(t.Layouts, layoutFromQNN[text(ly)])
			}
			t.ShapeText = childText(sh, "Text")
		}
		if o := e.SelectElement("OnlyDefaultSupported"); o != nil {
			v := boolValue(o)
			t.OnlyDefaultSupported = &v
		}
		for _, q := range e.SelectElements("QuantParam") {
			var qp htpopt.QuantParam
			for _, c := range q.ChildElements() {
				switch c.Tag {
				case "Encoding":
					qp.Encodings = append(qp.Encodings, text(c))
				case "Axis":
					qp.Axes = append(qp.Axes, text(c))
				default:
					qp.Fields = append(qp.Fields, htpopt.KeyValue{Key: c.Tag, Value: text(c)})
				}
			}
			t.QuantParams = append(t.QuantParams, qp)
		}
		out = append(out, t)
	}
	return out
}

// qnnDefault gives a param's Default the meaning the QNN generator gives
// it where opforge's own rules would refuse the config the vendor tool
// takes: bool defaults written 0/1, optional bool and enum params without
// a default (false and the first value, as the SDK does), and defaults
// that form no value of a numeric param (`N-1`, `{0,..,0}`), kept as text.
func (b *builder) qnnDefault(e *etree.Element, p *ir.Param) {
	lit := p.Default
	switch {
	case lit == nil && !p.Mandatory && p.Kind == ir.ParamBool:
		p.Default = &ir.Literal{Kind: ir.LitBool, Text: "false", Pos: p.Pos}
		b.l.Warnf(p.Where.At("mandatory", p.Pos), "qnn-implicit-default", "optional bool param %q has no Default; the QNN generator takes false, and so does opforge: write <Default>false</Default> to say so", p.Name)
	case lit == nil && !p.Mandatory && p.Kind == ir.ParamEnum && len(p.Values) > 0:
		p.Default = &ir.Literal{Kind: ir.LitString, Text: p.Values[0], Pos: p.Pos}
		b.l.Warnf(p.Where.At("mandatory", p.Pos), "qnn-implicit-default", "optional enum param %q has no Default; the QNN generator takes index 0 (%s), and so does opforge: write <Default>0</Default> to say so", p.Name, p.Values[0])
	case lit == nil:
	case p.Kind == ir.ParamBool && lit.Kind == ir.LitInt && (lit.Text == "0" || lit.Text == "1"):
		p.Default = &ir.Literal{Kind: ir.LitBool, Text: strconv.FormatBool(lit.Text == "1"), Pos: lit.Pos}
	case numericParam(p) && textual(lit):
		p.Default, p.DefaultText = nil, text(e.SelectElement("Default"))
		b.l.Warnf(lit.Pos, "qnn-textual-default", "default %q of param %q forms no %s value; the QNN generator keeps it as text and registers %q as required in the HTP package (DEF_PACKAGE_PARAM_ORDER true, nullptr), and so does opforge: every call must pass it", p.DefaultText, p.Name, p.DTypes[0], p.Name)
	}
}

// numericParam: a scalar, array or tensor param whose dtypes are numbers.
func numericParam(p *ir.Param) bool {
	if len(p.DTypes) == 0 {
		return false
	}
	switch p.Kind {
	case ir.ParamScalar, ir.ParamArray, ir.ParamTensor:
	default:
		return false
	}
	for _, d := range p.DTypes {
		if d == ir.String || d == ir.Bool {
			return false
		}
	}
	return true
}

// textual: a literal holding text where a number belongs, itself or in a
// list (`N-1`, `..` in `{0,..,0}`).
func textual(lit *ir.Literal) bool {
	if lit.Kind == ir.LitString {
		return true
	}
	for _, el := range lit.List {
		if textual(el) {
			return true
		}
	}
	return false
}
