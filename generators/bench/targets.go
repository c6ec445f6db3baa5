package bench

import "github.com/opforge/opforge/generators/targets"

// The bench's per-target choices are the registry's (targets.NoopBench,
// targets.TeamBench), each with what its build needs there: which target
// the no-op build measures and the stand-in SDK it builds against, and
// which target the team build compiles and what its compilers need. The
// rest of the bench only runs `opforge gen` and `opforge build <target>`.
var (
	noopTarget      = targets.NoopBench.Target
	noopArch        = targets.NoopBench.Variant
	noopSDK         = targets.NoopBench.StandIn
	teamTarget      = targets.TeamBench.Target
	teamTitle       = targets.TeamBench.Title
	teamCompilerEnv = targets.TeamBench.CompilerEnv
)
