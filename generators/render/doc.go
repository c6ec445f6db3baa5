// Package render executes the embedded templates of a target with a
// hermetic function map: the few sprig functions the templates use, each
// allowed by name, and the escapers, so the same input renders the same
// bytes on any machine. Missing map keys are errors, never "<no value>".
//
// Executes embedded templates with the allow-listed map (no time, randomness,
// environment or crypto) and `missingkey=error`, compiled (tmplexec, which
// writes text/template's bytes and hands text/template whatever it does not
// take; UseTextTemplate runs text/template itself, for the test that
// compares the two); normalises blank lines in one
// pass; `Set.Package` renders a package's files on every core (one reused
// buffer per worker) and joins them in a fixed order; `Sections` renders a
// package-wide file's per-op section on every core and joins them in op order;
// `KeyedSections` takes an unchanged op's section from gen's store by its key,
// and a file gen's cache vouches for (`ir.Package.Reuse`) is not rendered.
// The joined sections (`Joined`) print in the file's template as a mark,
// and the file is put together around the marks after the template ran,
// so their megabytes are copied once, not through the template's printer;
// `Set.Package` leaves room for the file's header in that copy
// (fileset.Header), so no copy is made to head it.
// `Digest` hashes every embedded template for those keys.
//
// The function map is an allow list: sprig's join, chosen by name, and the
// escapers (TestFuncMapIsTheAllowList), so a sprig release cannot add a
// non-hermetic function. MustLoad parses a target's templates on first use,
// so commands that render nothing pay nothing.
package render
