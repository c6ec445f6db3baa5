package filestat

import "os"

// Stat is a file's identity for up-to-date checks; comparable, and
// stored as JSON in the build directory's state files.
type Stat struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"`
	Ino   uint64 `json:"ino"`
}

// Of stats path (following links); false when it cannot. A gen stats
// thousands of files and a no-op build hundreds, so where the system's
// stat can be read directly (of_linux.go) no os.FileInfo is made.
func Of(path string) (Stat, bool) { return of(path) }

// ofInfo is Of through os.Stat.
func ofInfo(path string) (Stat, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return Stat{}, false
	}
	return FromInfo(fi), true
}

// FromInfo is the Stat of what os.Stat returned.
func FromInfo(fi os.FileInfo) Stat {
	return Stat{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Ino: inode(fi)}
}
