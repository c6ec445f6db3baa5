package aipu

import (
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/target"
)

// Target is the Compass AIPU target: one value checks, generates, builds
// and verifies (registry.All holds it).
type Target struct{}

// It is no target.NodeReader, so `import onnx` never joins nodes that
// differ only in trailing optional inputs into one op for it: the Compass
// plugins take no optional inputs.

// What the target is, checked by the compiler: the registry finds each
// optional part by a type assertion, which a missing method would fail
// silently.
var (
	_ target.Target          = Target{}
	_ target.Acknowledgeable = Target{}
	_ target.Pather          = Target{}
	_ target.OpSelector      = Target{}
	_ target.Importer        = Target{}
	_ target.Builder         = Target{}
	_ target.Verifier        = Target{}
)

// Name implements target.Target.
func (Target) Name() string { return "aipu" }

// Summary implements target.Target.
func (Target) Summary() string { return "Compass AIPU plugins (Parser, OPT, GBuilder, OpenCL kernels)" }

// AcknowledgeableWarnings implements target.Acknowledgeable: the warnings
// this target's checks report at a place in an opdef.
func (Target) AcknowledgeableWarnings() []string {
	return []string{"aipu-builtin", "aipu-kernel-param", "aipu-param-retyped", "aipu-target"}
}

// Ops implements target.OpSelector.
func (Target) Ops(pkg *ir.Package) []*ir.Op { return Ops(pkg) }
