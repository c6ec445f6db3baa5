// Package onnx reads ONNX models and rewrites their nodes in place, on the
// documented field numbers of onnx.proto with protowire.
//
// Reading decodes only what opforge needs (graphs, nodes, attributes,
// value types, tensor headers, external data references) and never copies
// tensor data. Rewriting re-emits every message that holds no change as the
// exact bytes it was read from, so unknown fields, field order, packed or
// unpacked encodings and tensor data survive byte for byte; only the nodes
// being changed (and the messages that contain them, whose lengths change)
// are encoded anew.
package onnx

import (
	"fmt"
	"math"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Model is a decoded ModelProto together with the bytes it came from.
type Model struct {
	IRVersion int64
	Producer  string
	Opsets    []OpsetID
	Graph     *Graph
	// Functions are the model-local functions. Their nodes are read (for
	// external data references) but never selected or rewritten.
	Functions []*Function
	// Training holds the graphs of training_info, read for the same reason.
	Training []*Graph
	// External lists every tensor whose data lives in another file.
	External []ExternalRef
	raw      []byte
}

// OpsetID is one entry of opset_import.
type OpsetID struct {
	Domain  string
	Version int64
}

// Graph is a GraphProto: the main graph, or the body of an If, Loop or
// Scan node.
type Graph struct {
	Name               string
	Nodes              []*Node
	Initializers       []*Tensor
	SparseInitializers []*Tensor
	Inputs             []*ValueInfo
	Outputs            []*ValueInfo
	ValueInfo          []*ValueInfo
	// Parent is the graph holding the node whose attribute this graph is;
	// nil for the main graph. Names a subgraph does not define resolve
	// in its parent (ONNX's lexical scoping).
	Parent *Graph
	// Owner is that node, and OwnerAttr the attribute's name.
	Owner     *Node
	OwnerAttr string
}

// Node is a NodeProto.
type Node struct {
	Name       string
	OpType     string
	Domain     string
	Inputs     []string
	Outputs    []string
	Attributes []*Attribute
	// Graph holds the node (nil for function bodies); Index is its
	// position there.
	Graph *Graph
	Index int
}

// Attribute is an AttributeProto. Type is taken from the file, or inferred
// from the value present when an old file leaves it UNDEFINED.
type Attribute struct {
	Name          string
	Type          AttrType
	F             float32
	I             int64
	S             []byte
	Floats        []float32
	Ints          []int64
	Strings       [][]byte
	T             *Tensor
	G             *Graph
	Graphs        []*Graph
	Tensors       []*Tensor
	SparseTensor  *Tensor
	SparseTensors []*Tensor
}

// Tensor is the header of a TensorProto (its data is never decoded).
// For a sparse tensor it is the header of its values with the dense dims.
type Tensor struct {
	Name     string
	Dims     []int64
	DataType DataType
	// External is set for data_location EXTERNAL; ExternalData holds its
	// key/value entries (location, offset, length, checksum).
	External     bool
	ExternalData []Entry
}

// Entry is a StringStringEntryProto.
type Entry struct{ Key, Value string }

// ExternalRef is one tensor stored outside the model file.
type ExternalRef struct {
	Tensor string
	// Location is the path relative to the model file's directory.
	Location string
}

// ValueInfo is a ValueInfoProto.
type ValueInfo struct {
	Name string
	Type *Type // nil when the file gives no type
}

// TypeKind is the case of TypeProto's value oneof.
type TypeKind int

// TypeProto cases.
const (
	TypeUnknown TypeKind = iota
	TypeTensor
	TypeSparseTensor
	TypeSequence
	TypeMap
	TypeOptional
	TypeOpaque
)

var typeKindNames = [...]string{"unknown", "tensor", "sparse tensor", "sequence", "map", "optional", "opaque"}

func (k TypeKind) String() string { return typeKindNames[k] }

// Type is a TypeProto. Elem and Shape describe (sparse) tensors; Ranked is
// false when the tensor type carries no shape at all (unknown rank).
type Type struct {
	Kind   TypeKind
	Elem   DataType
	Ranked bool
	Shape  []Dim
	// Inner is the element type of a sequence or optional.
	Inner *Type
}

// Dim is one TensorShapeProto.Dimension: a value, a symbolic name, or
// neither (unknown).
type Dim struct {
	Value    int64
	HasValue bool
	Param    string
}

// Function is a model-local FunctionProto.
type Function struct {
	Name, Domain string
	Nodes        []*Node
}

// Attr returns the node's attribute called name, or nil.
func (n *Node) Attr(name string) *Attribute {
	for _, a := range n.Attributes {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// String names the node for messages: its name when it has one, else its
// position, with its op type.
func (n *Node) String() string {
	where := ""
	if n.Graph != nil && n.Graph.Owner != nil {
		where = fmt.Sprintf(" in the %s body of %s", n.Graph.OwnerAttr, n.Graph.Owner)
	}
	if n.Name != "" {
		return fmt.Sprintf("node %q (%s)%s", n.Name, n.OpType, where)
	}
	return fmt.Sprintf("node #%d (%s, unnamed)%s", n.Index, n.OpType, where)
}

// Nodes lists the nodes of the main graph and of every subgraph inside
// it, depth first in file order: a node, then the nodes of its subgraphs.
func (m *Model) Nodes() []*Node {
	var out []*Node
	var walk func(g *Graph)
	walk = func(g *Graph) {
		for _, n := range g.Nodes {
			out = append(out, n)
			for _, a := range n.Attributes {
				for _, sub := range a.subgraphs() {
					walk(sub)
				}
			}
		}
	}
	if m.Graph != nil {
		walk(m.Graph)
	}
	return out
}

func (a *Attribute) subgraphs() []*Graph {
	if a.G != nil {
		return append([]*Graph{a.G}, a.Graphs...)
	}
	return a.Graphs
}

// OpsetVersion is the opset version the model imports for domain ("" and
// "ai.onnx" are the same domain), and whether it imports it at all.
func (m *Model) OpsetVersion(domain string) (int64, bool) {
	for _, o := range m.Opsets {
		if normDomain(o.Domain) == normDomain(domain) {
			return o.Version, true
		}
	}
	return 0, false
}

func normDomain(d string) string {
	if d == "ai.onnx" {
		return ""
	}
	return d
}

// IsDefaultDomain reports the ONNX operator domain ("" or "ai.onnx").
func IsDefaultDomain(d string) bool { return normDomain(d) == "" }

// Read decodes a serialized ModelProto. A malformed or truncated model
// gives a *FormatError saying where.
func Read(data []byte) (*Model, error) {
	r := &reader{}
	m, err := r.model(data)
	if err != nil {
		return nil, err
	}
	m.raw = data
	return m, nil
}

// reader decodes messages; it collects external data references as it
// meets tensors anywhere in the model.
type reader struct {
	external []ExternalRef
}

func dupError(f field, path, what string) error {
	return &FormatError{f.off, path, what + " appears twice; opforge does not merge repeated occurrences of one message"}
}

func (r *reader) model(data []byte) (*Model, error) {
	fs, err := fields(data, 0, "model")
	if err != nil {
		return nil, err
	}
	m := &Model{}
	for _, f := range fs {
		switch {
		case f.num == modelIRVersion && f.isVarint():
			m.IRVersion = int64(f.v)
		case f.num == modelProducer && f.isBytes():
			m.Producer = string(f.b)
		case f.num == modelOpsetImport && f.isBytes():
			o, err := opset(f, "model.opset_import")
			if err != nil {
				return nil, err
			}
			m.Opsets = append(m.Opsets, o)
		case f.num == modelGraph && f.isBytes():
			if m.Graph != nil {
				return nil, dupError(f, "model", "graph")
			}
			if m.Graph, err = r.graph(f, "graph", nil, 0); err != nil {
				return nil, err
			}
		case f.num == modelTraining && f.isBytes():
			if err := r.training(m, f); err != nil {
				return nil, err
			}
		case f.num == modelFunctions && f.isBytes():
			fn, err := r.function(f, fmt.Sprintf("functions[%d]", len(m.Functions)))
			if err != nil {
				return nil, err
			}
			m.Functions = append(m.Functions, fn)
		}
	}
	if m.Graph == nil {
		return nil, &FormatError{0, "model", "no graph: this is not an ONNX model (or it is empty)"}
	}
	m.External = r.external
	return m, nil
}

func opset(f field, path string) (OpsetID, error) {
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return OpsetID{}, err
	}
	var o OpsetID
	for _, g := range fs {
		switch {
		case g.num == opsetDomain && g.isBytes():
			o.Domain = string(g.b)
		case g.num == opsetVersion && g.isVarint():
			o.Version = int64(g.v)
		}
	}
	return o, nil
}

func (r *reader) training(m *Model, f field) error {
	path := fmt.Sprintf("training_info[%d]", len(m.Training))
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return err
	}
	for _, g := range fs {
		if (g.num == trainingInitialization || g.num == trainingAlgorithm) && g.isBytes() {
			gr, err := r.graph(g, path+".graph", nil, 0)
			if err != nil {
				return err
			}
			m.Training = append(m.Training, gr)
		}
	}
	return nil
}

func (r *reader) function(f field, path string) (*Function, error) {
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return nil, err
	}
	fn := &Function{}
	for _, g := range fs {
		switch {
		case g.num == functionName && g.isBytes():
			fn.Name = string(g.b)
		case g.num == functionDomain && g.isBytes():
			fn.Domain = string(g.b)
		case g.num == functionNode && g.isBytes():
			n, err := r.node(g, fmt.Sprintf("%s.node[%d]", path, len(fn.Nodes)), nil, 0)
			if err != nil {
				return nil, err
			}
			fn.Nodes = append(fn.Nodes, n)
		}
	}
	return fn, nil
}

