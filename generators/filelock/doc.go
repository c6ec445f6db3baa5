// Package filelock serializes opforge runs that write the same tree (two
// builds of one target, two gens of one out/): an advisory lock on a file
// beside the tree, held for the run and released by the kernel when the
// process ends, however it ends — so a killed run never leaves a lock
// behind that the next one must be told to remove.
//
// An advisory lock (flock) on a file beside a tree, so two runs writing the
// same tree take turns; the kernel releases it when the process ends, so a
// killed run leaves none behind.
package filelock
