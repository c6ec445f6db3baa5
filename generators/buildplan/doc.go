// Package buildplan turns the generated packages under out/ and the
// toolchain descriptors into build units for the engine in generators/build,
// after a preflight that names every missing SDK piece before anything is
// compiled. Artifacts go to the build directory, never to out/.
//
// The neutral build plan (units, preflight, compile database, runner) and
// `Doctor`; each target plans its own units in `targets/<t>/build.go`
// (`target.Builder`): out/ and the descriptors into units per target, after a
// preflight naming every missing piece (HTP: x86 with libnative, aarch64 with
// the NDK, each Hexagon arch with its pinned SDK/tools, with the same per-arch
// variables as the generated Makefile); gives every compile unit its launcher
// (the tool's, else the target's) and warns once about an unusable one; the
// AIPU units are the kernel rules of the package Makefiles the generator wrote
// into `out/aipu/` (the opdefs are not read again), or without `aipuocc` one
// clang OpenCL syntax check per variant; `Doctor` prints the picture for every
// target, launchers included. One `HEXAGON_SDK_ROOT` serves every HTP arch (an
// arch's pinned SDK where installed beside it, else that SDK with its newest
// tools), as the generated Makefile decides; `Options.Packages` limits a plan
// to named packages.
//
// After a successful build, noop.go keeps one record per target and
// selection (an invocation hash with the environment, the engine's
// Result.Seen stats, outputs, state files, the plan's probes); Noop, which
// opforge build calls first, is a stat check of it. Plans with Extra work or
// launcher warnings are not recorded.
package buildplan
