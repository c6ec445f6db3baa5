// Package onnxtest builds serialized ONNX models for tests, field by field
// with protowire on onnx.proto's field numbers, so tests need neither
// Python nor generated protobuf code. Extra bytes can be appended to any
// message to test that unknown fields survive.
package onnxtest

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Model is a ModelProto.
type Model struct {
	IRVersion int64
	Opsets    []Opset
	Graph     Graph
	Producer  string
	// Extra is appended to the message as is (unknown fields).
	Extra []byte
}

// Opset is an OperatorSetIdProto.
type Opset struct {
	Domain  string
	Version int64
}

// Graph is a GraphProto.
type Graph struct {
	Name         string
	Nodes        []Node
	Initializers []Tensor
	Inputs       []Value
	Outputs      []Value
	ValueInfo    []Value
	Extra        []byte
}

// Node is a NodeProto.
type Node struct {
	Name, OpType, Domain string
	Inputs, Outputs      []string
	Attrs                []Attr
	Extra                []byte
}

// Attr is an AttributeProto; Type is AttributeProto.AttributeType.
type Attr struct {
	Name    string
	Type    int
	F       float32
	I       int64
	S       string
	Floats  []float32
	Ints    []int64
	Strings []string
	T       *Tensor
	G       *Graph
}

// Value is a ValueInfoProto holding a tensor type. Dims are int (a value),
// string (a symbol) or nil (unknown); Unranked leaves the shape out and
// NoType the whole type.
type Value struct {
	Name     string
	Elem     int
	Dims     []any
	Unranked bool
	NoType   bool
}

// Tensor is a TensorProto; External entries make it external data.
type Tensor struct {
	Name     string
	Dims     []int64
	DataType int
	Raw      []byte
	External [][2]string
}

// Attribute type numbers, for Attr.Type.
const (
	AttrFloat   = 1
	AttrInt     = 2
	AttrString  = 3
	AttrTensor  = 4
	AttrGraph   = 5
	AttrFloats  = 6
	AttrInts    = 7
	AttrStrings = 8
)

// Element type numbers (TensorProto.DataType).
const (
	Float   = 1
	Uint8   = 2
	Int8    = 3
	Int32   = 6
	Int64   = 7
	String  = 8
	Bool    = 9
	Float16 = 10
	Double  = 11
)

func str(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func msg(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

func varint(b []byte, num protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

// Bytes serializes the model.
func (m Model) Bytes() []byte {
	ir := m.IRVersion
	if ir == 0 {
		ir = 8
	}
	b := varint(nil, 1, ir)
	if m.Producer != "" {
		b = str(b, 2, m.Producer)
	}
	b = msg(b, 7, m.Graph.Bytes())
	opsets := m.Opsets
	if opsets == nil {
		opsets = []Opset{{Domain: "", Version: 17}}
	}
	for _, o := range opsets {
		b = msg(b, 8, varint(str(nil, 1, o.Domain), 2, o.Version))
	}
	return append(b, m.Extra...)
}

// Bytes serializes the graph.
func (g Graph) Bytes() []byte {
	var b []byte
	for _, n := range g.Nodes {
		b = msg(b, 1, n.Bytes())
	}
	b = str(b, 2, g.Name)
	for _, t := range g.Initializers {
		b = msg(b, 5, t.Bytes())
	}
	for _, v := range g.Inputs {
		b = msg(b, 11, v.Bytes())
	}
	for _, v := range g.Outputs {
		b = msg(b, 12, v.Bytes())
	}
	for _, v := range g.ValueInfo {
		b = msg(b, 13, v.Bytes())
	}
	return append(b, g.Extra...)
}

// Bytes serializes the node.
func (n Node) Bytes() []byte {
	var b []byte
	for _, s := range n.Inputs {
		b = str(b, 1, s)
	}
	for _, s := range n.Outputs {
		b = str(b, 2, s)
	}
	if n.Name != "" {
		b = str(b, 3, n.Name)
	}
	b = str(b, 4, n.OpType)
	for _, a := range n.Attrs {
		b = msg(b, 5, a.Bytes())
	}
	if n.Domain != "" {
		b = str(b, 7, n.Domain)
	}
	return append(b, n.Extra...)
}

// Bytes serializes the attribute.
func (a Attr) Bytes() []byte {
	b := str(nil, 1, a.Name)
	switch a.Type {
	case AttrFloat:
		b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.F))
	case AttrInt:
		b = varint(b, 3, a.I)
	case AttrString:
		b = str(b, 4, a.S)
	case AttrTensor:
		b = msg(b, 5, a.T.Bytes())
	case AttrGraph:
		b = msg(b, 6, a.G.Bytes())
	case AttrFloats:
		for _, f := range a.Floats {
			b = protowire.AppendTag(b, 7, protowire.Fixed32Type)
			b = protowire.AppendFixed32(b, math.Float32bits(f))
		}
	case AttrInts:
		for _, v := range a.Ints {
			b = varint(b, 8, v)
		}
	case AttrStrings:
		for _, s := range a.Strings {
			b = str(b, 9, s)
		}
	}
	return varint(b, 20, int64(a.Type))
}

// Bytes serializes the value info.
func (v Value) Bytes() []byte {
	b := str(nil, 1, v.Name)
	if v.NoType {
		return b
	}
	tt := varint(nil, 1, int64(v.Elem))
	if !v.Unranked {
		var shape []byte
		for _, d := range v.Dims {
			var dim []byte
			switch d := d.(type) {
			case int:
				dim = varint(nil, 1, int64(d))
			case string:
				dim = str(nil, 2, d)
			}
			shape = msg(shape, 1, dim)
		}
		if shape == nil {
			shape = []byte{}
		}
		tt = msg(tt, 2, shape)
	}
	return msg(b, 2, msg(nil, 1, tt))
}

// Bytes serializes the tensor.
func (t Tensor) Bytes() []byte {
	var b []byte
	for _, d := range t.Dims {
		b = varint(b, 1, d)
	}
	b = varint(b, 2, int64(t.DataType))
	b = str(b, 8, t.Name)
	if t.Raw != nil {
		b = msg(b, 9, t.Raw)
	}
	for _, e := range t.External {
		b = msg(b, 13, str(str(nil, 1, e[0]), 2, e[1]))
	}
	if t.External != nil {
		b = varint(b, 14, 1)
	}
	return b
}
