// Package schemacheck validates values against opforge's JSON Schemas
// (2020-12) without a JSON Schema library in the binary. Valid answers
// the question nearly every load asks (is this opdef valid?) with plain Go
// checks that stop at the first failure; Explain, for the rare invalid
// value, builds the error tree that yamldef turns into positioned
// diagnostics, shaped as the reference validator
// (santhosh-tekuri/jsonschema/v6) shapes its own.
//
// The reference validator is a test dependency only: linking it cost every
// opforge command ~4 ms of start-up (its package init compiles every
// draft's meta-schemas), more than a no-op build's own work.
//
// Only the keywords opforge's schemas use are implemented, with the
// reference validator's exact semantics (integral floats are integers,
// numbers compare by value, Go `regexp` patterns, code-point lengths,
// `unevaluatedProperties` through `$ref`); Compile refuses any other
// keyword, so it can never accept what the reference rejects. Differential
// and fuzz tests hold both the verdicts and the explanations (kind,
// location and facts of every node) to the reference.
package schemacheck
