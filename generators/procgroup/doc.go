// Package procgroup runs child processes that must not outlive opforge's
// bounds: each child gets a process group of its own, so that a kill
// reaches what it started too (a launcher's compiler, a compiler's cc1plus,
// the runner a verify harness starts), where killing the one
// process would leave those running and holding the output pipes open.
// build, verify and the targets' runners share it.
//
// Child processes that must not outlive a bound: each in a process group of
// its own, which a timeout, a cancellation or an interrupt kills whole
// (SIGKILL), so what the child started (a compiler's cc1plus, a verify
// runner) goes too; the build engine, verify's runners and probes, and the
// targets' verify tools all start their children through it.
package procgroup
