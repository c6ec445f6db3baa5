// Package gen is the generation pipeline: checked IR -> every target's
// file set (in memory, each file with its header) -> the writer's plan for
// out/.
//
// The pipeline: load + check the opdefs tree, generate every target (render
// puts each file's header in the copy it makes), plan against out/. Headers
// name the opdef relative to the repository root, so every machine
// generates the same bytes. `opforge gen`
// holds a `filelock` in the build dir for the whole run and drops the cache
// record before writing. `--package`/`--op` give the writer a scope: the named
// packages' directories, less the files another op generates alone (found by
// generating its package without that op); outside it nothing is written,
// removed or compared, and manifest entries are kept.
//
// The gen cache (cache.go) answers two questions: is there nothing to do
// (the no-op record: inputs and every file's stat as the last gen left
// them), and which files an op generates alone are still what the last gen
// made of it (reuse.go: a key per op from the loader's digests, the
// generator and the templates; such files are not rendered, and their
// manifest entries carry over). The ops' sections of shared files live in
// a CRC-checked, content-addressed store beside it (sections.go), and so
// do the parsed items of the YAML opdefs' ops lists (yamldef.ParseSliced).
package gen