func (r *reader) graph(f field, path string, parent *Graph, depth int) (*Graph, error) {
	if depth > maxDepth {
		return nil, &FormatError{f.off, path, fmt.Sprintf("subgraphs nested over %d deep", maxDepth)}
	}
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return nil, err
	}
	g := &Graph{Parent: parent}
	for _, h := range fs {
		if !h.isBytes() {
			continue
		}
		switch h.num {
		case graphName:
			g.Name = string(h.b)
		case graphNode:
			n, err := r.node(h, fmt.Sprintf("%s.node[%d]", path, len(g.Nodes)), g, depth)
			if err != nil {
				return nil, err
			}
			n.Index = len(g.Nodes)
			g.Nodes = append(g.Nodes, n)
		case graphInitializer:
			t, err := r.tensor(h, fmt.Sprintf("%s.initializer[%d]", path, len(g.Initializers)))
			if err != nil {
				return nil, err
			}
			g.Initializers = append(g.Initializers, t)
		case graphSparseInitializer:
			t, err := r.sparse(h, fmt.Sprintf("%s.sparse_initializer[%d]", path, len(g.SparseInitializers)))
			if err != nil {
				return nil, err
			}
			g.SparseInitializers = append(g.SparseInitializers, t)
		case graphInput, graphOutput, graphValueInfo:
			name, list := "input", &g.Inputs
			if h.num == graphOutput {
				name, list = "output", &g.Outputs
			} else if h.num == graphValueInfo {
				name, list = "value_info", &g.ValueInfo
			}
			v, err := valueInfo(h, fmt.Sprintf("%s.%s[%d]", path, name, len(*list)))
			if err != nil {
				return nil, err
			}
			*list = append(*list, v)
		}
	}
	return g, nil
}

