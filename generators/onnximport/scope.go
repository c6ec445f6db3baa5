package onnximport

import (
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/onnx"
)

// value is what the graph says about one value name.
type value struct {
	typ *onnx.Type
	// static: an initializer or the output of a Constant node, known when
	// the engine is built (a runtime imports both as weights).
	static bool
	// id numbers typ among the distinct types met (0: none), for
	// deriveKey.
	id int
}

// scopes resolves value names the way ONNX scopes them: a subgraph sees
// its own values and those of the graphs around it. Only the names of
// want are indexed (all when want is nil): typing the few selected nodes
// of a model of a million values needs a few of its types.
type scopes struct {
	graphs map[*onnx.Graph]map[string]value
	want   map[string]bool
	// types interns types by their bytes (a value info's TypeProto, or
	// appendType's key for the types of initializers and Constants): a
	// model of a million values of one type decodes it once.
	types *interned
}

type interned struct {
	ids  map[string]int
	typs []*onnx.Type
}

// intern returns the type of key and its id, made by decode the first
// time.
func (s scopes) intern(key []byte, decode func() *onnx.Type) (*onnx.Type, int) {
	if s.types == nil {
		return decode(), 0
	}
	if id, ok := s.types.ids[string(key)]; ok {
		return s.types.typs[id-1], id
	}
	t := decode()
	s.types.typs = append(s.types.typs, t)
	id := len(s.types.typs)
	s.types.ids[string(key)] = id
	return t, id
}

// newScopes indexes the values nodes read or write: all values, when
// the nodes are many (a set of their names would cost as much).
func newScopes(nodes []*onnx.Node) scopes {
	s := scopes{graphs: map[*onnx.Graph]map[string]value{}, types: &interned{ids: map[string]int{}}}
	if len(nodes) > 4096 {
		return s
	}
	want := map[string]bool{}
	for _, n := range nodes {
		for _, v := range n.Inputs {
			want[v] = true
		}
		for _, v := range n.Outputs {
			want[v] = true
		}
	}
	s.want = want
	return s
}

func (s scopes) lookup(g *onnx.Graph, name string) (value, bool) {
	for ; g != nil; g = g.Parent {
		vals, ok := s.graphs[g]
		if !ok {
			vals = s.graphValues(g)
			if s.graphs != nil {
				s.graphs[g] = vals
			}
		}
		if v, ok := vals[name]; ok {
			return v, true
		}
	}
	return value{}, false
}

func (s scopes) graphValues(g *onnx.Graph) map[string]value {
	wanted := func(name string) bool { return s.want == nil || s.want[name] }
	var vals map[string]value
	if s.want == nil {
		vals = make(map[string]value, len(g.Inputs)+len(g.Outputs)+len(g.ValueInfo))
	} else {
		vals = map[string]value{}
	}
	for _, list := range [][]*onnx.ValueInfo{g.Inputs, g.Outputs, g.ValueInfo} {
		for _, vi := range list {
			if !wanted(vi.Name) {
				continue
			}
			if vi.TypeBytes() == nil {
				if _, ok := vals[vi.Name]; !ok {
					vals[vi.Name] = value{}
				}
				continue
			}
			t, id := s.intern(vi.TypeBytes(), vi.Type)
			if t.Kind != onnx.TypeUnknown {
				vals[vi.Name] = value{typ: t, id: id}
			} else if _, ok := vals[vi.Name]; !ok {
				vals[vi.Name] = value{}
			}
		}
	}
	static := func(name string, t func() *onnx.Type) {
		if !wanted(name) {
			return
		}
		v := vals[name]
		v.static = true
		if v.typ == nil {
			typ := t()
			// Not a TypeProto's bytes: those start with a field tag.
			key := appendType([]byte{'#'}, typ, 0)
			v.typ, v.id = s.intern(key, func() *onnx.Type { return typ })
		}
		vals[name] = v
	}
	for _, t := range g.Initializers {
		static(t.Name, func() *onnx.Type { return tensorType(t.DataType, t.Dims) })
	}
	for _, t := range g.SparseInitializers {
		static(t.Name, func() *onnx.Type { return tensorType(t.DataType, t.Dims) })
	}
	for _, n := range g.Nodes {
		if n.OpType == "Constant" && onnx.IsDefaultDomain(n.Domain) && len(n.Outputs) == 1 {
			static(n.Outputs[0], func() *onnx.Type { return constantType(n) })
		}
	}
	return vals
}

func tensorType(dt onnx.DataType, dims []int64) *onnx.Type {
	t := &onnx.Type{Kind: onnx.TypeTensor, Elem: dt, Ranked: true, Shape: []onnx.Dim{}}
	for _, d := range dims {
		t.Shape = append(t.Shape, onnx.Dim{Value: d, HasValue: true})
	}
	return t
}

// constantType is the type of a Constant node's output, from whichever
// value attribute it has.
func constantType(n *onnx.Node) *onnx.Type {
	for _, a := range n.Attributes {
		switch a.Name {
		case "value", "sparse_value":
			if t := a.T; t != nil {
				return tensorType(t.DataType, t.Dims)
			}
			if t := a.SparseTensor; t != nil {
				return tensorType(t.DataType, t.Dims)
			}
		case "value_float":
			return tensorType(onnx.Float, nil)
		case "value_floats":
			return tensorType(onnx.Float, []int64{int64(len(a.Floats))})
		case "value_int":
			return tensorType(onnx.Int64, nil)
		case "value_ints":
			return tensorType(onnx.Int64, []int64{int64(len(a.Ints))})
		case "value_string":
			return tensorType(onnx.String, nil)
		case "value_strings":
			return tensorType(onnx.String, []int64{int64(len(a.Strings))})
		}
	}
	return nil
}

// dtypes maps ONNX element types to opforge's vocabulary. The others
// (complex, 2/4/6-bit, the FNUZ and E5M2/E8M0 floats) have no opforge
// dtype yet.
var dtypes = map[onnx.DataType]ir.DType{
	onnx.Float: ir.Float32, onnx.Uint8: ir.Uint8, onnx.Int8: ir.Int8, onnx.Uint16: ir.Uint16,
	onnx.Int16: ir.Int16, onnx.Int32: ir.Int32, onnx.Int64: ir.Int64, onnx.String: ir.String,
	onnx.Bool: ir.Bool, onnx.Float16: ir.Float16, onnx.Double: ir.Float64, onnx.Uint32: ir.Uint32,
	onnx.Uint64: ir.Uint64, onnx.BFloat16: ir.BFloat16, onnx.Float8E4M3FN: ir.Float8E4,
}
