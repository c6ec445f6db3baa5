package build

import (
	"context"
	"os/exec"
)

// Command is exec.CommandContext for a child that must not outlive ctx:
// the child runs in a process group of its own, ctx's end kills that
// group (SIGKILL on Unix), and output pipes held open by what the child
// left behind are waited for at most pipeGrace. Build steps outside the
// engine (verify's TensorRT runner) bound their children with it.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	groupKillOnCancel(cmd)
	cmd.WaitDelay = pipeGrace
	return cmd
}
