//go:build !unix

package verify

import (
	"os/exec"
	"time"
)

// ownGroup: without process groups, a kill reaches the runner alone.
func ownGroup(cmd *exec.Cmd) { cmd.WaitDelay = 5 * time.Second }

// killGroupOnCancel: a cancellation kills the process (CommandContext's default).
func killGroupOnCancel(cmd *exec.Cmd) { ownGroup(cmd) }

// killGroup kills cmd's process.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
