package trt

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/literal"
)

// readmeOp is what the package README shows for one op: its fields and
// how to pass them from each front end, as lists the README prints (its
// most printed fields come first).
type readmeOp struct {
	Name string
	// Plugin, Version and Namespace are the plugin's identity (PluginID).
	Plugin, Version, Namespace string
	Inputs                     []string // input identifiers
	// TensorInputs and ShapeInputList split Inputs as addPluginV3 takes
	// them: regular inputs, then shape tensors in their own list.
	TensorInputs, ShapeInputList []string
	// Domain is the ONNX domain of the node, the package's: the domain
	// `rewrite onnx` moves plugin nodes to, so onnx.checker accepts them.
	Domain string
	QDP    bool
	// Examples are a value of each param as every front end writes it.
	Examples    []readmeExample
	Description string
	// Optional lists the optional inputs as Markdown code spans.
	Optional    []string
	ShapeInputs []string // ONNX input indices of shape tensors
	Outputs     []string // output identifiers
	// Fields are the fields table's rows (none without params).
	Fields []readmeField
	// ONNXInputs and ONNXOutputs are make_node's lists, as Python
	// strings ("" for none, as make_node's lists have always read).
	ONNXInputs, ONNXOutputs []string
	// ONNXNumpy: an attribute is a tensor, written with numpy_helper.
	ONNXNumpy bool
	// TripyOut is tp.plugin's output_info: each output's rank and dtype.
	TripyOut []tripyOutput
	// Lib and Legacy are the package's library name and plugin
	// interface, which the op's section prints ("readme-op").
	Lib    string
	Legacy bool
}

// readmeField is a row of the fields table: the field's name (a Markdown
// code span), its declared PluginFieldType, its length ("any" for none)
// and its documentation (Markdown text).
type readmeField struct{ Name, Type, Length, Doc string }

// readmeExample is one param's example value: Name (the attribute's and
// keyword's name) and the value as an ONNX make_node attribute, an
// nvtripy keyword of the C++ plugin (Tripy) and of the Python plugin
// (Quick), and a PluginField (Numpy, of field type FieldType).
type readmeExample struct {
	Name, ONNX, Tripy, Quick, Numpy, FieldType string
}

// tripyOutput is an output as nvtripy's output_info describes it.
type tripyOutput struct {
	Rank  int
	DType string
}

func newReadmeOp(pkg *packageModel, op *ir.Op, m *opModel) *readmeOp {
	l := m.layout
	r := &readmeOp{Name: op.Name, Plugin: m.PluginName, Version: m.PluginVersion, Namespace: m.PluginNamespace, Description: m.Description, QDP: OpOptions(op).QDP != nil, Lib: pkg.Name, Legacy: pkg.Legacy}
	r.Inputs, r.Outputs = make([]string, len(op.Inputs)), make([]string, len(op.Outputs))
	for i, t := range op.Inputs {
		r.Inputs[i] = t.Ident
		if t.Optional {
			r.Optional = append(r.Optional, escape.MarkdownCode(t.Name))
		}
		if t.ShapeTensor {
			r.ShapeInputs = append(r.ShapeInputs, strconv.Itoa(i))
			r.ShapeInputList = append(r.ShapeInputList, t.Ident)
		} else {
			r.TensorInputs = append(r.TensorInputs, t.Ident)
		}
	}
	r.Domain = pkg.Domain
	for i, t := range op.Outputs {
		r.Outputs[i] = t.Ident
	}
	r.ONNXInputs, r.ONNXOutputs = quotedList(r.Inputs), quotedList(r.Outputs)
	r.Fields, r.Examples = make([]readmeField, len(m.Params)), make([]readmeExample, len(m.Params))
	for i, p := range m.Params {
		length := strconv.Itoa(int(p.FieldLength))
		if p.FieldLength == 0 {
			length = "any"
		}
		r.Fields[i] = readmeField{Name: escape.MarkdownCode(p.Name), Type: string(p.FieldType), Length: length, Doc: escape.MarkdownText(p.Doc)}
		v := exampleValue(p)
		r.ONNXNumpy = r.ONNXNumpy || v.tensor
		r.Examples[i] = readmeExample{Name: p.Name, ONNX: v.onnx, Tripy: v.python, Quick: v.qdp, Numpy: v.numpy, FieldType: strings.TrimPrefix(v.fieldType, "k")}
	}
	r.TripyOut = make([]tripyOutput, len(l.Outputs))
	for i, t := range l.Outputs {
		r.TripyOut[i] = tripyOutput{Rank: 0, DType: "int32"}
		if t.Size == nil {
			r.TripyOut[i] = tripyOutput{Rank: len(t.T.Shape), DType: tripyDType(t)}
		}
	}
	return r
}

