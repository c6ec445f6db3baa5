// Package bench measures generation and no-op builds over synthetic
// packages of 10, 100 and 1,000 ops, each step in its own opforge process
// so wall time and peak memory are the user's, beside the time `cp -r`
// takes to copy the generated tree (the floor for writing it). Every step
// runs Repeats times after a sync and the median run is reported.
//
// `mage bench` (through `cmd/opforge-bench`, never linked into `opforge`):
// synthetic packages of 10/100/1000 ops; cold, no-op and one-op-changed
// generation and a no-op build, each in its own process (wall time, files and
// bytes written, peak RSS), beside `cp -r` of the tree, on the repository's
// file system; and the team case: a cold build of the chosen target plain, filling a
// shared ccache on a loopback redis-server, and in a fresh clone against the
// warm remote, with ccache's own hit counts. The per-target choices (which
// target each build measures, its stand-in SDK, its compilers' environment)
// are in `bench/targets.go`.
package bench
