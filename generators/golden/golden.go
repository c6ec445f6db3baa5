// Package golden holds the one -update flag of the golden tests. A test
// package that compares output with checked-in files (testdata/gen's
// trees, testdata/diagnostics, testdata/onnx, a target's driver cases)
// imports it rather than defining a flag of its own, so
// `go tool mage update` finds exactly the packages to pass -update to:
// those whose tests import this one. Only tests import it, so no binary
// grows the flag.
package golden

import "flag"

// Update is -update: rewrite the golden files from what the code produces
// now instead of comparing with them.
var Update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them (go tool mage update runs every golden test with it)")
