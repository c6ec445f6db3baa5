package yamldef

import (
	"bytes"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/ir"
)

// Modeline points editors at the schema; schemaPath is relative to the
// file written (opdefs/<pkg>/<file>.yaml by convention).
func Modeline(schemaPath string) string {
	return "# yaml-language-server: $schema=" + schemaPath + "\n"
}

// DefaultSchemaPath is the schema path seen from opdefs/<pkg>/.
const DefaultSchemaPath = "../../schemas/opdef.schema.json"

// Write renders pkg as a canonical YAML OpDef document. Everything the IR
// holds is written, so XML -> YAML -> XML keeps the meaning.
func Write(pkg *ir.Package, schemaPath string) ([]byte, error) {
	root := mapping(false)
	add(root, "version", intNode(1))
	p := mapping(false)
	add(p, "name", str(pkg.Name))
	add(p, "domain", str(pkg.Domain))
	add(p, "version", str(pkg.Version))
	// An absent namespace is the domain; "" is the empty namespace, where
	// a runtime's own plugins live, and is written out.
	if pkg.Namespace != pkg.Domain {
		add(p, "namespace", str(pkg.Namespace))
	}
	addAcknowledged(p, pkg.Acknowledged)
	add(root, "package", p)
	if t := packageTargets(pkg); t != nil {
		add(root, "targets", t)
	}
	ops := seq(false)
	for _, op := range pkg.Ops {
		ops.Content = append(ops.Content, opNode(op))
	}
	add(root, "ops", ops)
	return encode(root, schemaPath)
}

func encode(root *yaml.Node, schemaPath string) ([]byte, error) {
	var buf bytes.Buffer
	if schemaPath != "" {
		buf.WriteString(Modeline(schemaPath))
	}
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return spaceSections(buf.Bytes()), nil
}

// spaceSections puts one blank line before every top-level key and every
// op after the first, above the comments that belong to it, so canonical
// files read like hand-written ones (yaml.v3 drops blank lines).
func spaceSections(data []byte) []byte {
	lines := strings.Split(string(data), "\n")
	var out []string
	seenTop, seenOp, inOps := false, false, false
	for _, ln := range lines {
		top := ln != "" && ln[0] != ' ' && ln[0] != '#' && ln[0] != '-'
		op := inOps && strings.HasPrefix(ln, "  - ")
		if top {
			inOps = strings.HasPrefix(ln, "ops:")
		}
		if (top && seenTop && !strings.HasPrefix(ln, "package:")) || (op && seenOp) {
			// move above the comment block that precedes this line
			i := len(out)
			prefix := "#"
			if op {
				prefix = "  #"
			}
			for i > 0 && strings.HasPrefix(out[i-1], prefix) {
				i--
			}
			if i > 0 && out[i-1] != "" {
				out = append(out[:i], append([]string{""}, out[i:]...)...)
			}
		}
		seenTop = seenTop || top
		seenOp = seenOp || op
		out = append(out, ln)
	}
	return []byte(strings.Join(out, "\n"))
}

