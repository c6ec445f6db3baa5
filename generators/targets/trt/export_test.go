package trt

import "github.com/opforge/opforge/generators/ir"

// Unmodelled counts the ops of pkg a gen would make from their kept
// frames, without a model (keptFrames).
func Unmodelled(pkg *ir.Package, ops []*ir.Op) int {
	n := 0
	for _, f := range keptFrames(pkg, ops) {
		if f != nil {
			n++
		}
	}
	return n
}
