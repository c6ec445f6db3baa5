package build

import (
	"os"
	"syscall"
)

// inode returns the file's inode where the platform has one, so a file
// replaced by another of the same size and mtime still gets re-hashed.
func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
