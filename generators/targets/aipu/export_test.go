package aipu

import "github.com/opforge/opforge/generators/ir"

// Unmodelled counts the ops of pkg a gen would not model, their files
// kept and their sections taken from the store (keptOps).
func Unmodelled(pkg *ir.Package, ops []*ir.Op) int {
	n := 0
	for _, kept := range keptOps(pkg, ops) {
		if kept {
			n++
		}
	}
	return n
}
