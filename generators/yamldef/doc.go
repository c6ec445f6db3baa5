// Package yamldef reads and writes opforge's YAML OpDef format (version 1).
//
// Reading keeps positions: the document is parsed into yaml.Node, checked
// against schemas/opdef.schema.json with every error placed at its node,
// and only a structurally valid document is turned into the IR. gen parses
// with ParseSliced: the items of the ops list whose text was parsed before
// come from a store (Chunks), so a file with one op changed parses that op,
// and the tree is the one Parse gives (slice.go says when a file is cut).
// An item this generator converted, schema-checked and hashed before with
// no diagnostic is vetted in the same store and is not converted, checked
// or hashed again (vet.go); any diagnostic, and the whole document is
// checked as Load checks it. A vetted item whose op built with no
// diagnostic also keeps the op's model (ir/ircodec, positions relative to
// the item): a later load reads it back instead of parsing and building
// the item (prebuilt.go), and runs the whole load at any diagnostic.
//
// The YAML format: `yaml.Node` parsing (positions; parser errors are re-placed
// by a small scan of the source text: the first line of inconsistent
// indentation, the opening line of an unclosed flow collection, the `*alias`
// of an unknown anchor, with a column), bounded conversion to plain values
// (alias-expansion and depth budgets, duplicate keys, tags), JSON Schema
// validation with every error placed at its node (`schemas/opdef.schema.json`
// is the single source of structural rules; `schemacheck` gives the verdict,
// and the reference validator runs only to explain a failure; "did you mean"
// suggestions are read from the schema itself), building the IR (every target
// section, its nested lists included, kept whole as an
// `ir.Node` from the `yaml.Node`, aliases resolved; the target decodes it);
// the canonical writer, which writes sections from their nodes with no
// knowledge of any target, and `fmt`.
//
// Parser errors are placed and given a fix by a small scan of the source
// (indent.go: the open blocks, their columns and last keys; indentfix.go: the
// column to move to and the key to line up with, or the missing colon or
// space; position.go: brackets, quotes, aliases); misplaced.go says where a
// key dedented out of its block belongs.
package yamldef
