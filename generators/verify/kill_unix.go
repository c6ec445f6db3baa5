//go:build unix

package verify

import (
	"os/exec"
	"syscall"
	"time"
)

// ownGroup starts cmd in a process group of its own, so that a kill
// reaches what the runner started (the TensorRT runner, a compiler).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
}

// killGroupOnCancel puts cmd (made by exec.CommandContext) in a group of
// its own and makes the context's cancellation kill the group.
func killGroupOnCancel(cmd *exec.Cmd) {
	ownGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd); return nil }
}

// killGroup kills cmd's process group with SIGKILL.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
