// Package load finds op definition files, reads them within safe limits,
// parses them by format, and runs the semantic checks shared by every
// target: the front end up to a validated IR. The targets' own checks run
// in one place after it, registry.Check.
//
// The front end: finds files (doublestar), reads them within limits (regular
// files only, by lstat before any open, so a FIFO cannot hang it; one symlink
// followed; 4 MiB, UTF-8 text only), dispatches by extension (and `Encode`
// writes a package in either format, for `convert`) and runs `validate`: it
// stops at a validated IR. The targets' own checks run after it in one place,
// `registry.Check`, which every caller that loads opdefs for the user (gen,
// check, validate, convert, init, import and rewrite onnx, mv) invokes. Its
// tests hold the golden diagnostics cases and a mutation harness
// (`TestMutationPositions`: systematic edits of every valid opdef of every format and
// fixture at a known line, counting diagnostics that land elsewhere).
package load
