//go:build !unix

package bench

import "os"

// flushDirty has no system-wide call to make here (Windows flushes per
// file): the steps' wall times then include what writeback they meet.
func flushDirty() {}

// peakRSS is unknown here: the process state carries no peak.
func peakRSS(*os.ProcessState) int64 { return 0 }
