package trt

import (
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
)

// readmeOp is what the package README shows for one op: its fields and
// how to pass them from each front end. Like opModel, it holds the lists
// the README prints one item a line as text, and its most printed fields
// come first.
type readmeOp struct {
	Name string
	// Plugin, Version and Namespace are the plugin's identity (PluginID).
	Plugin, Version, Namespace string
	Inputs                     string // input names, comma separated
	// TensorInputs and ShapeInputList split Inputs as addPluginV3 takes
	// them: regular inputs, then shape tensors in their own list.
	TensorInputs, ShapeInputList string
	// Domain is the ONNX domain of the node, the package's: the domain
	// `rewrite onnx` moves plugin nodes to, so onnx.checker accepts them.
	Domain string
	QDP    bool
	// TripyKwargs and QDPKwargs are the keyword arguments of tp.plugin
	// for the C++ plugin and for the Python plugin.
	TripyKwargs string
	QDPKwargs   string
	Description string
	// Optional lists the optional inputs as Markdown ("`b`, `c`"; "" when none).
	Optional    string
	ShapeInputs string // ONNX input indices of shape tensors ("" when none)
	Outputs     string
	// FieldRows are the fields table's rows, one a line ("" without params).
	FieldRows string
	// ONNXInputs and ONNXOutputs are make_node's lists: "x", "y".
	ONNXInputs, ONNXOutputs string
	// ONNXAttrs are onnx.helper.make_node keyword arguments.
	ONNXAttrs string
	// ONNXNumpy: an attribute is a tensor, written with numpy_helper.
	ONNXNumpy bool
	// PyFields are trt.PluginField constructions, one a line (joined with
	// the Python list's indentation).
	PyFields string
	TripyOut string
}

func newReadmeOp(pkg *packageModel, op *ir.Op, m *opModel) *readmeOp {
	l := m.layout
	r := &readmeOp{Name: op.Name, Plugin: m.PluginName, Version: m.PluginVersion, Namespace: m.PluginNamespace, Description: m.Description, QDP: OpOptions(op).QDP != nil}
	var shapeIdx, tensors, shapes, optional []string
	ins, outs := make([]string, len(op.Inputs)), make([]string, len(op.Outputs))
	for i, t := range op.Inputs {
		ins[i] = t.Ident
		if t.Optional {
			optional = append(optional, escape.MarkdownCode(t.Name))
		}
		if t.ShapeTensor {
			shapeIdx = append(shapeIdx, strconv.Itoa(i))
			shapes = append(shapes, t.Ident)
		} else {
			tensors = append(tensors, t.Ident)
		}
	}
	r.TensorInputs, r.ShapeInputList = strings.Join(tensors, ", "), strings.Join(shapes, ", ")
	r.Optional = strings.Join(optional, ", ")
	r.Domain = pkg.Domain
	for i, t := range op.Outputs {
		outs[i] = t.Ident
	}
	r.Inputs, r.Outputs = strings.Join(ins, ", "), strings.Join(outs, ", ")
	r.ONNXInputs, r.ONNXOutputs = quotedList(ins), quotedList(outs)
	if len(shapeIdx) > 0 {
		r.ShapeInputs = "[" + strings.Join(shapeIdx, ", ") + "]"
	}
	n := len(m.Params)
	rows, pyFields := make([]string, n), make([]string, n)
	onnx, tripy, qdp := make([]string, n, n+2), make([]string, n), make([]string, n)
	for i, p := range m.Params {
		length := strconv.Itoa(int(p.FieldLength))
		if p.FieldLength == 0 {
			length = "any"
		}
		rows[i] = "| " + escape.MarkdownCode(p.Name) + " | `" + string(p.FieldType) + "` | " + length + " | " + escape.MarkdownText(p.Doc) + " |"
		v := exampleValue(p)
		onnx[i], tripy[i], qdp[i] = p.Name+"="+v.onnx, p.Name+"="+v.python, p.Name+"="+v.qdp
		r.ONNXNumpy = r.ONNXNumpy || v.tensor
		pyFields[i] = "trt.PluginField(" + escape.PyString(p.Name) + ", " + v.numpy + ", trt.PluginFieldType." + strings.TrimPrefix(v.fieldType, "k") + "),"
	}
	r.FieldRows = strings.Join(rows, "\n")
	r.PyFields = strings.Join(pyFields, "\n    ")
	r.ONNXAttrs = strings.Join(append(onnx, "plugin_namespace="+escape.PyString(m.PluginNamespace), "plugin_version="+escape.PyString(m.PluginVersion)), ", ")
	if r.ShapeInputs != "" {
		r.ONNXAttrs += ", tensorrt_plugin_shape_input_indices=" + r.ShapeInputs
	}
	r.TripyKwargs = strings.Join(tripy, ", ")
	r.QDPKwargs = strings.Join(qdp, ", ")
	info := make([]string, len(l.Outputs))
	for i, t := range l.Outputs {
		info[i] = "(0, tp.int32)"
		if t.Size == nil {
			info[i] = "(" + strconv.Itoa(len(t.T.Shape)) + ", tp." + tripyDType(t) + ")"
		}
	}
	r.TripyOut = "[" + strings.Join(info, ", ") + "]"
	return r
}

// quotedList writes names as the items of a Python list: "x", "y". No
// names is one empty name, as make_node's lists have always read.
func quotedList(names []string) string {
	if len(names) == 0 {
		return `""`
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = escape.PyString(n)
	}
	return strings.Join(quoted, ", ")
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
	var items []string
	if ip.Default != nil {
		if ip.Default.Kind == ir.LitList {
			for _, e := range ip.Default.List {
				items = append(items, e.Text)
			}
		} else {
			items = []string{ip.Default.Text}
		}
	}
	sample := func() string {
		switch {
		case p.elem.IsFloat():
			return "1.0"
		case ip.Min != nil && *ip.Min > 1:
			return strconv.FormatFloat(*ip.Min, 'f', 0, 64)
		}
		return "1"
	}
	switch ip.Kind {
	case ir.ParamBool:
		v := "False"
		if len(items) > 0 && items[0] == "true" {
			v = "True"
		}
		i := map[string]string{"True": "1", "False": "0"}[v]
		return example{onnx: i, python: v, qdp: v, numpy: "np.array([" + i + "], dtype=np.int8)", fieldType: "kINT8"}
	case ir.ParamString, ir.ParamEnum:
		v := "text"
		switch {
		case len(items) > 0:
			v = items[0]
		case ip.Kind == ir.ParamEnum && len(ip.Values) > 0:
			v = ip.Values[0]
		}
		q := escape.PyString(v)
		return example{onnx: q, python: q, qdp: q, numpy: "np.frombuffer(" + escape.PyString(v) + ".encode(), dtype=np.int8)", fieldType: "kCHAR"}
	}
	if len(items) == 0 {
		n := int(p.FieldLength)
		if n == 0 {
			n = 1
		}
		for i := 0; i < n; i++ {
			items = append(items, sample())
		}
	}
	isFloat := p.elem.IsFloat()
	for i, it := range items {
		switch {
		case it == "true":
			items[i] = "1"
		case it == "false":
			items[i] = "0"
		case isFloat:
			items[i] = withPoint(it)
		}
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
	list := "[" + strings.Join(items, ", ") + "]"
	scalar := ip.Kind == ir.ParamScalar
	e := example{numpy: "np.array(" + list + ", dtype=" + npType + ")", fieldType: field}
	if scalar {
		e.onnx, e.python, e.qdp = items[0], items[0], items[0]
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
