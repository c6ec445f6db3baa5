package trt

import (
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
)

// Generate implements target.Target. The trt target checks op definitions
// today; it emits no files yet.
func (Target) Generate(*ir.Package, *diag.TargetList) *fileset.Set { return nil }
