// Package verify is `opforge verify`: it builds test cases for every op
// from its opdef (shape symbols at several sizes, every dtype combination
// torch can hold, params across defaults, ranges and enum values), runs
// each target's implementation and the op's reference (the package's
// reference module) in a Python runner embedded in the binary, and
// compares the outputs: exact for integers and booleans, within per-dtype
// tolerances for floats.
//
// `opforge verify` over the `harness.Runner`s the targets provide
// (`registry.Verifiers`). Cases (`cases.go`, `variants.go`, `large.go`,
// `opdefcases.go`): from the IR and `ir.Facts`, symbols at 3, 1 and a mix
// (less those `verify: sizes` computes), every admitted rank of
// rank-polymorphic inputs and every axis of an axis param at rank 3, integer
// inputs within their `range`, trailing optional inputs left out, every dtype
// combination torch can make, params at defaults, bounds, enum and bool values
// and away from the default where a bound is missing, one large case of odd
// dims past a 256-element block, the opdef's own `verify: cases` (checked by
// `validate/verifycases.go`). Running (`verify.go`, `process.go`): one
// embedded Python harness (`runner.py`) per (package, target), fed the job on
// stdin, imports the runner's implementation class
// (`runners/<target>_verify.py` of each target) and prints a JSON line per
// case and a `{"stage"}` line before each stage; the runner runs in a process
// group of its own under a per-stage watchdog (`--case-timeout`), so a hang is
// killed and a crash fails the unreported cases naming the stage and signal;
// the `import torch` check is bounded the same way. Reporting (`report.go`,
// `shard.go`): each result says what it proved (`Check`: kernel or wiring, and
// the `Engine`, as the implementation class declares them), the summary per op
// × target, the totals and which ops had a kernel executed; `--shard K/N`
// deals the numbered op × target × case list round-robin and `Merge` puts
// shards' JSON reports back in the unsharded order (`Result.Seq`); `--strict`
// fails on skips for want of something here (not on `NotTaken`). Exact
// comparison for integers, per-dtype tolerances for floats; a skip is never a
// pass. Doctor (`doctor.go`): every runner's probes, merged, answered by one
// run of `doctor_probe.py` per interpreter within `--timeout`, then each
// `harness.Doctor`'s findings. What each runner runs, and whether it is a
// kernel or a wiring check, is its target's (`verify.go` in the target's
// folder, and the README's verify section).
//
// Run checks the loaded opdefs with every target's checks (registry.Check,
// as check and gen do) and stops with their diagnostics before any runner is
// asked anything; each runner's cases come from the op as its target sees it
// (Options.RunnerTarget, ir.Op.For).
package verify
