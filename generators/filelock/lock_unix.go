//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// flock(2): an advisory lock on the whole file, released with the file.

func tryLock(f *os.File, m mode) error { return flock(f, flockHow(m)|syscall.LOCK_NB) }

func waitLock(f *os.File, m mode) error { return flock(f, flockHow(m)) }

func unlockFile(f *os.File) error { return flock(f, syscall.LOCK_UN) }

func wouldBlock(err error) bool { return errors.Is(err, syscall.EWOULDBLOCK) }

func flockHow(m mode) int {
	if m == exclusive {
		return syscall.LOCK_EX
	}
	return syscall.LOCK_SH
}

// flock retries on EINTR, which a signal to the waiting process causes.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