func mapping(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func seq(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

// floatNode is a number as the shortest text that reads back the same.
func floatNode(v float64) *yaml.Node {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func intNode(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}

func add(m *yaml.Node, key string, v *yaml.Node) { m.Content = append(m.Content, str(key), v) }

func strs(flow bool, values ...string) *yaml.Node {
	s := seq(flow)
	for _, v := range values {
		s.Content = append(s.Content, str(v))
	}
	return s
}

func dtypeList(ds []ir.DType) *yaml.Node {
	s := seq(true)
	for _, d := range ds {
		s.Content = append(s.Content, str(string(d)))
	}
	return s
}

func packageTargets(pkg *ir.Package) *yaml.Node {
	t := mapping(false)
	for _, sec := range pkg.Sections {
		if n := sec.Written(); n != nil {
			add(t, sec.Target, sectionNode(n))
		}
	}
	if len(t.Content) == 0 {
		return nil
	}
	return t
}

func addConstraints(m *yaml.Node, cs []ir.Constraint) {
	if len(cs) == 0 {
		return
	}
	list := seq(false)
	for _, c := range cs {
		cm := mapping(true)
		add(cm, "id", intNode(c.ID))
		add(cm, "type", str(c.Type))
		add(cm, "text", str(c.Text))
		list.Content = append(list.Content, cm)
	}
	add(m, "constraints", list)
}

func opNode(op *ir.Op) *yaml.Node {
	m := mapping(false)
	add(m, "name", str(op.Name))
	if op.Description != "" {
		add(m, "description", text(op.Description))
	}
	if len(op.References) > 0 {
		rs := seq(false)
		for _, r := range op.References {
			rm := mapping(false)
			for _, kv := range [][2]string{{"source", r.Source}, {"url", r.URL}, {"text", r.Text}} {
				if kv[1] != "" {
					add(rm, kv[0], str(kv[1]))
				}
			}
			rs.Content = append(rs.Content, rm)
		}
		add(m, "references", rs)
	}
	if v := op.Verify; v != nil && (v.Rtol != nil || v.Atol != nil || len(v.Sizes) > 0 || len(v.Cases) > 0) {
		vm := mapping(len(v.Sizes) == 0 && len(v.Cases) == 0)
		if v.Rtol != nil {
			add(vm, "rtol", floatNode(*v.Rtol))
		}
		if v.Atol != nil {
			add(vm, "atol", floatNode(*v.Atol))
		}
		if len(v.Sizes) > 0 {
			sm := mapping(len(v.Sizes) == 1)
			for _, s := range v.Sizes {
				add(sm, s.Symbol, exprNode(s.Value.Expr.String()))
			}
			add(vm, "sizes", sm)
		}
		if len(v.Cases) > 0 {
			cs := seq(false)
			for _, c := range v.Cases {
				cs.Content = append(cs.Content, verifyCaseNode(c))
			}
			add(vm, "cases", cs)
		}
		add(m, "verify", vm)
	}
	if o := op.ONNX; o != nil {
		om := mapping(true)
		add(om, "model", str(o.Model))
		add(om, "op_type", str(o.OpType))
		if o.Domain != "" {
			add(om, "domain", str(o.Domain))
		}
		add(m, "onnx", om)
	}
	if t := op.Torch; t != nil {
		// A Triton kernel's source is a block: the mapping holding it too.
		tm := mapping(t.Triton == nil)
		add(tm, "module", str(t.Module))
		add(tm, "op", str(t.Op))
		if k := t.Triton; k != nil {
			add(tm, "triton", tritonNode(k))
		}
		add(m, "torch", tm)
	}
	if len(op.TypeVars) > 0 {
		tm := mapping(false)
		for _, tv := range op.TypeVars {
			add(tm, tv.Name, dtypeList(tv.Allowed))
		}
		add(m, "types", tm)
	}
	tensors := func(key string, list []*ir.Tensor) {
		if len(list) == 0 {
			return
		}
		ts := seq(false)
		for _, t := range list {
			ts.Content = append(ts.Content, tensorNode(t))
		}
		add(m, key, ts)
	}
	tensors("inputs", op.Inputs)
	if len(op.Params) > 0 {
		ps := seq(false)
		for _, p := range op.Params {
			ps.Content = append(ps.Content, paramNode(p))
		}
		add(m, "params", ps)
	}
	tensors("outputs", op.Outputs)
	if len(op.DataDependent) > 0 {
		dm := mapping(false)
		for _, s := range op.DataDependent {
			sm := mapping(true)
			add(sm, "upper", exprNode(s.Upper.String()))
			if s.Opt != nil {
				add(sm, "opt", exprNode(s.Opt.String()))
			}
			add(dm, s.Name, sm)
		}
		add(m, "data_dependent", dm)
	}
	if len(op.Requires) > 0 {
		add(m, "requires", requiresNode(op.Requires))
	}
	if op.UseDefaultTranslation != nil {
		add(m, "use_default_translation", boolNode(*op.UseDefaultTranslation))
	}
	add(m, "targets", opTargets(op))
	addAcknowledged(m, op.Acknowledged)
	return m
}

// addAcknowledged writes the acknowledged warning codes, if any.
func addAcknowledged(m *yaml.Node, acks []ir.Acknowledgement) {
	if len(acks) == 0 {
		return
	}
	codes := make([]string, len(acks))
	for i, a := range acks {
		codes[i] = a.Code
	}
	add(m, "acknowledge", strs(true, codes...))
}

// text writes multi-line strings as literal blocks.
func text(s string) *yaml.Node {
	n := str(s)
	if strings.Contains(s, "\n") {
		n.Style = yaml.LiteralStyle
	}
	return n
}

func exprNode(s string) *yaml.Node {
	if _, err := strconv.Atoi(s); err == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: s}
	}
	return str(s)
}

func rankNode(rank int, scalar bool) *yaml.Node {
	switch {
	case scalar:
		return str("scalar")
	case rank == ir.RankAny:
		return str("any")
	}
	return intNode(rank)
}

func tensorNode(t *ir.Tensor) *yaml.Node {
	m := mapping(true)
	add(m, "name", str(t.Name))
	if t.Type.Var != "" {
		add(m, "type", str(t.Type.Var))
	} else if len(t.Type.DTypes) == 1 {
		add(m, "type", str(string(t.Type.DTypes[0])))
	} else {
		add(m, "type", dtypeList(t.Type.DTypes))
	}
	if t.Broadcast != nil {
		m2 := mapping(true)
		names := seq(true)
		for _, n := range t.Broadcast.Inputs {
			names.Content = append(names.Content, str(n))
		}
		add(m2, "broadcast", names)
		add(m, "shape", m2)
	} else if t.Like != nil {
		like := mapping(true)
		add(like, "like", str(t.Like.Input))
		if t.Like.Axis != "" {
			add(like, "axis", str(t.Like.Axis))
		}
		switch t.Like.Mode {
		case ir.AxisReplace:
			add(like, "replace", exprNode(t.Like.Replace.Expr.String()))
		case ir.AxisRemove, ir.AxisKeep:
			add(like, string(t.Like.Mode), boolNode(true))
		case ir.AxisKeepIf:
			add(like, "keep", str(t.Like.KeepParam))
		}
		add(m, "shape", like)
	} else if t.Shape != nil {
		s := seq(true)
		for _, d := range t.Shape {
			s.Content = append(s.Content, exprNode(d.Expr.String()))
		}
		add(m, "shape", s)
	} else if r := t.RankRange; r != nil {
		s := seq(true)
		s.Content = append(s.Content, intNode(r.Min), intNode(r.Max))
		add(m, "rank", s)
	} else if t.Rank != ir.RankAny || t.Scalar {
		add(m, "rank", rankNode(t.Rank, t.Scalar))
	}
	if t.Layout != "" {
		add(m, "layout", str(string(t.Layout)))
	}
	for _, f := range []struct {
		key string
		on  bool
	}{{"optional", t.Optional}, {"variadic", t.Variadic}, {"static", t.Static}, {"shape_tensor", t.ShapeTensor}} {
		if f.on {
			add(m, f.key, boolNode(true))
		}
	}
	if t.Count != "" {
		add(m, "count", str(t.Count))
	}
	if t.DTypeParam != "" {
		add(m, "dtype_param", str(t.DTypeParam))
	}
	if r := t.Range; r != nil {
		s := seq(true)
		s.Content = append(s.Content, exprNode(r.Lo.Expr.String()), exprNode(r.Hi.Expr.String()))
		add(m, "range", s)
	}
	if t.Default != nil {
		add(m, "default", literalNode(t.Default))
	}
	if t.Description != "" {
		add(m, "description", text(t.Description))
	}
	if t.ShapeText != "" {
		add(m, "shape_text", str(t.ShapeText))
	}
	if t.DynamicShapeText != "" {
		add(m, "dynamic_shape_text", str(t.DynamicShapeText))
	}
	addConstraints(m, t.Constraints)
	blockIfLong(m)
	return m
}

// verifyCaseNode writes one case of the verify section: name, dims,
// shapes, params and types, on one line when it is short.
func verifyCaseNode(c ir.VerifyCase) *yaml.Node {
	m := mapping(true)
	if c.Name != "" {
		add(m, "name", str(c.Name))
	}
	if len(c.Dims) > 0 {
		dm := mapping(true)
		for _, d := range c.Dims {
			add(dm, d.Symbol, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(d.Value, 10)})
		}
		add(m, "dims", dm)
	}
	if len(c.Shapes) > 0 {
		sm := mapping(true)
		for _, sh := range c.Shapes {
			dims := seq(true)
			for _, d := range sh.Dims {
				dims.Content = append(dims.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(d, 10)})
			}
			add(sm, sh.Input, dims)
		}
		add(m, "shapes", sm)
	}
	if len(c.Params) > 0 {
		pm := mapping(true)
		for _, p := range c.Params {
			add(pm, p.Name, literalNode(p.Value))
		}
		add(m, "params", pm)
	}
	if len(c.Types) > 0 {
		tm := mapping(true)
		for _, t := range c.Types {
			add(tm, t.Name, str(string(t.DType)))
		}
		add(m, "types", tm)
	}
	if flatLength(m) > 100 {
		m.Style = 0
	}
	return m
}

