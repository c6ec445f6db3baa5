package htpopt

import (
	"slices"
	"strconv"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

// QNN's SupplementalOpDefLists are part of the htp package options: the
// XML's SupplementalOpDefList elements (qnnxml builds them) and the YAML
// package section's `supplemental` list (decoded here from the section's
// node).

// supplementalKey is the package section's key of the lists.
const supplementalKey = "supplemental"

// Supplemental is a QNN SupplementalOpDefList: backend-specific refinements.
type Supplemental struct {
	Backend      string
	Runtime      string
	SupportedOps []string
	// SupportedOpsPos holds where each SupportedOps name is written
	// (index for index); Pos stands in where it is shorter.
	SupportedOpsPos []diag.Pos
	Ops             []*SupplementalOp
	Pos             diag.Pos
}

// SupplementalOp refines one op for a backend.
type SupplementalOp struct {
	Name    string
	Inputs  []*SupplementalTensor
	Outputs []*SupplementalTensor
	Params  []*SupplementalTensor
	Pos     diag.Pos
}

// SupplementalTensor restates dtypes/layouts of one tensor or param.
type SupplementalTensor struct {
	Name        string
	Constraints []ir.Constraint
	// DTypes are the dtypes as written (the htp check reports those
	// opforge does not know, at DTypesPos; Pos stands in where it is
	// shorter).
	DTypes               []ir.DType
	DTypesPos            []diag.Pos
	Layouts              []ir.Layout
	ShapeText            string
	OnlyDefaultSupported *bool
	// QuantParams keeps QNN QuantParam elements verbatim (2024 schema);
	// opforge does not interpret them but round-trips them.
	QuantParams []QuantParam
	Pos         diag.Pos
}

// DTypePos is where the i-th dtype is written.
func (t *SupplementalTensor) DTypePos(i int) diag.Pos {
	if i < len(t.DTypesPos) {
		return t.DTypesPos[i]
	}
	return t.Pos
}

// QuantParam is a QNN QuantParam element, kept field by field.
type QuantParam struct {
	Encodings []string
	Axes      []string
	Fields    []KeyValue // Symmetric, Scale, Offset, Min, Max, IsMathInvariant in document order
}

// KeyValue is one simple element of a kept-verbatim structure: Key is the
// XML element's name.
type KeyValue struct{ Key, Value string }

// quantFields maps QuantParam children between the formats, in XML order.
var quantFields = []struct{ yaml, xml string }{
	{"symmetric", "Symmetric"}, {"scale", "Scale"}, {"offset", "Offset"},
	{"min", "Min"}, {"max", "Max"}, {"is_math_invariant", "IsMathInvariant"},
}

// decodeSupplementals reads the section's supplemental list (the opdef
// schema has checked its shape), each item with where it was written.
func decodeSupplementals(n *ir.Node) []*Supplemental {
	var out []*Supplemental
	for _, sn := range items(n.Get(supplementalKey)) {
		s := &Supplemental{Backend: sn.Get("backend").Text(), Runtime: sn.Get("runtime").Text(), Pos: sn.Pos}
		for _, name := range items(sn.Get("supported_ops")) {
			s.SupportedOps = append(s.SupportedOps, name.Text())
			s.SupportedOpsPos = append(s.SupportedOpsPos, name.Pos)
		}
		for _, on := range items(sn.Get("ops")) {
			op := &SupplementalOp{Name: on.Get("name").Text(), Pos: on.Pos}
			op.Inputs = decodeTensors(on.Get("inputs"))
			op.Outputs = decodeTensors(on.Get("outputs"))
			op.Params = decodeTensors(on.Get("params"))
			s.Ops = append(s.Ops, op)
		}
		out = append(out, s)
	}
	return out
}

func decodeTensors(list *ir.Node) []*SupplementalTensor {
	var out []*SupplementalTensor
	for _, n := range items(list) {
		t := &SupplementalTensor{Name: n.Get("name").Text(), ShapeText: n.Get("shape_text").Text(), OnlyDefaultSupported: boolOf(n.Get("only_default_supported")), Pos: n.Pos}
		for _, d := range items(n.Get("type")) {
			t.DTypes = append(t.DTypes, ir.DType(d.Text()))
			t.DTypesPos = append(t.DTypesPos, d.Pos)
		}
		for _, ly := range n.Get("layouts").Strings() {
			t.Layouts = append(t.Layouts, ir.Layout(ly))
		}
		for _, c := range items(n.Get("constraints")) {
			t.Constraints = append(t.Constraints, ir.Constraint{ID: int(c.Get("id").Int()), Type: c.Get("type").Text(), Text: c.Get("text").Text(), Pos: c.Pos})
		}
		for _, q := range items(n.Get("quant_params")) {
			qp := QuantParam{Encodings: q.Get("encodings").Strings(), Axes: q.Get("axes").Strings()}
			for _, f := range quantFields {
				if v := q.Get(f.yaml); v != nil {
					qp.Fields = append(qp.Fields, KeyValue{Key: f.xml, Value: v.Value})
				}
			}
			t.QuantParams = append(t.QuantParams, qp)
		}
		out = append(out, t)
	}
	return out
}

// items are a list's items (none for a nil node or another kind).
func items(n *ir.Node) []*ir.Node {
	if n == nil || n.Kind != ir.ListNode {
		return nil
	}
	return n.Items
}

// boolOf reads an optional bool: nil when n is not a bool.
func boolOf(n *ir.Node) *bool {
	if n == nil || n.Kind != ir.ScalarNode || n.Scalar != ir.ScalarBool {
		return nil
	}
	v := n.IsTrue()
	return &v
}

// encodeSupplementals is the canonical supplemental list, as opforge has
// always written it: blocks, with the short lists on one line.
func encodeSupplementals(list []*Supplemental) *ir.Node {
	out := &ir.Node{Kind: ir.ListNode}
	for _, s := range list {
		m := ir.Map(false)
		m.Set("backend", ir.Str(s.Backend))
		if s.Runtime != "" {
			m.Set("runtime", ir.Str(s.Runtime))
		}
		if len(s.SupportedOps) > 0 {
			m.Set("supported_ops", ir.Strs(s.SupportedOps...))
		}
		ops := &ir.Node{Kind: ir.ListNode}
		for _, op := range s.Ops {
			om := ir.Map(false)
			om.Set("name", ir.Str(op.Name))
			for _, part := range []struct {
				key  string
				list []*SupplementalTensor
			}{{"inputs", op.Inputs}, {"outputs", op.Outputs}, {"params", op.Params}} {
				if len(part.list) == 0 {
					continue
				}
				ts := &ir.Node{Kind: ir.ListNode}
				for _, st := range part.list {
					ts.Items = append(ts.Items, encodeTensor(st))
				}
				om.Set(part.key, ts)
			}
			ops.Items = append(ops.Items, om)
		}
		m.Set("ops", ops)
		out.Items = append(out.Items, m)
	}
	return out
}

func encodeTensor(st *SupplementalTensor) *ir.Node {
	m := ir.Map(false)
	m.Set("name", ir.Str(st.Name))
	if len(st.DTypes) > 0 {
		ds := make([]string, len(st.DTypes))
		for i, d := range st.DTypes {
			ds[i] = string(d)
		}
		m.Set("type", ir.Strs(ds...))
	}
	if len(st.Layouts) > 0 {
		ls := make([]string, len(st.Layouts))
		for i, l := range st.Layouts {
			ls[i] = string(l)
		}
		m.Set("layouts", ir.Strs(ls...))
	}
	if st.ShapeText != "" {
		m.Set("shape_text", ir.Str(st.ShapeText))
	}
	if st.OnlyDefaultSupported != nil {
		m.Set("only_default_supported", ir.BoolNode(*st.OnlyDefaultSupported))
	}
	if len(st.Constraints) > 0 {
		cs := &ir.Node{Kind: ir.ListNode}
		for _, c := range st.Constraints {
			cs.Items = append(cs.Items, ir.Map(true).
				Set("id", ir.Int(strconv.Itoa(c.ID))).
				Set("type", ir.Str(c.Type)).
				Set("text", ir.Str(c.Text)))
		}
		m.Set("constraints", cs)
	}
	if len(st.QuantParams) > 0 {
		qs := &ir.Node{Kind: ir.ListNode}
		for _, q := range st.QuantParams {
			qm := ir.Map(false)
			qm.Set("encodings", ir.Strs(q.Encodings...))
			if len(q.Axes) > 0 {
				as := &ir.Node{Kind: ir.ListNode, Flow: true}
				for _, a := range q.Axes {
					as.Items = append(as.Items, ir.Int(a))
				}
				qm.Set("axes", as)
			}
			for _, f := range q.Fields {
				for _, qf := range quantFields {
					if qf.xml == f.Key {
						// Kept verbatim from either format: the
						// writer's format types the text.
						qm.Set(qf.yaml, ir.Plain(f.Value))
					}
				}
			}
			qs.Items = append(qs.Items, qm)
		}
		m.Set("quant_params", qs)
	}
	return m
}

// canonicalPackage is the section the writers write: EncodePackage's, and
// where the options are all at their defaults but supplementals are
// listed, the options as written before the supplemental list (as opforge
// has always written them).
func canonicalPackage(sec *ir.Section, o *Package) *ir.Node {
	n := EncodePackage(o)
	if len(o.Supplementals) == 0 || encodeOptions(o) != nil {
		return n
	}
	base := sec.Node.Without(supplementalKey)
	if base == nil || base.Kind != ir.MapNode {
		return n
	}
	out := *base
	out.Entries = append(slices.Clone(base.Entries), n.Entries...)
	return &out
}
