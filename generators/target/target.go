// Package target defines the one small interface every generation target
// implements. Targets never import each other: adding one touches only its
// own package and the registry in generators/targets.
package target

import (
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/onnx"
)

// Target is a code generation target (htp, trt, aipu, ...).
type Target interface {
	// Name is the short name used in opdefs (targets.<name>), diagnostics
	// and the out/<name>/ directory.
	Name() string
	// Check reports what only this target cares about — dtypes it cannot
	// take, features it lacks — for the ops that generate for it.
	Check(pkg *ir.Package, d *diag.TargetList)
	// Generate returns the package's files, paths relative to
	// out/<name>/, without headers (the pipeline adds them). It is called
	// only for packages that passed every check.
	Generate(pkg *ir.Package, d *diag.TargetList) *fileset.Set
	// ONNXFrontEnd lists the ONNX ops the target's own ONNX front end runs
	// natively (import onnx --unsupported-for), or nil without one.
	ONNXFrontEnd() *onnx.FrontEnd
}
