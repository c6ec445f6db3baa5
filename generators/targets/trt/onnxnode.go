package trt

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/onnx"
)

// What TensorRT's ONNX parser reads of a plugin node itself
// (target.NodeReader): the plugin identity it looks the creator up by, and
// how it turns the other attributes into plugin fields.

// ReservedAttrs implements target.NodeReader: the parser's own attributes.
func (Target) ReservedAttrs() map[string]bool { return ParserAttrs }

// NodeIdentity implements target.NodeReader: the node's plugin_version and
// plugin_namespace, each absent or quoted (a node made for NVIDIA's
// ROIAlign_TRT names version "2" in the empty namespace).
func (Target) NodeIdentity(n *onnx.Node) string {
	var id string
	for _, s := range pluginIdentity(n) {
		if s != nil {
			id += "|" + strconv.Quote(*s)
		} else {
			id += "|-"
		}
	}
	return id
}

// KeepIdentity implements target.NodeReader: op's plugin keeps the
// version, namespace and name node n looks it up by.
func (Target) KeepIdentity(pkg *ir.Package, op *ir.Op, n *onnx.Node) {
	id := pluginIdentity(n)
	KeepIdentity(pkg, op, n.OpType, id[0], id[1])
}

// CallsCustomOp implements target.NodeReader: a node carrying
// plugin_version or plugin_namespace calls a plugin, which the parser
// looks up whatever the op type.
func (Target) CallsCustomOp(n *onnx.Node) bool {
	return n.Attr("plugin_namespace") != nil || n.Attr("plugin_version") != nil
}

// pluginIdentity is node n's plugin_version and plugin_namespace, nil
// where absent.
func pluginIdentity(n *onnx.Node) [2]*string {
	return [2]*string{stringAttr(n, "plugin_version"), stringAttr(n, "plugin_namespace")}
}

// stringAttr is node n's string attribute called name, or nil.
func stringAttr(n *onnx.Node, name string) *string {
	a := n.Attr(name)
	if a == nil || a.Type != onnx.AttrString {
		return nil
	}
	s := strings.ToValidUTF8(string(a.S), "\uFFFD")
	return &s
}

// StandardNameRule implements target.NodeReader.
func (Target) StandardNameRule() string {
	return "TensorRT's parser imports a node of a standard op type as the built-in op and never calls a plugin of that name (only TensorRT 10.15+ with kENABLE_PLUGIN_OVERRIDE lets a plugin override it)"
}

// FunctionNameRule implements target.NodeReader.
func (Target) FunctionNameRule() string {
	return "TensorRT's parser would inline the function instead of calling the plugin"
}

// TakesOptionalInputs implements target.NodeReader: the C++ plugins take a
// range of input counts (import leaves the Python plugin, which cannot, off).
func (Target) TakesOptionalInputs() bool { return true }

// tensorFieldTypes is the PluginFieldType TensorRT's ONNX parser gives a
// TENSOR attribute, by element type; other element types are refused.
var tensorFieldTypes = map[onnx.DataType]string{
	onnx.Float: "kFLOAT32", onnx.Int8: "kINT8", onnx.Int16: "kINT16", onnx.Int32: "kINT32",
	onnx.String: "kCHAR", onnx.Float16: "kFLOAT16", onnx.BFloat16: "kBF16", onnx.Double: "kFLOAT64",
}

// ParserFieldType is the nvinfer1::PluginFieldType TensorRT's ONNX parser
// sends a plugin creator for attribute a, or "" when the parser refuses
// the attribute: INT and INTS are narrowed to kINT32, FLOAT and FLOATS are
// kFLOAT32, STRING and STRINGS are kCHAR, a TENSOR goes by its element
// type, and graphs, sparse tensors and type protos are refused.
func ParserFieldType(a *onnx.Attribute) string {
	switch a.Type {
	case onnx.AttrInt, onnx.AttrInts:
		return "kINT32"
	case onnx.AttrFloat, onnx.AttrFloats:
		return "kFLOAT32"
	case onnx.AttrString, onnx.AttrStrings:
		return "kCHAR"
	case onnx.AttrTensor:
		if a.T != nil {
			return tensorFieldTypes[a.T.DataType]
		}
	}
	return ""
}

// AttrConcern implements target.NodeReader: what the parser would not
// hand the plugin intact.
func (Target) AttrConcern(a *onnx.Attribute) string {
	switch a.Type {
	case onnx.AttrTensor:
		if ParserFieldType(a) == "" {
			return fmt.Sprintf("TensorRT's ONNX parser refuses %s tensor attributes as plugin fields; store it as an INT32 or FLOAT tensor, or as INTS/FLOATS", a.T.DataType)
		}
	case onnx.AttrInt:
		if a.I < math.MinInt32 || a.I > math.MaxInt32 {
			return fmt.Sprintf("its value %d does not fit the kINT32 field TensorRT's ONNX parser narrows INT attributes to", a.I)
		}
	case onnx.AttrInts:
		for _, v := range a.Ints {
			if v < math.MinInt32 || v > math.MaxInt32 {
				return fmt.Sprintf("its element %d does not fit the kINT32 field TensorRT's ONNX parser narrows INTS attributes to", v)
			}
		}
	}
	return ""
}
