// Package diag collects compiler-style diagnostics: every problem in every
// file, positioned at the offending YAML node or XML element, sorted and
// de-duplicated, printed as `path:line:col: severity: message [code]`.
//
// Loaders, validators and targets never stop at the first problem: they add
// to a *List and carry on, so a user sees everything in one run.
//
// Diagnostics: position, severity, stable kebab-case code, optional target;
// sorted, de-duplicated, printed as `path:line:col: severity: message [code]`
// or JSON.
//
// An acknowledged warning (Diagnostic.Acknowledged) prints in text as one
// count line and is left out of Counts; JSON marks it.
package diag
