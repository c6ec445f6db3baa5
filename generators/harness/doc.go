// Package harness is what a target implements to take part in `opforge
// verify`: a Runner per implementation of its generated code. It is apart
// from verify (which holds the cases, the reference and the driver) so
// that the targets, and the registry every tool imports, stay light.
//
// What a target implements to take part in `opforge verify` (`Runner`: name,
// whether it applies to an op and why it cannot run here, how a package is
// made runnable, the op fields its runner script reads, its `Implementation`
// (module file, text, class); `DTypeNamer`; the run's `Options` and the build
// options of one package; `Doctor`, a runner's `Probes` (Python modules and
// facts) and `Findings` for `opforge doctor`): apart from `verify` so the
// registry, which `verify`'s own dependencies test against, stays light.
package harness
