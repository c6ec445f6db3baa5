package onnx

import (
	"fmt"
	"math"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
)

// NodeEdit is what Rewrite changes in one node; everything else in the
// node (inputs, outputs, name, other attributes, unknown fields) stays.
type NodeEdit struct {
	OpType string
	// Domain, when not nil, replaces the node's domain.
	Domain *string
	// Attrs are set on the node: an attribute of the same name is replaced
	// where it stands, the others follow the node's last attribute.
	Attrs []NewAttr
}

// NewAttr is an attribute Rewrite writes: a string, an int, a float, or
// a list of ints or floats.
type NewAttr struct {
	Name   string
	Type   AttrType // AttrString, AttrInt, AttrFloat, AttrInts or AttrFloats
	S      string
	I      int64
	F      float32
	Ints   []int64
	Floats []float32
}

// StringAttr is a STRING attribute.
func StringAttr(name, value string) NewAttr { return NewAttr{Name: name, Type: AttrString, S: value} }

// encode writes the attribute in field-number order, as protobuf
// serializers do (name, f, i, s, floats, ints, type).
func (a NewAttr) encode() []byte {
	b := appendString(nil, attrName, a.Name)
	switch a.Type {
	case AttrFloat:
		b = protowire.AppendTag(b, attrF, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.F))
	case AttrFloats:
		// Unpacked, like ints below.
		for _, v := range a.Floats {
			b = protowire.AppendTag(b, attrFloats, protowire.Fixed32Type)
			b = protowire.AppendFixed32(b, math.Float32bits(v))
		}
	case AttrInt:
		b = appendVarint(b, attrI, uint64(a.I))
	case AttrString:
		b = appendString(b, attrS, a.S)
	case AttrInts:
		// proto2 repeated scalars are unpacked unless declared packed,
		// and onnx.proto does not declare AttributeProto.ints packed.
		for _, v := range a.Ints {
			b = appendVarint(b, attrInts, uint64(v))
		}
	}
	return appendVarint(b, attrType, uint64(a.Type))
}

// Rewrite returns the model's bytes with edits applied to its nodes and
// the given opset imports added (after the existing ones). Messages that
// hold no edited node are copied byte for byte; the edited nodes, and the
// graphs, attributes and model that contain them, are re-encoded field by
// field, copying every field the edit does not change.
func (m *Model) Rewrite(edits map[*Node]NodeEdit, addOpsets []OpsetID) ([]byte, error) {
	w := &rewriter{edits: edits, graphs: map[*Graph]bool{}, nodes: map[*Node]bool{}}
	for n := range edits {
		g := n.Graph
		for g != nil && g.Parent != nil {
			w.graphs[g] = true
			w.nodes[g.Owner] = true
			g = g.Parent
		}
		if g != m.Graph || n.Index >= len(n.Graph.Nodes) || n.Graph.Nodes[n.Index] != n {
			return nil, fmt.Errorf("%s is not a node of this model's graph", n)
		}
		w.graphs[g] = true
	}
	fs, err := fields(m.raw, 0, "model")
	if err != nil {
		return nil, err
	}
	lastOpset := -1
	for i, f := range fs {
		if f.num == modelOpsetImport && f.isBytes() {
			lastOpset = i
		}
	}
	out := &chunks{}
	opsets := func() {
		for _, o := range addOpsets {
			msg := appendString(nil, opsetDomain, o.Domain)
			msg = appendVarint(msg, opsetVersion, uint64(o.Version))
			out.add(appendMessage(nil, modelOpsetImport, msg))
		}
	}
	for i, f := range fs {
		if f.num == modelGraph && f.isBytes() && w.graphs[m.Graph] {
			g, err := w.graph(f, m.Graph)
			if err != nil {
				return nil, err
			}
			out.message(modelGraph, g)
		} else {
			out.add(f.raw)
		}
		if i == lastOpset {
			opsets()
		}
	}
	if lastOpset < 0 {
		opsets()
	}
	return out.bytes(), nil
}

// chunks is a message being encoded as a list of byte slices, most of
// them slices of the model read: a graph holding gigabytes of weights is
// copied once, into the output, not once per level of nesting.
type chunks struct {
	parts [][]byte
	n     int
}

func (c *chunks) add(b []byte) {
	if len(b) == 0 {
		return
	}
	c.n += len(b)
	// Fields that follow each other in the file are one part: a graph
	// of a million unchanged nodes is a few parts, not a million.
	if k := len(c.parts) - 1; k >= 0 {
		last := c.parts[k]
		if cap(last) >= len(last)+len(b) && unsafe.Pointer(unsafe.SliceData(last[len(last):cap(last)])) == unsafe.Pointer(unsafe.SliceData(b)) {
			c.parts[k] = last[:len(last)+len(b)]
			return
		}
	}
	c.parts = append(c.parts, b)
}

