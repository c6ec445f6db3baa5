// Package tmplexec runs text/template templates compiled to Go closures,
// writing the bytes text/template's own executor writes.
//
// text/template walks a template's parse tree on every execution and finds
// each field and function by name through reflection, every time: for the
// 1,000 ops of a large package that walk was a third of a cold gen's CPU.
// Compile turns each parse tree once into a tree of closures; a field site
// remembers the field index or method it resolved for the type it last saw,
// a call to a func(string) string escaper is a direct call, and a printed
// string is written to the buffer without fmt.
//
// The closures cover what opforge's templates use (every node kind, the
// builtins and, or, not, len, index, eq, ne, print and printf, struct
// fields, string-keyed maps, methods without arguments). Wherever they
// meet anything else, or anything text/template would report as an error
// (a missing key, a nil pointer, a function's error), they give up, and
// Execute runs the template again with text/template from the start, into
// the same buffer: the output and the error are then text/template's own.
// A template the compiler cannot compile runs with text/template always.
// Fallbacks counts the runs given up, so a test can hold a set of templates
// to running compiled.
//
// Two conditions come with that. The functions and the data's methods must
// be pure: a run given up has called some of them, and text/template's run
// calls them again (render's are: the escapers and sprig's join). And
// Compile takes a snapshot: a template redefined or a function replaced on
// the set afterwards is not seen, where text/template looks both up as it
// runs (render compiles a set once it is parsed, and never changes it).
package tmplexec
