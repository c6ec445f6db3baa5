//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package atomicfile

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only and private, its pages faulted
// in at once where the kernel can (mapPopulate).
func mapFile(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE|mapPopulate)
}
