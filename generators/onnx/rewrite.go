package onnx

import (
	"fmt"
	"io"
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
	out, err := m.RewriteOutput(edits, addOpsets)
	if err != nil {
		return nil, err
	}
	return out.c.bytes(), nil
}

// Output is a rewritten model as the list of byte runs it is made of
// (most of them runs of the model read), to be written out without
// first joining them into one copy.
type Output struct {
	c *chunks
	i int // the next part to read
}

// Len is the rewritten model's size in bytes.
func (o *Output) Len() int { return o.c.n }

// Read implements io.Reader.
func (o *Output) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && o.i < len(o.c.parts) {
		k := copy(p[n:], o.c.parts[o.i])
		n += k
		if o.c.parts[o.i] = o.c.parts[o.i][k:]; len(o.c.parts[o.i]) == 0 {
			o.i++
		}
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// RewriteOutput is Rewrite, giving the model as an Output to read once.
func (m *Model) RewriteOutput(edits map[*Node]NodeEdit, addOpsets []OpsetID) (*Output, error) {
	w := &rewriter{edits: edits, graphs: map[*Graph]bool{}, nodes: map[*Node]bool{}, enc: map[*NewAttr][]byte{}, str: map[string][]byte{}}
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
			out.message(w.header(modelGraph, g.n), g)
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
	return &Output{c: out}, nil
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

// message adds a length-delimited field: its tag and length hdr, then
// msg.
func (c *chunks) message(hdr []byte, msg *chunks) {
	c.add(hdr)
	for _, p := range msg.parts {
		c.add(p)
	}
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
	// arena holds the bytes the rewrite makes, in chunks: the edited
	// nodes of a graph follow each other there, and join into few parts.
	arena []byte
	// scratch is where an edited node is encoded before it is copied
	// to the arena behind its length.
	scratch []byte
	// enc and str are the encodings of attributes and strings already
	// made: a million nodes rewritten alike share them.
	enc map[*NewAttr][]byte
	str map[string][]byte
}

// put copies b to the arena and returns the copy.
func (w *rewriter) put(b ...[]byte) []byte {
	need := 0
	for _, x := range b {
		need += len(x)
	}
	if cap(w.arena)-len(w.arena) < need {
		w.arena = make([]byte, 0, max(1<<20, need))
	}
	start := len(w.arena)
	for _, x := range b {
		w.arena = append(w.arena, x...)
	}
	// The capacity runs on, so the next copy joins this one's part.
	return w.arena[start:]
}

// header is the tag and length of a length-delimited field of n bytes.
func (w *rewriter) header(num protowire.Number, n int) []byte {
	var hdr [16]byte
	b := protowire.AppendTag(hdr[:0], num, protowire.BytesType)
	return w.put(protowire.AppendVarint(b, uint64(n)))
}

// encoded is a's encoding as a node attribute field.
func (w *rewriter) encoded(a *NewAttr) []byte {
	b, ok := w.enc[a]
	if !ok {
		b = appendMessage(nil, nodeAttribute, a.encode())
		w.enc[a] = b
	}
	return b
}

// stringField is the encoding of string field num holding s.
func (w *rewriter) stringField(num protowire.Number, s string) []byte {
	key := string(rune(num)) + s
	b, ok := w.str[key]
	if !ok {
		b = appendString(nil, num, s)
		w.str[key] = b
	}
	return b
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
		if edited && !w.nodes[n] {
			b, err := w.leaf(h, n, &edit)
			if err != nil {
				return nil, err
			}
			out.add(b)
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
		out.message(w.header(graphNode, msg.n), msg)
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
				out.message(w.header(nodeAttribute, msg.n), msg)
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
		out.message(w.header(h.num, msg.n), msg)
	}
	return out, nil
}

// leaf encodes an edited node that holds no other edit, as node does,
// whole into the arena: the node field, tag and length included.
func (w *rewriter) leaf(f field, n *Node, e *NodeEdit) ([]byte, error) {
	lastAttr, i := -1, 0
	it := f.iter()
	var h field
	for ; it.next(&h); i++ {
		if h.num == nodeAttribute && h.isBytes() {
			lastAttr = i
		}
	}
	if err := it.end(); err != nil {
		return nil, at(err, "node")
	}
	b := w.scratch[:0]
	var placed []string
	isPlaced := func(name string) bool {
		for _, p := range placed {
			if p == name {
				return true
			}
		}
		return false
	}
	// replacing is the edit's last attribute called name, or -1.
	replacing := func(name string) int {
		j := -1
		for k := range e.Attrs {
			if e.Attrs[k].Name == name {
				j = k
			}
		}
		return j
	}
	rest := func() {
		for k := range e.Attrs {
			if a := &e.Attrs[k]; !isPlaced(a.Name) {
				b = append(b, w.encoded(a)...)
				placed = append(placed, a.Name)
			}
		}
	}
	wroteOp, wroteDomain := false, false
	k := 0
	for i, it = 0, f.iter(); it.next(&h); i++ {
		switch {
		case h.num == nodeOpType && h.isBytes():
			// protobuf keeps the last of repeated scalars; one is enough.
			if !wroteOp {
				b = append(b, w.stringField(nodeOpType, e.OpType)...)
				wroteOp = true
			}
		case e.Domain != nil && h.num == nodeDomain && h.isBytes():
			if !wroteDomain {
				b = append(b, w.stringField(nodeDomain, *e.Domain)...)
				wroteDomain = true
			}
		case h.num == nodeAttribute && h.isBytes():
			a := n.Attributes[k]
			k++
			if j := replacing(a.Name); j >= 0 {
				if !isPlaced(a.Name) {
					b = append(b, w.encoded(&e.Attrs[j])...)
					placed = append(placed, a.Name)
				}
			} else {
				b = append(b, h.raw...)
			}
		default:
			b = append(b, h.raw...)
		}
		if i == lastAttr {
			rest()
		}
	}
	if lastAttr < 0 {
		rest()
	}
	if !wroteOp {
		b = append(b, w.stringField(nodeOpType, e.OpType)...)
	}
	if e.Domain != nil && !wroteDomain {
		b = append(b, w.stringField(nodeDomain, *e.Domain)...)
	}
	w.scratch = b
	var hdr [16]byte
	tag := protowire.AppendTag(hdr[:0], graphNode, protowire.BytesType)
	return w.put(protowire.AppendVarint(tag, uint64(len(b))), b), nil
}