// message adds a length-delimited field holding msg.
func (c *chunks) message(num protowire.Number, msg *chunks) {
	hdr := protowire.AppendTag(nil, num, protowire.BytesType)
	c.add(protowire.AppendVarint(hdr, uint64(msg.n)))
	c.parts = append(c.parts, msg.parts...)
	c.n += msg.n
}

func (c *chunks) bytes() []byte {
	out := make([]byte, 0, c.n)
	for _, p := range c.parts {
		out = append(out, p...)
	}
	return out
}

type rewriter struct {
	edits map[*Node]NodeEdit
	// graphs and nodes hold an edited node, themselves or below.
	graphs map[*Graph]bool
	nodes  map[*Node]bool
}

// graph re-encodes a graph whose k-th node field is g.Nodes[k], as Read
// decoded it.
func (w *rewriter) graph(f field, g *Graph) (*chunks, error) {
	out := &chunks{}
	k := 0
	it := f.iter()
	var h field
	for it.next(&h) {
		if h.num != graphNode || !h.isBytes() {
			out.add(h.raw)
			continue
		}
		n := g.Nodes[k]
		k++
		edit, edited := w.edits[n]
		if !edited && !w.nodes[n] {
			out.add(h.raw)
			continue
		}
		var e *NodeEdit
		if edited {
			e = &edit
		}
		msg, err := w.node(h, n, e)
		if err != nil {
			return nil, err
		}
		out.message(graphNode, msg)
	}
	return out, at(it.end(), "graph")
}

// node re-encodes one node: applying e when it is not nil, and
// re-encoding attributes whose subgraphs hold edits.
func (w *rewriter) node(f field, n *Node, e *NodeEdit) (*chunks, error) {
	fs, err := fields(f.b, f.payloadOff(), "node")
	if err != nil {
		return nil, err
	}
	set := map[string]int{}
	if e != nil {
		for i, a := range e.Attrs {
			set[a.Name] = i
		}
	}
	lastAttr := -1
	for i, h := range fs {
		if h.num == nodeAttribute && h.isBytes() {
			lastAttr = i
		}
	}
	out := &chunks{}
	placed := map[string]bool{}
	wroteOp, wroteDomain := false, false
	rest := func() {
		for _, a := range e.Attrs {
			if !placed[a.Name] {
				out.add(appendMessage(nil, nodeAttribute, a.encode()))
				placed[a.Name] = true
			}
		}
	}
	k := 0
	for i, h := range fs {
		switch {
		case e != nil && h.num == nodeOpType && h.isBytes():
			// protobuf keeps the last of repeated scalars; one is enough.
			if !wroteOp {
				out.add(appendString(nil, nodeOpType, e.OpType))
				wroteOp = true
			}
		case e != nil && e.Domain != nil && h.num == nodeDomain && h.isBytes():
			if !wroteDomain {
				out.add(appendString(nil, nodeDomain, *e.Domain))
				wroteDomain = true
			}
		case h.num == nodeAttribute && h.isBytes():
			a := n.Attributes[k]
			k++
			if j, replace := set[a.Name]; replace && e != nil {
				if !placed[a.Name] {
					out.add(appendMessage(nil, nodeAttribute, e.Attrs[j].encode()))
					placed[a.Name] = true
				}
			} else if w.holdsEdits(a) {
				msg, err := w.attribute(h, a)
				if err != nil {
					return nil, err
				}
				out.message(nodeAttribute, msg)
			} else {
				out.add(h.raw)
			}
		default:
			out.add(h.raw)
		}
		if e != nil && i == lastAttr {
			rest()
		}
	}
	if e != nil {
		if lastAttr < 0 {
			rest()
		}
		if !wroteOp {
			out.add(appendString(nil, nodeOpType, e.OpType))
		}
		if e.Domain != nil && !wroteDomain {
			out.add(appendString(nil, nodeDomain, *e.Domain))
		}
	}
	return out, nil
}

func (w *rewriter) holdsEdits(a *Attribute) bool {
	for _, g := range a.subgraphs() {
		if w.graphs[g] {
			return true
		}
	}
	return false
}

// attribute re-encodes an attribute whose subgraphs hold edits.
func (w *rewriter) attribute(f field, a *Attribute) (*chunks, error) {
	fs, err := fields(f.b, f.payloadOff(), "attribute")
	if err != nil {
		return nil, err
	}
	out := &chunks{}
	k := 0
	for _, h := range fs {
		var g *Graph
		switch {
		case h.num == attrG && h.isBytes():
			g = a.G
		case h.num == attrGraphs && h.isBytes():
			g = a.Graphs[k]
			k++
		}
		if g == nil || !w.graphs[g] {
			out.add(h.raw)
			continue
		}
		msg, err := w.graph(h, g)
		if err != nil {
			return nil, err
		}
		out.message(h.num, msg)
	}
	return out, nil
}
