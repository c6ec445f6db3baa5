// Package gen is the generation pipeline: checked IR -> every target's
// file set (in memory) -> headers -> the writer's plan for out/.
//
// The pipeline: load + check the opdefs tree, generate every target, add
// headers, plan against out/. Headers name the opdef relative to the
// repository root, so every machine generates the same bytes. `opforge gen`
// holds a `filelock` in the build dir for the whole run and drops the cache
// record before writing. `--package`/`--op` give the writer a scope: the named
// packages' directories, less the files another op generates alone (found by
// generating its package without that op); outside it nothing is written,
// removed or compared, and manifest entries are kept.
package gen
