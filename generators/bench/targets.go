package bench

import "github.com/opforge/opforge/generators/registry"

// The bench's per-target choices are the registry's (registry.NoopBench,
// registry.TeamBench), each with what its build needs there: which target
// the no-op build measures and the stand-in SDK it builds against, and
// which target the team build compiles and what its compilers need. The
// rest of the bench only runs `opforge gen` and `opforge build <target>`.
var (
	noopTarget      = registry.NoopBench.Target
	noopArch        = registry.NoopBench.Variant
	noopSDK         = registry.NoopBench.StandIn
	teamTarget      = registry.TeamBench.Target
	teamTitle       = registry.TeamBench.Title
	teamCompilerEnv = registry.TeamBench.CompilerEnv
)
