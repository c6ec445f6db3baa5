// Package rename renames an op or a package without losing the code users
// wrote for it (`opforge mv [--package] OLD NEW`): the name in its YAML
// opdef, and in out/ the files and directories named after it and the
// region keys that carry its name. It only plans: Plan.Rename hands the
// pairing to gen.Plan, which makes the whole rename, the gen of the
// renamed opdef included, one journaled writer Apply.
//
// What moves is not guessed from names alone: the targets generate the
// package under both names, and a file or key is carried over only when
// the old name's file (or key) is gone and the new name's appears in its
// place. Anything that cannot be paired stops the rename with a diagnostic
// before anything is written.
//
// `opforge mv [--package] OLD NEW`: generates the package under both names in
// memory and pairs what the old name alone had with what the new name alone
// has — files by each path part's spelling of the name (CamelCase, snake_case,
// UPPER), region keys ending in `:<Op>` — so a file or key moves only when the
// targets themselves moved it; then renames the op or package in its YAML
// opdef at its position. The CLI applies it under the gen lock, only to a tree
// without drift, as one writer plan (`gen.Options.Rename`): the gen of the
// renamed opdef with the user code carried from the old paths (`writer.Carry`,
// keys renamed) and the opdef itself (`writer.Outside`), journaled and all or
// nothing like a gen.
package rename
