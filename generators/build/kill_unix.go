//go:build unix

package build

import (
	"os/exec"
	"syscall"
)

// KillSignal names the signal a cancelled or timed-out process gets.
const KillSignal = "SIGKILL"

// groupKillOnCancel puts cmd (made by exec.CommandContext) in a process
// group of its own and makes the context's end kill the whole group with
// SIGKILL: a launcher's compiler, a compiler's cc1plus, a driver's
// assembler all go with it, where killing the one process would leave them
// running (and holding the output pipes open).
func groupKillOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The group's leader is not reaped before Wait returns, so its
		// pid (the group's id) cannot have been reused yet.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return nil
	}
}
