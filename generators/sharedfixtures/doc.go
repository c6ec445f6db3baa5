// Package sharedfixtures lets tests find the real XML op configs kept in
// shared/fixtures beside this repository's clone. Only the repository's CI
// and its developers have that folder; a user's clone has none, so a test
// that reads it skips, saying why, where it is absent.
//
// For tests only: the real vendor op-package configs in `shared/fixtures` beside the clone,
// which only CI and the developers have; `Need` skips a test, saying why,
// where they are absent, so a user's clone passes.
package sharedfixtures
