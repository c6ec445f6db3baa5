//go:build unix

package bench

import (
	"os"
	"runtime"
	"syscall"
)

// flushDirty writes the system's dirty pages back (sync), so that no step
// pays for an earlier one's writeback.
func flushDirty() { syscall.Sync() }

// peakRSS is a finished process's peak resident memory in bytes (0:
// unknown).
func peakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) // bytes there
	}
	return int64(ru.Maxrss) * 1024 // KiB on Linux and the BSDs
}
