// Package buildengine runs compiler and linker invocations the way a build
// engineer expects from ninja or Bazel: each unit runs the tool directly
// (argv, no shell), units run in parallel up to the core count, a unit is
// up to date when the hash of its tool, arguments and input contents
// (headers found through its depfile included) matches the last successful
// run — not mtimes, which git resets — and a failed unit shows the tool's
// own diagnostics and leaves the previous good artifact in place.
//
// The build engine: units (tool + argv with `{out}`/`{dep}` placeholders),
// parallel up to the core count, up to date by a hash of the tool binary,
// arguments, inputs and the headers of the last depfile (a stat cache keyed by
// size, mtime and inode saves re-reading unchanged files), outputs written to
// a uniquely named temporary beside them and renamed so a failure keeps the
// last good artifact (a killed build's leftovers are removed), one build per
// state file at a time (`filelock`), one progress line per unit,
// `compile_commands.json`. A unit's `Launcher` (compiles only) is run with the
// tool's argv and is part of the key (path and binary contents); when it exits
// non-zero, the tool runs once more on its own, and only the tool's failure
// fails the unit (one warning per build). Every unit runs in a process group
// of its own within `Engine.UnitTimeout` (`--unit-timeout`, default 30m), the
// group SIGKILLed past it or on the build's cancellation
// (`buildengine.Command`, also used by verify's runners); an artifact
// is checked before it is trusted (`artifact.go`: ELF/Mach-O type and header
// tables for `.o`/`.so`, `ar` magic for `.a`, non-empty otherwise or per
// `Unit.Format`), and one that fails the check fails the unit and is removed,
// as is one found at an output by the up-to-date check. `build/remotecache`
// starts a loopback redis-server and per-machine ccache setups for the tests
// and the bench (`build/cachetest` is their test glue).
//
// Display shows each unit as it starts ([k/N] tool id): a status line on a
// terminal, start and end lines elsewhere. Result.Seen lists every file the
// up-to-date check hashed, with the stat it trusted.
package buildengine