func (r *reader) node(f field, path string, g *Graph, depth int) (*Node, error) {
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return nil, err
	}
	n := &Node{Graph: g}
	var attrFields []field
	for _, h := range fs {
		if !h.isBytes() {
			continue
		}
		switch h.num {
		case nodeInput:
			n.Inputs = append(n.Inputs, string(h.b))
		case nodeOutput:
			n.Outputs = append(n.Outputs, string(h.b))
		case nodeName:
			n.Name = string(h.b)
		case nodeOpType:
			n.OpType = string(h.b)
		case nodeDomain:
			n.Domain = string(h.b)
		case nodeAttribute:
			attrFields = append(attrFields, h)
		}
	}
	// Attributes are decoded once the node's name is known, so subgraph
	// owners and error paths can say which node they belong to.
	for i, h := range attrFields {
		a, err := r.attribute(h, fmt.Sprintf("%s.attribute[%d]", path, i), n, depth)
		if err != nil {
			return nil, err
		}
		n.Attributes = append(n.Attributes, a)
	}
	return n, nil
}

func (r *reader) attribute(f field, path string, owner *Node, depth int) (*Attribute, error) {
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return nil, err
	}
	a := &Attribute{}
	for _, h := range fs {
		if h.num == attrName && h.isBytes() {
			a.Name = string(h.b)
		}
	}
	if a.Name != "" {
		path += "(" + a.Name + ")"
	}
	seen := map[AttrType]bool{}
	for _, h := range fs {
		var err error
		switch {
		case h.num == attrType && h.isVarint():
			a.Type = AttrType(int32(h.v))
		case h.num == attrF && h.typ == protowire.Fixed32Type:
			a.F, seen[AttrFloat] = math.Float32frombits(uint32(h.v)), true
		case h.num == attrI && h.isVarint():
			a.I, seen[AttrInt] = int64(h.v), true
		case h.num == attrS && h.isBytes():
			a.S, seen[AttrString] = h.b, true
		case h.num == attrT && h.isBytes():
			if a.T != nil {
				return nil, dupError(h, path, "t")
			}
			a.T, err = r.tensor(h, path+".t")
			seen[AttrTensor] = true
		case h.num == attrG && h.isBytes():
			if a.G != nil {
				return nil, dupError(h, path, "g")
			}
			a.G, err = r.graph(h, path+".g", owner.Graph, depth+1)
			if a.G != nil {
				a.G.Owner, a.G.OwnerAttr = owner, a.Name
			}
			seen[AttrGraph] = true
		case h.num == attrSparseTensor && h.isBytes():
			a.SparseTensor, err = r.sparse(h, path+".sparse_tensor")
			seen[AttrSparseTensor] = true
		case h.num == attrTP && h.isBytes():
			seen[AttrTypeProto] = true
		case h.num == attrFloats:
			var v []float32
			v, err = h.float32s(path + ".floats")
			a.Floats, seen[AttrFloats] = append(a.Floats, v...), true
		case h.num == attrInts:
			var v []int64
			v, err = h.int64s(path + ".ints")
			a.Ints, seen[AttrInts] = append(a.Ints, v...), true
		case h.num == attrStrings && h.isBytes():
			a.Strings, seen[AttrStrings] = append(a.Strings, h.b), true
		case h.num == attrTensors && h.isBytes():
			var t *Tensor
			t, err = r.tensor(h, fmt.Sprintf("%s.tensors[%d]", path, len(a.Tensors)))
			a.Tensors, seen[AttrTensors] = append(a.Tensors, t), true
		case h.num == attrGraphs && h.isBytes():
			var g *Graph
			g, err = r.graph(h, fmt.Sprintf("%s.graphs[%d]", path, len(a.Graphs)), owner.Graph, depth+1)
			if g != nil {
				g.Owner, g.OwnerAttr = owner, a.Name
			}
			a.Graphs, seen[AttrGraphs] = append(a.Graphs, g), true
		case h.num == attrSparseTensors && h.isBytes():
			var t *Tensor
			t, err = r.sparse(h, fmt.Sprintf("%s.sparse_tensors[%d]", path, len(a.SparseTensors)))
			a.SparseTensors, seen[AttrSparseTensors] = append(a.SparseTensors, t), true
		case h.num == attrTypeProtos && h.isBytes():
			seen[AttrTypeProtos] = true
		}
		if err != nil {
			return nil, err
		}
	}
	if a.Type == AttrUndefined && len(seen) == 1 {
		for t := range seen {
			a.Type = t
		}
	}
	return a, nil
}

