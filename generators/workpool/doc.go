// Package workpool runs the iterations of a loop on a fixed number of
// goroutines. Callers write results into slots indexed by the iteration,
// so the order of the output never depends on scheduling.
//
// The worker pools: `Parallel` runs a loop's iterations on every core,
// `ParallelIO` on more goroutines than cores (for work that waits in system
// calls), `Workers` tells each call its worker for per-worker scratch state;
// results go into slots by index, so order never depends on scheduling.
// `Claim` is one piece of work several goroutines may be ready to do, done
// by the first to ask (a prefetch and its consumer, say).
package workpool
