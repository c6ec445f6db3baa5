package verify

import "github.com/opforge/opforge/generators/verifier"

// TestRunners are the targets' runners (targets.Verifiers), which the
// internal tests cannot import (the targets import verify); the external
// runners_test.go sets them before any test runs.
var TestRunners []verifier.Runner
