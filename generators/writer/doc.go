// Package writer puts a generated file set on disk under one output root
// (out/), safely:
//
//   - user-owned regions of existing files are carried into the new files
//     (package regions); code that would have no place to go stops the run;
//   - only files whose bytes changed are written, each atomically;
//   - files generated earlier but no longer produced (tracked in the
//     manifest) are removed, unless they still hold user code;
//   - nothing outside the root is touched, not even through a symlink,
//     and nothing but regular files is opened;
//   - a file is never replaced or removed unless it holds what opforge
//     wrote there (the manifest's fingerprints) or the user said --force;
//   - nothing at all is written when any error was found, and a failed
//     Apply puts back what it changed.
//
// Diff compares the same plan with the disk for the drift check.
//
// The plan for out/ (new values: the generator's file set is never changed):
// merges user regions from disk, refuses paths through symlinks or outside the
// root (a symlinked root too) and anything but regular files (lstat first,
// reads with `O_NONBLOCK`), stops on any read error and on hand edits that
// regeneration would overwrite (manifest v2 fingerprints of what was written
// outside the user regions; `Force` overrides), records what the disk holds at
// each path (absent, same bytes, other bytes, with the old bytes and mode) so
// Apply reads nothing again, computes stale files from the manifest (removing
// only files holding exactly what opforge wrote and no user code), and applies
// all or nothing: every changed file written to a hidden temporary or staging
// directory first, then a journal (`.opforge.pending.json`), renames, stale
// removals and the manifest last; an error, or a file changed since Prepare
// looked, rolls everything back; a kill is finished by the next Apply
// (leftovers removed by name, the journal's files recognised). A `Known` (the
// gen cache) may vouch for files it then neither reads nor writes; `Plan.Stat`
// gives the cache only stats this process saw holding the planned bytes. Diffs
// for the drift check (changed, missing, extra, leftovers). An optional
// `Scope` limits a plan (and `Diff`) to the paths it accepts, keeping the
// manifest entries of the others. A rename (`Carry`, `Outside`, `Move`)
// carries user regions from old paths, removes the old files, and renames
// files of the repository outside the root (the opdef) at its commit point,
// after every new file and before any removal; its journal entry (`Move`)
// keeps the old bytes and new hashes of every file it changes, so `Recover`,
// which gen and mv run first under the lock, finishes it (opdef renamed, new
// files in place) or rolls it back.
//
// The generated-edited message names the file's user regions nearest the
// edit, or says the file has none.
package writer
