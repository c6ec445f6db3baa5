// Package toolchain reads toolchains/*.yaml — per target, where each SDK
// and tool is found (environment variable, PATH, conventional install
// paths), which versions are pinned, and the flags — and resolves them on
// this machine for preflight checks, `mage doctor` and builds.
//
// Reads `toolchains/*.yaml` (or, for a target without one there, the copy
// built into the binary from the `toolchains` package, so any repository works
// without a `toolchains/` directory), validated against
// `schemas/toolchain.schema.json`, each target's own section left undecoded
// for the target (`Descriptor.Section`); resolves every SDK (variable, then
// conventional paths, newest version first, probe file, version file) and tool
// (variable, PATH, conventional paths, `--version`) into a `Found` that says
// where, which version, or exactly what is missing; caches tool versions by
// binary stat so no-op builds start no process. An optional compiler launcher
// per target and per tool (`launcher:`; ccache, sccache, any wrapper) is
// resolved the same way, but unset is no launcher and unusable is a warning,
// never a missing piece. A tool may live in an SDK (`in_sdk`: nvcc in the CUDA
// toolkit): with its own variable unset, the SDK as found serves it before
// `PATH`, so one variable per SDK is enough.
//
// Env.Probes, when set, records every path, glob and PATH lookup that
// resolution and planning look at (Env.Stat, ReadFile, Glob, Newest);
// Probes.Unchanged asks them again. LoadWith loads a descriptor with the
// target's own section decoded.
package toolchain
