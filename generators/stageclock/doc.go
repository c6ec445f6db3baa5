// Package stageclock times the stages of one opforge run (load, check,
// generate, plan, apply, store) for the benchmarks: `OPFORGE_STAGES=1
// opforge gen` prints each stage's wall time on stderr when the run ends.
//
// Issue 30 asks for each stage's share before and after a change; a
// profile gives CPU time summed over both cores, which is not what a user
// waits for. A nil *Clock (the default) records nothing and costs a nil
// check.
package stageclock
