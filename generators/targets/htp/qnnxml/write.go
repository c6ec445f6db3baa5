package qnnxml

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/beevik/etree"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
)

// Write renders pkg as a canonical QNN op-package config (element order of
// the schema, four-space indentation). What QNN XML cannot say — type
// variables, symbolic shapes, ranges, non-HTP targets — is reported as a
// warning naming the fact, and written in the closest form QNN has.
func Write(pkg *ir.Package, l *diag.List) ([]byte, error) {
	w := &writer{pkg: pkg, l: l}
	doc := etree.NewDocument()
	doc.CreateProcInst("xml", `version="1.0" encoding="UTF-8"`)
	root := doc.CreateElement("OpDefCollection")
	root.CreateAttr("PackageName", pkg.Name)
	root.CreateAttr("Domain", pkg.Domain)
	root.CreateAttr("Version", pkg.Version)
	opts := htpopt.OfPackage(pkg)
	if opts.UseQHPI {
		root.CreateAttr("UseQHPI", "true")
	}
	list := root.CreateElement("OpDefList")
	for _, op := range pkg.Ops {
		w.op(list.CreateElement("OpDef"), op)
	}
	for _, s := range opts.Supplementals {
		if len(s.Ops) == 0 {
			w.lost(s.Pos, "supplemental definitions for %s name no op; a QNN SupplementalOpDefList needs at least one SupplementalOpDef, so the list is dropped", s.Backend)
			continue
		}
		w.supplemental(root.CreateElement("SupplementalOpDefList"), s)
	}
	doc.Indent(4)
	out, err := doc.WriteToBytes()
	if err == nil && (len(out) == 0 || out[len(out)-1] != '\n') {
		out = append(out, '\n')
	}
	return out, err
}

type writer struct {
	pkg *ir.Package
	l   *diag.List
}

func (w *writer) lost(pos diag.Pos, format string, args ...any) {
	w.l.Warnf(pos, "qnn-xml-lossy", format, args...)
}

func leaf(parent *etree.Element, tag, text string) *etree.Element {
	e := parent.CreateElement(tag)
	e.SetText(text)
	return e
}

func describe(parent *etree.Element, text string, required bool) {
	if text == "" && !required {
		return
	}
	d := parent.CreateElement("Description")
	leaf(d, "Content", text)
}

func (w *writer) op(e *etree.Element, op *ir.Op) {
	leaf(e, "Name", op.Name)
	describe(e, op.Description, true)
	if op.ONNX != nil {
		w.lost(op.ONNX.Pos, "op %s: QNN XML cannot record the ONNX op it was imported from (%s in %s), so its reference starts unwritten", op.Name, op.ONNX.OpType, op.ONNX.Model)
	}
	for _, r := range op.References {
		re := leaf(e, "Reference", r.Text)
		if r.Source != "" {
			re.CreateAttr("Source", r.Source)
		}
		if r.URL != "" {
			re.CreateAttr("Url", r.URL)
		}
	}
	if len(op.TypeVars) > 0 {
		w.lost(op.Pos, "op %s: QNN XML has no type variables; each tensor lists the allowed dtypes independently", op.Name)
	}
	if len(op.DataDependent) > 0 {
		w.lost(op.Pos, "op %s: QNN XML cannot state data-dependent output sizes; they are dropped", op.Name)
	}
	if op.Verify != nil {
		w.lost(op.Where.At("verify", op.Pos), "op %s: QNN XML has no opforge verify settings; its verify section (tolerances, sizes, cases) is dropped", op.Name)
	}
	var others []string // every section but the htp target's, which this format is
	for _, sec := range op.Sections {
		if sec.Target != htpopt.Target {
			others = append(others, sec.Target)
		}
	}
	if len(others) > 0 {
		w.lost(op.Pos, "op %s: QNN XML describes QNN backends only; the settings of the %s target(s) are dropped", op.Name, strings.Join(others, ", "))
	}
	h := htpopt.OfOp(op)
	if h != nil && h.TorchName != "" {
		w.lost(h.Where.At("torch_name", op.Pos), "op %s: QNN XML has no torch op name; torch_name %s is dropped (ExecuTorch will use %s's snake case)", op.Name, h.TorchName, op.Name)
	}
	for _, t := range op.Inputs {
		w.tensor(e.CreateElement("Input"), op, t, true)
	}
	for _, t := range op.Outputs {
		w.tensor(e.CreateElement("Output"), op, t, false)
	}
	for _, p := range op.Params {
		w.param(e.CreateElement("Parameter"), p)
	}
	if op.UseDefaultTranslation != nil {
		leaf(e, "UseDefaultTranslation", strconv.FormatBool(*op.UseDefaultTranslation))
	}
	backends := []string{"HTP"}
	if h != nil && len(h.Backends) > 0 {
		backends = h.Backends
	}
	for _, b := range backends {
		leaf(e, "SupportedBackend", b)
	}
}

func (w *writer) constraints(e *etree.Element, cs []ir.Constraint) {
	for _, c := range cs {
		ce := leaf(e, "Constraint", c.Text)
		ce.CreateAttr("id", strconv.Itoa(c.ID))
		ce.CreateAttr("Type", c.Type)
	}
}