// quotedList is names as Python strings, the items of a make_node list.
// No names is one empty name, as make_node's lists have always read.
func quotedList(names []string) []string {
	if len(names) == 0 {
		return []string{`""`}
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = escape.PyString(n)
	}
	return quoted
}

func tripyDType(t *ioTensor) string {
	d := t.Fixed
	if d == "" && len(t.Allowed) > 0 {
		d = t.Allowed[0]
	}
	return string(d)
}

// example is one param value written for each front end.
type example struct {
	onnx, python, qdp, numpy, fieldType string
	tensor                              bool // the ONNX attribute is a TensorProto
}

// exampleValue is the param's default, or a value within its range.
func exampleValue(p *paramModel) example {
	ip := p.p
	var items []literal.Value
	if v, ok := literal.Default(ip); ok {
		items = v.Leaves()
	}
	switch ip.Kind {
	case ir.ParamBool:
		b := literal.Bool(false)
		if len(items) > 0 {
			b = items[0]
		}
		v, i := literal.Python(b), literal.Python(b.Numeric())
		return example{onnx: i, python: v, qdp: v, numpy: "np.array([" + i + "], dtype=np.int8)", fieldType: "kINT8"}
	case ir.ParamString, ir.ParamEnum:
		v := literal.String("text")
		switch {
		case len(items) > 0:
			v = items[0]
		case ip.Kind == ir.ParamEnum && len(ip.Values) > 0:
			v = literal.String(ip.Values[0])
		}
		q := literal.Python(v)
		return example{onnx: q, python: q, qdp: q, numpy: "np.frombuffer(" + q + ".encode(), dtype=np.int8)", fieldType: "kCHAR"}
	}
	isFloat := p.elem.IsFloat()
	if len(items) == 0 {
		n := max(int(p.FieldLength), 1)
		items = slices.Repeat([]literal.Value{sampleValue(ip, isFloat)}, n)
	}
	npType := "np.int32"
	field := "kINT32"
	switch {
	case isFloat:
		npType, field = "np.float32", "kFLOAT32"
	case p.elem == ir.Int64:
		npType, field = "np.int64", "kINT64"
	case p.elem == ir.Bool:
		npType, field = "np.int8", "kINT8"
	}
	list := literal.Python(literal.List(items...).Numeric()) // a bool array is numpy's int8
	e := example{numpy: "np.array(" + list + ", dtype=" + npType + ")", fieldType: field}
	if ip.Kind == ir.ParamScalar {
		first := literal.Python(items[0].Numeric())
		e.onnx, e.python, e.qdp = first, first, first
	} else {
		qdpType := strings.TrimSuffix(strings.TrimPrefix(p.PyType, "npt.NDArray["), "]")
		e.onnx, e.python, e.qdp = list, list, "np.array("+list+", dtype="+qdpType+")"
		if ip.Kind == ir.ParamTensor {
			e.tensor = true
			e.onnx = "numpy_helper.from_array(np.array(" + list + ", dtype=" + npType + "))"
		}
	}
	return e
}

// sampleValue is a value within a number param's range for its example
// when it has no default.
func sampleValue(p *ir.Param, float bool) literal.Value {
	switch {
	case float:
		return literal.Float(1)
	case p.Min != nil && p.MinExclusive && *p.Min >= 1:
		least, _ := p.IntMin()
		return literal.Int(int64(least))
	case p.Min != nil && *p.Min > 1:
		return literal.Int(int64(math.RoundToEven(*p.Min)))
	}
	return literal.Int(1)
}
