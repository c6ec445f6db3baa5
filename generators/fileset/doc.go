// Package fileset is the in-memory result of generation: relative path ->
// bytes, plus what the writer must know about each file. Generating,
// writing, drift checks and golden tests all use the same set.
//
// The in-memory generation result: path -> bytes, owned flag, source, and the
// regions a file no longer has with where their code belongs now (`Moved`,
// which the writer's `user-region-orphan` names); comment syntax per file type
// and the two header kinds.
package fileset