// flatLength estimates the length of a node written on one line.
func flatLength(n *yaml.Node) int {
	size := len(n.Value) + 2
	for _, c := range n.Content {
		size += flatLength(c)
	}
	return size
}

// blockIfLong keeps short tensors and params on one line and writes long
// ones, or ones with nested lists of mappings, as blocks.
func blockIfLong(m *yaml.Node) {
	size := 0
	for _, c := range m.Content {
		size += len(c.Value) + 4
		if c.Kind == yaml.SequenceNode {
			if c.Style != yaml.FlowStyle {
				m.Style = 0
				return
			}
			for _, e := range c.Content {
				size += len(e.Value) + 2
			}
		}
		if c.Style == yaml.LiteralStyle {
			m.Style = 0
			return
		}
	}
	if size > 100 {
		m.Style = 0
	}
}

func literalNode(l *ir.Literal) *yaml.Node {
	switch l.Kind {
	case ir.LitList:
		s := seq(true)
		for _, e := range l.List {
			s.Content = append(s.Content, literalNode(e))
		}
		return s
	case ir.LitInt:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: l.Text}
	case ir.LitFloat:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: l.Text}
	case ir.LitBool:
		return boolNode(l.Text == "true")
	}
	return str(l.Text)
}

func paramTypeText(p *ir.Param, d ir.DType) string {
	switch p.Kind {
	case ir.ParamBool:
		return "bool"
	case ir.ParamString:
		return "string"
	case ir.ParamEnum:
		return "enum"
	case ir.ParamArray:
		if p.Length > 0 {
			return string(d) + "[" + strconv.Itoa(p.Length) + "]"
		}
		return string(d) + "[]"
	}
	return string(d)
}