func (r *reader) tensor(f field, path string) (*Tensor, error) {
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return nil, err
	}
	t := &Tensor{}
	for _, h := range fs {
		switch {
		case h.num == tensorDims:
			d, err := h.int64s(path + ".dims")
			if err != nil {
				return nil, err
			}
			t.Dims = append(t.Dims, d...)
		case h.num == tensorDataType && h.isVarint():
			t.DataType = DataType(int32(h.v))
		case h.num == tensorName && h.isBytes():
			t.Name = string(h.b)
		case h.num == tensorDataLocation && h.isVarint():
			t.External = int32(h.v) == locationExternal
		case h.num == tensorExternalData && h.isBytes():
			e, err := entry(h, path+".external_data")
			if err != nil {
				return nil, err
			}
			t.ExternalData = append(t.ExternalData, e)
		}
	}
	if t.External {
		ref := ExternalRef{Tensor: t.Name}
		for _, e := range t.ExternalData {
			if e.Key == "location" {
				ref.Location = e.Value
			}
		}
		r.external = append(r.external, ref)
	}
	return t, nil
}

func (r *reader) sparse(f field, path string) (*Tensor, error) {
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return nil, err
	}
	t := &Tensor{}
	var dims []int64
	for _, h := range fs {
		switch {
		case h.num == sparseValues && h.isBytes():
			v, err := r.tensor(h, path+".values")
			if err != nil {
				return nil, err
			}
			t.Name, t.DataType = v.Name, v.DataType
		case h.num == sparseIndices && h.isBytes():
			if _, err := r.tensor(h, path+".indices"); err != nil {
				return nil, err
			}
		case h.num == sparseDims:
			d, err := h.int64s(path + ".dims")
			if err != nil {
				return nil, err
			}
			dims = append(dims, d...)
		}
	}
	t.Dims = dims
	return t, nil
}

