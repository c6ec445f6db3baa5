package verify_test

import (
	"github.com/opforge/opforge/generators/targets"
	"github.com/opforge/opforge/generators/verify"
)

func init() { verify.TestRunners = targets.Verifiers() }
