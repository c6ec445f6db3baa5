// Package plugin decides the identity a TensorRT plugin is registered and
// found under: its name, version and namespace. The trt target declares
// its creators with it and `opforge rewrite onnx` writes it into ONNX
// nodes, so the two can never disagree.
package plugin

import "github.com/opforge/opforge/generators/ir"

// Identity is the triple TensorRT's plugin registry is keyed by.
type Identity struct {
	Name      string
	Version   string
	Namespace string
}

// TRT returns the identity of op's TensorRT plugin in pkg.
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
func TRT(pkg *ir.Package, op *ir.Op) Identity {
	id := Identity{Name: op.Name, Version: pkg.Version, Namespace: pkg.Namespace}
	if t := op.Targets.TRT; t != nil {
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
