package htp

import (
	"sync"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/target"
	"github.com/opforge/opforge/generators/toolchain"
)

// Target is the QNN HTP target: one value checks, generates, builds,
// verifies and rewrites ONNX nodes (registry.All holds it, made by New).
//
// Its generated Makefile names the Hexagon pins of the toolchain
// descriptor (toolchains/htp.yaml), so generating needs the descriptor:
// the target reads it once, from the directory New was given, when the
// first package generates. Nothing else of the target needs it there:
// checking and the ONNX rules read only the IR, and building, doctor and
// verify read the descriptor from their own options' directory. Reading
// it lazily keeps one value for every purpose (no second, generating
// type) and reads no file where nothing generates.
type Target struct {
	dir        string
	descriptor func() (*Descriptor, error)
}

// It is no target.NodeReader, so `import onnx` never joins nodes that
// differ only in trailing optional inputs into one op for it: the
// package's ValidateOpConfig takes exact input counts, while ONNX
// Runtime's QNN provider and ExecuTorch pass only the inputs present.

// What the target is, checked by the compiler: the registry finds each
// optional part by a type assertion, which a missing method would fail
// silently.
var (
	_ target.Target          = Target{}
	_ target.Acknowledgeable = Target{}
	_ target.Pather          = Target{}
	_ target.OpSelector      = Target{}
	_ target.Importer        = Target{}
	_ target.ONNXCaller      = Target{}
	_ target.SourceFormat    = Target{}
	_ target.Builder         = Target{}
	_ target.Verifier        = Target{}
)

// New returns the target reading its descriptor from toolchainDir
// (toolchains/; the built-in descriptor where that has none) when it
// generates.
func New(toolchainDir string) Target {
	return Target{dir: toolchainDir, descriptor: sync.OnceValues(func() (*Descriptor, error) { return LoadToolchain(toolchainDir) })}
}

// Name implements target.Target.
func (Target) Name() string { return "htp" }

// Summary implements target.Target.
func (Target) Summary() string { return "QNN HTP op packages (+ ExecuTorch registration)" }

// toolchain is the descriptor generation reads; the zero Target (tests
// that only check) reads the repository's toolchains/ at each call.
func (t Target) toolchain() (*Descriptor, error) {
	if t.descriptor == nil {
		return LoadToolchain(t.toolchainDir())
	}
	return t.descriptor()
}

// toolchainDir is the directory the descriptor is read from.
func (t Target) toolchainDir() string {
	if t.descriptor == nil {
		return toolchain.Dir
	}
	return t.dir
}

// AcknowledgeableWarnings implements target.Acknowledgeable: the warnings
// this target's checks report at a place in an opdef.
func (Target) AcknowledgeableWarnings() []string {
	return []string{"executorch-optional-input", "executorch-param-dtype", "executorch-tensor-param", "htp-no-backend", "htp-variant-backend", "qnn-backend", "qnn-backend-package", "qnn-bool-literal", "qnn-implicit-default", "qnn-layout-rank", "qnn-qhpi", "qnn-supplemental-unknown", "qnn-textual-default"}
}

// Ops implements target.OpSelector.
func (Target) Ops(pkg *ir.Package) []*ir.Op { return Ops(pkg) }
