// Package render executes the embedded templates of a target with a
// hermetic function map: join and the escapers, so the same input renders the same
// bytes on any machine. Missing map keys are errors, never "<no value>".
//
// Executes embedded templates with the allow-listed map (no time, randomness,
// environment or crypto) and `missingkey=error`; normalises blank lines in one
// pass; `Set.Package` renders a package's files on every core (one reused
// buffer per worker) and joins them in a fixed order; `Sections` renders a
// package-wide file's per-op section on every core and joins them in op order.
//
// The function map is opforge's own (join and the escapers,
// TestFuncMapIsTheAllowList): the templates once took join from sprig, and
// linking sprig cost every command ~0.6 ms of start-up. MustLoad parses a
// target's templates on first use,
// so commands that render nothing pay nothing.
package render
