//go:build !(linux || darwin)

package cli

import "os"

// terminalWidth says f is a terminal when it is a character device (the
// width unknown: 0, the engine's default); elsewhere than Linux and macOS
// opforge asks no more of it.
func terminalWidth(f *os.File) (width int, ok bool) {
	st, err := f.Stat()
	return 0, err == nil && st.Mode()&os.ModeCharDevice != 0
}
