//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// KillSignal names the signal a killed group gets.
const KillSignal = "SIGKILL"

func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Kill kills cmd's process group with SIGKILL. The group's leader is not
// reaped before Wait returns, so its pid (the group's id) cannot have been
// reused yet.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