func (w *writer) datatypes(e *etree.Element, pos diag.Pos, what string, ds []ir.DType) {
	for _, d := range ds {
		name := QNNName(d)
		if name == "" {
			w.l.Errorf(pos, "qnn-xml-dtype", "%s: dtype %s has no QNN datatype, so it cannot be written to QNN XML", what, d)
			continue
		}
		leaf(e, "Datatype", name)
	}
}

func rankText(rank int, scalar bool) string {
	switch {
	case scalar:
		return "SCALAR"
	case rank == ir.RankAny || rank > 5:
		return "ND"
	}
	return strconv.Itoa(rank) + "D"
}

// layoutToQNN inverts layoutFromQNN: one table states the mapping.
var layoutToQNN = sync.OnceValue(func() map[ir.Layout]string {
	m := make(map[ir.Layout]string, len(layoutFromQNN))
	for q, l := range layoutFromQNN {
		m[l] = q
	}
	return m
})

func (w *writer) layout(shape *etree.Element, l ir.Layout, pos diag.Pos, name string) {
	if l == ir.LayoutNone {
		return
	}
	q, ok := layoutToQNN()[l]
	if !ok {
		w.lost(pos, "%q: QNN XML has no %s layout; written as UNDEFINED", name, l)
		q = "UNDEFINED"
	}
	leaf(shape, "Layout", q)
}

func (w *writer) tensor(e *etree.Element, op *ir.Op, t *ir.Tensor, input bool) {
	leaf(e, "Name", t.Name)
	describe(e, t.Description, false)
	w.constraints(e, t.Constraints)
	leaf(e, "Mandatory", strconv.FormatBool(!t.Optional))
	w.datatypes(e, t.Pos, "tensor "+strconv.Quote(t.Name), op.AllowedDTypes(t))
	shape := e.CreateElement("Shape")
	leaf(shape, "Rank", rankText(t.Rank, t.Scalar))
	w.layout(shape, t.Layout, t.Where.At("layout", t.Pos), t.Name)
	text := t.ShapeText
	if t.Broadcast != nil {
		if text == "" {
			text = "broadcast of " + strings.Join(t.Broadcast.Inputs, ", ")
		}
		w.lost(t.Where.At("shape", t.Pos), "%q: QNN XML cannot say an output has the broadcast shape of inputs; kept as Text only", t.Name)
	}
	if t.Like != nil {
		if text == "" {
			text = "same shape as " + t.Like.Input
		}
		w.lost(t.Where.At("shape", t.Pos), "%q: QNN XML cannot say an output has an input's shape; kept as Text only", t.Name)
	}
	if t.Shape != nil {
		dims := make([]string, len(t.Shape))
		for i, d := range t.Shape {
			dims[i] = d.Expr.String()
		}
		if text == "" {
			text = "[" + strings.Join(dims, ", ") + "]"
		}
		w.lost(t.Where.At("shape", t.Pos), "%q: QNN XML has no symbolic shapes; the shape is kept as Rank and Text only", t.Name)
	}
	if t.Rank > 5 {
		w.lost(t.Pos, "%q: QNN ranks go up to 5D; rank %d written as ND", t.Name, t.Rank)
	}
	if text != "" {
		leaf(shape, "Text", text)
	}
	if t.Default != nil {
		leaf(e, "Default", literalText(t.Default, nil))
	}
	if t.Variadic {
		leaf(e, "Repeated", "true")
	}
	if t.DynamicShapeText != "" {
		ds := e.CreateElement("DynamicShape")
		leaf(ds, "Text", t.DynamicShapeText)
	}
	if input && t.Static {
		leaf(e, "IsStaticTensor", "true")
	}
	if t.ShapeTensor {
		w.lost(t.Pos, "%q: QNN XML cannot mark a shape tensor; the flag is dropped", t.Name)
	}
	if t.Range != nil {
		w.lost(t.Where.At("range", t.Pos), "%q: QNN XML has no value range of an input; range [%s, %s] is dropped", t.Name, t.Range.Lo.Expr, t.Range.Hi.Expr)
	}
	if t.Count != "" {
		w.lost(t.Where.At("count", t.Pos), "%q: QNN XML's Repeated has no count; count: %s is dropped", t.Name, t.Count)
	}
	if t.DTypeParam != "" {
		w.lost(t.Where.At("dtype_param", t.Pos), "%q: QNN XML cannot say that param %s chooses the dtype; the tensor lists its dtypes only", t.Name, t.DTypeParam)
	}
}

// literalText renders a default the way QNN configs write them: as
// written, an enum's value as its index.
func literalText(l *ir.Literal, values []string) string {
	if i := slices.Index(values, l.Text); i >= 0 && l.Kind == ir.LitString {
		return strconv.Itoa(i)
	}
	return l.String()
}

