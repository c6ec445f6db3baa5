package onnx

import (
	"fmt"
	"strings"
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
	raw           []byte
}

// Encoded is the AttributeProto as the file holds it; nil for an
// attribute not read from a file.
func (a *Attribute) Encoded() []byte { return a.raw }

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

// ValueInfo is a ValueInfoProto. Its type is decoded when asked for
// (Type): a model types every one of its values, and an import needs the
// types of a few.
type ValueInfo struct {
	Name string
	// typ is the TypeProto's bytes (nil when the file gives none) and
	// typOff their offset in the file; Read has checked them.
	typ    []byte
	typOff int
}

// TypeBytes is the value's TypeProto as the file holds it (nil when the
// file gives none): values of equal bytes have equal types.
func (v *ValueInfo) TypeBytes() []byte { return v.typ }

// Type decodes the value's type; nil when the file gives none.
func (v *ValueInfo) Type() *Type {
	if v.typ == nil {
		return nil
	}
	t, err := typeProto(v.typ, v.typOff, 0, true)
	if err != nil {
		// Read checked these bytes: unreachable.
		return &Type{}
	}
	return t
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
