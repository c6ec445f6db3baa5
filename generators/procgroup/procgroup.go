package procgroup

import (
	"context"
	"os/exec"
	"time"
)

// PipeGrace bounds how long Wait waits, once the child has exited or been
// killed, for output pipes that something the child left behind still
// holds.
const PipeGrace = 5 * time.Second

// Command is exec.CommandContext for a child that must not outlive ctx:
// it runs in a group of its own and ctx's end kills the whole group
// (KillSignal).
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	Own(cmd)
	cmd.Cancel = func() error { Kill(cmd); return nil }
	return cmd
}

// Own makes cmd (not started yet) start in a process group of its own,
// for a caller that kills it with Kill on a condition of its own.
func Own(cmd *exec.Cmd) {
	ownGroup(cmd)
	cmd.WaitDelay = PipeGrace
}
