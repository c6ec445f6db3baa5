// Package buildplan turns the generated packages under out/ and the
// toolchain descriptors into build units for the engine in generators/build,
// after a preflight that names every missing SDK piece before anything is
// compiled. Artifacts go to the build directory, never to out/.
//
// The neutral build plan (units, preflight, compile database, runner) and
// `Doctor`; each target plans its own units in `targets/<t>/build.go`
// (`target.Builder`): out/ and the descriptors into units per target, after a
// preflight naming every missing piece (per architecture and variant, with
// the same variables as the generated build files; each target's build.go
// says what its units are); gives every compile unit its launcher (the
// tool's, else the target's) and warns once about an unusable one; `Doctor`
// prints the picture for every target, launchers included;
// `Options.Packages` limits a plan
// to named packages.
//
// After a successful build, noop.go keeps one record per target and
// selection (an invocation hash with the environment, the engine's
// Result.Seen stats, outputs, state files, the plan's probes); Noop, which
// opforge build calls first, is a stat check of it. Plans with Extra work or
// launcher warnings are not recorded.
package buildplan
