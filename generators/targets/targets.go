// Package targets is the registry of generation targets.
package targets

import (
	"github.com/opforge/opforge/generators/target"
	"github.com/opforge/opforge/generators/targets/aipu"
	"github.com/opforge/opforge/generators/targets/htp"
	"github.com/opforge/opforge/generators/targets/trt"
)

// All returns every target, in a fixed order.
func All() []target.Target {
	return []target.Target{htp.Target{}, trt.Target{}, aipu.Target{}}
}
