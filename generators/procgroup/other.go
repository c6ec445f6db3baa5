//go:build !unix

package procgroup

import "os/exec"

// KillSignal names what ends a killed process.
const KillSignal = "a kill"

// ownGroup: without process groups, a kill reaches the process alone.
func ownGroup(*exec.Cmd) {}

// Kill kills cmd's process.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
