package htp

import "github.com/opforge/opforge/generators/ir"

// ConfigXML exposes configXML to the package's external tests.
var ConfigXML = configXML

// StoredTorchOps counts the ops of pkg whose sections of the ExecuTorch
// module a gen takes from the store (storedTorchOp).
func StoredTorchOps(pkg *ir.Package, ops []*ir.Op) int {
	n := 0
	for _, op := range ops {
		if storedTorchOp(pkg, op) {
			n++
		}
	}
	return n
}
