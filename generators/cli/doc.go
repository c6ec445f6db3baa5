// Package cli implements the opforge command line; it is a package so the
// tests and mage targets drive exactly what users run.
//
// `opforge init | gen | check | build | verify | doctor | validate | convert |
// fmt | import | rewrite`; a package so tests and mage drive exactly what
// users run. It names targets only through the registry: the usage text,
// `init`'s next steps and the ONNX flags' help list `registry.All`,
// `Builders`, `ImportTargets` and `ONNXCallers` with their
// `Summary`/`CallerSummary`.
//
// Commands find the op repository's root as git does (root.go): unset
// location flags go below it, written relative to the working directory;
// build and verify run from the root. version.go prints the build
// information; terminal.go picks the build display.
package cli
