//go:build !unix

package build

import "os/exec"

// KillSignal names what ends a cancelled or timed-out process.
const KillSignal = "a kill"

// groupKillOnCancel: without process groups, the context's end kills the
// process alone (exec.CommandContext's default).
func groupKillOnCancel(cmd *exec.Cmd) {}
