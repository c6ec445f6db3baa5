//go:build windows

package filelock

import (
	"errors"
	"os"
	"syscall"
	"unsafe"
)

// LockFileEx on one byte far past the file's contents: Windows locks are
// mandatory on the bytes they cover, and the holder's pid written at the
// start must stay readable by the processes that wait. Windows releases a
// process's locks when it ends, as flock does.

var (
	kernel32         = syscall.NewLazyDLL("kernel32.dll")
	procLockFileEx   = kernel32.NewProc("LockFileEx")
	procUnlockFileEx = kernel32.NewProc("UnlockFileEx")
)

const (
	lockfileFailImmediately = 0x1
	lockfileExclusiveLock   = 0x2
	errorLockViolation      = syscall.Errno(33)
	lockOffsetHigh          = 0x7fffffff
)

func tryLock(f *os.File, m mode) error { return lockFileEx(f, flags(m)|lockfileFailImmediately) }

func waitLock(f *os.File, m mode) error { return lockFileEx(f, flags(m)) }

func unlockFile(f *os.File) error {
	ov := syscall.Overlapped{OffsetHigh: lockOffsetHigh}
	r, _, err := procUnlockFileEx.Call(f.Fd(), 0, 1, 0, uintptr(unsafe.Pointer(&ov)))
	if r == 0 {
		return err
	}
	return nil
}

func wouldBlock(err error) bool { return errors.Is(err, errorLockViolation) }

func flags(m mode) uintptr {
	if m == exclusive {
		return lockfileExclusiveLock
	}
	return 0
}

func lockFileEx(f *os.File, flags uintptr) error {
	ov := syscall.Overlapped{OffsetHigh: lockOffsetHigh}
	r, _, err := procLockFileEx.Call(f.Fd(), flags, 0, 1, 0, uintptr(unsafe.Pointer(&ov)))
	if r == 0 {
		return err
	}
	return nil
}
