package onnximport

import (
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/onnx"
)

// value is what the graph says about one value name.
type value struct {
	typ *onnx.Type
	// static: an initializer or the output of a Constant node, known when
	// the engine is built (TensorRT imports both as weights).
	static bool
}

// scopes resolves value names the way ONNX scopes them: a subgraph sees
// its own values and those of the graphs around it.
type scopes map[*onnx.Graph]map[string]value

func (s scopes) lookup(g *onnx.Graph, name string) (value, bool) {
	for ; g != nil; g = g.Parent {
		vals, ok := s[g]
		if !ok {
			vals = graphValues(g)
			s[g] = vals
		}
		if v, ok := vals[name]; ok {
			return v, true
		}
	}
	return value{}, false
}

func graphValues(g *onnx.Graph) map[string]value {
	vals := map[string]value{}
	for _, list := range [][]*onnx.ValueInfo{g.Inputs, g.Outputs, g.ValueInfo} {
		for _, vi := range list {
			if vi.Type != nil && vi.Type.Kind != onnx.TypeUnknown {
				vals[vi.Name] = value{typ: vi.Type}
			} else if _, ok := vals[vi.Name]; !ok {
				vals[vi.Name] = value{}
			}
		}
	}
	static := func(name string, t *onnx.Type) {
		v := vals[name]
		v.static = true
		if v.typ == nil {
			v.typ = t
		}
		vals[name] = v
	}
	for _, t := range g.Initializers {
		static(t.Name, tensorType(t.DataType, t.Dims))
	}
	for _, t := range g.SparseInitializers {
		static(t.Name, tensorType(t.DataType, t.Dims))
	}
	for _, n := range g.Nodes {
		if n.OpType == "Constant" && onnx.IsDefaultDomain(n.Domain) && len(n.Outputs) == 1 {
			static(n.Outputs[0], constantType(n))
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