func paramNode(p *ir.Param) *yaml.Node {
	m := mapping(true)
	add(m, "name", str(p.Name))
	switch {
	case p.Kind == ir.ParamEnum || (p.Kind == ir.ParamBool && len(p.DTypes) <= 1) || (p.Kind == ir.ParamString && len(p.DTypes) <= 1):
		add(m, "type", str(paramTypeText(p, "")))
	case len(p.DTypes) == 1:
		add(m, "type", str(paramTypeText(p, p.DTypes[0])))
	default:
		s := seq(true)
		for _, d := range p.DTypes {
			s.Content = append(s.Content, str(paramTypeText(p, d)))
		}
		add(m, "type", s)
	}
	if p.Kind == ir.ParamEnum {
		add(m, "values", strs(true, p.Values...))
		if !(len(p.DTypes) == 1 && p.DTypes[0] == ir.Uint32) {
			add(m, "storage", dtypeList(p.DTypes))
		}
	}
	addDTypeCode(m, p.DTypeCode)
	if p.Kind == ir.ParamTensor {
		add(m, "rank", rankNode(p.Rank, false))
	} else if p.ZeroD {
		add(m, "rank", intNode(0))
	}
	if p.Default != nil {
		add(m, "default", literalNode(p.Default))
	}
	// mandatory is written only when it differs from what default implies.
	if p.Mandatory != (p.Default == nil) {
		add(m, "mandatory", boolNode(p.Mandatory))
	}
	if p.Min != nil {
		add(m, map[bool]string{false: "min", true: "exclusive_min"}[p.MinExclusive], &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatFloat(*p.Min, 'g', -1, 64)})
	}
	if p.Max != nil {
		add(m, map[bool]string{false: "max", true: "exclusive_max"}[p.MaxExclusive], &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatFloat(*p.Max, 'g', -1, 64)})
	}
	if p.Layout != "" {
		add(m, "layout", str(string(p.Layout)))
	}
	if p.Description != "" {
		add(m, "description", text(p.Description))
	}
	if p.ShapeText != "" {
		add(m, "shape_text", str(p.ShapeText))
	}
	addConstraints(m, p.Constraints)
	blockIfLong(m)
	return m
}

func opTargets(op *ir.Op) *yaml.Node {
	m := mapping(false)
	for _, sec := range op.Sections {
		add(m, sec.Target, sectionNode(sec.Written()))
	}
	return m
}

// tritonNode writes torch.triton: the short facts first, the source last
// as a literal block.
func tritonNode(k *ir.TritonKernel) *yaml.Node {
	m := mapping(false)
	add(m, "kernel", str(k.Kernel))
	args := seq(true)
	for _, a := range k.Args {
		args.Content = append(args.Content, scalarOrNumber(a))
	}
	add(m, "args", args)
	if k.Block != "" {
		add(m, "block", str(k.Block))
	}
	if len(k.Constexprs) > 0 {
		cs := mapping(true)
		for _, c := range k.Constexprs {
			add(cs, c.Name, scalarOrNumber(c.Value))
		}
		add(m, "constexprs", cs)
	}
	add(m, "source", text(k.Source))
	return m
}

// scalarOrNumber writes a number as a YAML number, other text as a string.
func scalarOrNumber(v string) *yaml.Node {
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: v}
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil && strings.ContainsAny(v, ".eE") {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: v}
	}
	return str(v)
}