func entry(f field, path string) (Entry, error) {
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return Entry{}, err
	}
	var e Entry
	for _, h := range fs {
		switch {
		case h.num == entryKey && h.isBytes():
			e.Key = string(h.b)
		case h.num == entryValue && h.isBytes():
			e.Value = string(h.b)
		}
	}
	return e, nil
}

func valueInfo(f field, path string) (*ValueInfo, error) {
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return nil, err
	}
	v := &ValueInfo{}
	for _, h := range fs {
		switch {
		case h.num == valueInfoName && h.isBytes():
			v.Name = string(h.b)
		case h.num == valueInfoType && h.isBytes():
			if v.Type != nil {
				return nil, dupError(h, path, "type")
			}
			if v.Type, err = typeProto(h, path+".type", 0); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

func typeProto(f field, path string, depth int) (*Type, error) {
	if depth > maxDepth {
		return nil, &FormatError{f.off, path, fmt.Sprintf("types nested over %d deep", maxDepth)}
	}
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return nil, err
	}
	t := &Type{}
	for _, h := range fs {
		if !h.isBytes() {
			continue
		}
		var err error
		switch h.num {
		case typeTensor, typeSparseTensor:
			t.Kind = TypeTensor
			if h.num == typeSparseTensor {
				t.Kind = TypeSparseTensor
			}
			err = tensorType(t, h, path+".tensor_type")
		case typeSequence, typeOptional:
			t.Kind = TypeSequence
			if h.num == typeOptional {
				t.Kind = TypeOptional
			}
			var inner []field
			inner, err = fields(h.b, h.payloadOff(), path)
			for _, in := range inner {
				if in.num == 1 && in.isBytes() && err == nil {
					t.Inner, err = typeProto(in, path+".elem_type", depth+1)
				}
			}
		case typeMap:
			t.Kind = TypeMap
		case typeOpaque:
			t.Kind = TypeOpaque
		}
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}

func tensorType(t *Type, f field, path string) error {
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return err
	}
	for _, h := range fs {
		switch {
		case h.num == tensorTypeElem && h.isVarint():
			t.Elem = DataType(int32(h.v))
		case h.num == tensorTypeShape && h.isBytes():
			t.Ranked = true
			ds, err := fields(h.b, h.payloadOff(), path+".shape")
			if err != nil {
				return err
			}
			for _, d := range ds {
				if d.num != shapeDim || !d.isBytes() {
					continue
				}
				dim, err := dimension(d, fmt.Sprintf("%s.shape.dim[%d]", path, len(t.Shape)))
				if err != nil {
					return err
				}
				t.Shape = append(t.Shape, dim)
			}
		}
	}
	return nil
}

func dimension(f field, path string) (Dim, error) {
	fs, err := fields(f.b, f.payloadOff(), path)
	if err != nil {
		return Dim{}, err
	}
	var d Dim
	// dim_value and dim_param are a oneof: the last one set wins.
	for _, h := range fs {
		switch {
		case h.num == dimValue && h.isVarint():
			d = Dim{Value: int64(h.v), HasValue: true}
		case h.num == dimParam && h.isBytes():
			d = Dim{Param: string(h.b)}
		}
	}
	return d, nil
}

// String renders a type the way ONNX tools print it, for messages:
// float32[N,3,?].
func (t *Type) String() string {
	if t == nil {
		return "(no type)"
	}
	switch t.Kind {
	case TypeTensor, TypeSparseTensor:
		s := t.Elem.String()
		if t.Kind == TypeSparseTensor {
			s = "sparse " + s
		}
		if !t.Ranked {
			return s + "[*]"
		}
		dims := make([]string, len(t.Shape))
		for i, d := range t.Shape {
			switch {
			case d.HasValue:
				dims[i] = fmt.Sprint(d.Value)
			case d.Param != "":
				dims[i] = d.Param
			default:
				dims[i] = "?"
			}
		}
		return s + "[" + strings.Join(dims, ",") + "]"
	case TypeSequence, TypeOptional:
		return t.Kind.String() + "(" + t.Inner.String() + ")"
	}
	return t.Kind.String()
}
