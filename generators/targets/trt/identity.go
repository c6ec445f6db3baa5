package trt

// The identity a TensorRT plugin is registered and found under: its name,
// version and namespace. The creators are declared with it and
// `opforge rewrite onnx` (ONNXCall) writes it into ONNX nodes, so the two
// can never disagree.

import "github.com/opforge/opforge/generators/ir"

// PluginIdentity is the triple TensorRT's plugin registry is keyed by.
type PluginIdentity struct {
	Name      string
	Version   string
	Namespace string
}

// PluginID returns the identity of op's TensorRT plugin in pkg.
//
// The name is the op's plugin_name when it sets one (a port of an NVIDIA
// plugin keeps NVIDIA's name), else the op name: TensorRT's ONNX parser
// looks a creator up by the node's op_type, and plugin fields by
// attribute name, so the node carries this name and the op's attributes.
//
// The namespace is the package namespace (which defaults to the domain),
// and the version the package version, unless the op overrides them
// (targets.trt.plugin_namespace, plugin_version: a port of NVIDIA's
// ROIAlign_TRT is version "2" in the empty namespace).
//
// The version is the package version string: the registry treats the
// version as an opaque string, so a package that changes incompatibly
// bumps its version and old engines and ONNX models keep naming the old
// creator. The ONNX parser reads it from the node's plugin_version
// attribute (default "1"), which the rewrite writes explicitly. Python
// quickly deployable plugins are always registered as version "1" by
// tensorrt.plugin; that identity belongs to the Python plugin, not to the
// C++ creator this function names.
func PluginID(pkg *ir.Package, op *ir.Op) PluginIdentity {
	id := PluginIdentity{Name: op.Name, Version: pkg.Version, Namespace: pkg.Namespace}
	if t := OpOptions(op); t != nil {
		if t.PluginName != "" {
			id.Name = t.PluginName
		}
		if t.PluginVersion != "" {
			id.Version = t.PluginVersion
		}
		if t.PluginNamespace != nil {
			id.Namespace = *t.PluginNamespace
		}
	}
	return id
}
