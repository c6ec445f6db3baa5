// Package schemacheck answers one question quickly: is a value valid
// against a JSON Schema (2020-12)? Nearly every opdef a user loads is
// valid, and the reference validator (santhosh-tekuri/jsonschema/v6)
// spends most of its time building the error trees a valid value never
// needs. A Schema here is a tree of plain Go checks that gives only the
// verdict; callers run the reference validator when it says invalid, to
// explain why.
//
// Only the keywords opforge's opdef schema uses are implemented, with the
// reference validator's exact semantics (see value.go). Compile refuses a
// schema holding any other keyword, so a Schema can never accept a value
// the reference validator rejects because of a keyword it did not know.
//
// A verdict-only JSON Schema 2020-12 checker compiled from the same schema
// bytes: exactly the keywords the opdef schema uses, with the reference
// validator's semantics (integral floats are integers, numbers compare by
// value, Go `regexp` patterns, code-point lengths, `unevaluatedProperties`
// through `$ref`); `Compile` refuses any other keyword, so it can never accept
// what the reference rejects. Differential and fuzz tests hold it to the
// reference.
package schemacheck
