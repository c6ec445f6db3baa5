//go:build unix

package filestat

import (
	"os"
	"syscall"
)

func inode(fi os.FileInfo) uint64 {
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
