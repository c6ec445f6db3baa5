//go:build linux || darwin

package cli

import (
	"os"
	"syscall"
	"unsafe"
)

// terminalWidth is the width of the terminal f is, asked of the terminal
// itself (TIOCGWINSZ); ok is false when f is no terminal (a file, a pipe,
// /dev/null: all answer ENOTTY), which is how opforge tells one without a
// dependency on golang.org/x/term.
func terminalWidth(f *os.File) (width int, ok bool) {
	var ws struct{ Row, Col, X, Y uint16 }
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	if errno != 0 {
		return 0, false
	}
	return int(ws.Col), true
}
