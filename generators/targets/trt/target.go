package trt

import (
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/target"
)

// Target is the TensorRT target: one value checks, generates, builds,
// verifies and reads and rewrites ONNX nodes (registry.All holds it).
type Target struct{}

// What the target is, checked by the compiler: the registry finds each
// optional part by a type assertion, which a missing method would fail
// silently.
var (
	_ target.Target          = Target{}
	_ target.Acknowledgeable = Target{}
	_ target.Pather          = Target{}
	_ target.OpSelector      = Target{}
	_ target.TorchImporter   = Target{}
	_ target.Importer        = Target{}
	_ target.NodeReader      = Target{}
	_ target.ONNXCaller      = Target{}
	_ target.Builder         = Target{}
	_ target.Verifier        = Target{}
)

// Name implements target.Target.
func (Target) Name() string { return "trt" }

// Summary implements target.Target.
func (Target) Summary() string { return "TensorRT plugins (C++ IPluginV3 + CUDA, and Python)" }

// AcknowledgeableWarnings implements target.Acknowledgeable: the warnings
// this target's checks report at a place in an opdef.
func (Target) AcknowledgeableWarnings() []string {
	return []string{"qdp-default", "trt-format-combinations", "trt-qdp-version", "trt-triton-cpp"}
}

// Ops implements target.OpSelector.
func (Target) Ops(pkg *ir.Package) []*ir.Op { return Ops(pkg) }