func (w *writer) param(e *etree.Element, p *ir.Param) {
	leaf(e, "Name", p.Name)
	describe(e, p.Description, false)
	w.constraints(e, p.Constraints)
	leaf(e, "Mandatory", strconv.FormatBool(p.Mandatory))
	if p.DTypeCode != nil {
		w.lost(p.Where.At("dtype_code", p.Pos), "param %q: QNN XML has no dtype code; it is written as a plain integer, and its codes are dropped", p.Name)
	}
	w.datatypes(e, p.Pos, "param "+strconv.Quote(p.Name), p.DTypes)
	shape := e.CreateElement("Shape")
	rank, scalar := 0, true
	switch {
	case p.ZeroD:
		scalar = false
	case p.Kind == ir.ParamArray:
		rank, scalar = 1, false
	case p.Kind == ir.ParamTensor:
		rank, scalar = p.Rank, false
	}
	leaf(shape, "Rank", rankText(rank, scalar))
	w.layout(shape, p.Layout, p.Where.At("layout", p.Pos), p.Name)
	text := p.ShapeText
	if p.Kind == ir.ParamArray && p.Length > 0 {
		w.lost(p.Where.At("type", p.Pos), "param %q: QNN XML cannot fix an array length (%d); it is kept in Shape/Text", p.Name, p.Length)
		if text == "" {
			text = "length " + strconv.Itoa(p.Length)
		}
	}
	if text != "" {
		leaf(shape, "Text", text)
	}
	if p.Min != nil || p.Max != nil {
		w.lost(p.Where.At("min", p.Where.At("exclusive_min", p.Where.At("max", p.Where.At("exclusive_max", p.Pos)))), "param %q: QNN XML has no value range; its bounds are dropped", p.Name)
	}
	if p.Default != nil {
		leaf(e, "Default", literalText(p.Default, p.Values))
	} else if p.DefaultText != "" {
		leaf(e, "Default", p.DefaultText)
	}
	if p.Kind == ir.ParamEnum {
		en := e.CreateElement("Enumeration")
		for _, v := range p.Values {
			leaf(en, "Enum", v)
		}
	}
}

func (w *writer) supplemental(e *etree.Element, s *htpopt.Supplemental) {
	e.CreateAttr("Backend", s.Backend)
	if s.Runtime != "" {
		e.CreateAttr("Runtime", s.Runtime)
	}
	if len(s.SupportedOps) > 0 {
		so := e.CreateElement("SupportedOps")
		for _, n := range s.SupportedOps {
			leaf(so, "OpName", n)
		}
	}
	for _, op := range s.Ops {
		oe := e.CreateElement("SupplementalOpDef")
		leaf(oe, "Name", op.Name)
		for _, part := range []struct {
			tag  string
			list []*htpopt.SupplementalTensor
		}{{"Input", op.Inputs}, {"Output", op.Outputs}, {"Parameter", op.Params}} {
			for _, st := range part.list {
				w.supplementalTensor(oe.CreateElement(part.tag), st)
			}
		}
	}
}

func (w *writer) supplementalTensor(e *etree.Element, st *htpopt.SupplementalTensor) {
	leaf(e, "Name", st.Name)
	w.constraints(e, st.Constraints)
	w.datatypes(e, st.Pos, "supplemental "+strconv.Quote(st.Name), st.DTypes)
	for _, q := range st.QuantParams {
		qe := e.CreateElement("QuantParam")
		for _, enc := range q.Encodings {
			leaf(qe, "Encoding", enc)
		}
		for _, a := range q.Axes {
			leaf(qe, "Axis", quantValue("Axis", a))
		}
		for _, f := range q.Fields {
			leaf(qe, f.Key, quantValue(f.Key, f.Value))
		}
	}
	if len(st.Layouts) > 0 || st.ShapeText != "" {
		sh := e.CreateElement("Shape")
		for _, l := range st.Layouts {
			w.layout(sh, l, st.Pos, st.Name)
		}
		if st.ShapeText != "" {
			leaf(sh, "Text", st.ShapeText)
		}
	}
	if st.OnlyDefaultSupported != nil {
		leaf(e, "OnlyDefaultSupported", strconv.FormatBool(*st.OnlyDefaultSupported))
	}
}

// quantValue writes a QuantParam value in its XML form (true/false,
// decimal numbers): values from YAML keep their YAML spelling in the IR,
// such as True, 0x10 or 1_000, which QNN XML does not read.
func quantValue(key, v string) string {
	switch key {
	case "Symmetric", "IsMathInvariant":
		if b, err := strconv.ParseBool(v); err == nil {
			return strconv.FormatBool(b)
		}
	case "Axis", "Min", "Max":
		return decimalText(v)
	case "Scale", "Offset":
		if xmlNumber().MatchString(v) {
			return v
		}
		if n, err := strconv.ParseInt(v, 0, 64); err == nil {
			return strconv.FormatInt(n, 10)
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return v
}

// xmlNumber is the decimal form of an XML Schema float.
var xmlNumber = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
})

// decimalText rewrites a YAML integer (0x10, 0o17, 1_000) in decimal.
func decimalText(v string) string {
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return v
	}
	if n, err := strconv.ParseInt(v, 0, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	return v
}
