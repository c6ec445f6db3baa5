package writer

import (
	"encoding/binary"
	"path/filepath"
	"syscall"
	"unsafe"
)

// anyNameBelow reports whether match accepts the name of anything below
// root: a file, a directory or a link, links not followed, directories
// named build or __pycache__ neither matched nor entered, and a directory
// that cannot be read skipped (as filepath.WalkDir's callers here skip
// it). It is the leftovers' walk of a whole out/ tree before every gen,
// so it reads each directory's entries in the kernel's own records and
// makes no string of a name match only looks at: match must not keep its
// argument, a view of a buffer the next directory overwrites.
func anyNameBelow(root string, match func(name string) bool) bool {
	buf := make([]byte, 64<<10)
	dirs := []string{root}
	for len(dirs) > 0 {
		dir := dirs[len(dirs)-1]
		dirs = dirs[:len(dirs)-1]
		found, sub := scanDir(dir, buf, match)
		if found {
			return true
		}
		dirs = append(dirs, sub...)
	}
	return false
}

// scanDir matches the names of dir's entries and returns its
// subdirectories' paths, to be scanned once dir's descriptor is closed.
func scanDir(dir string, buf []byte, match func(string) bool) (found bool, sub []string) {
	fd, err := ignoringEINTR(func() (int, error) {
		return syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	})
	if err != nil {
		return false, nil
	}
	defer syscall.Close(fd)
	for {
		n, err := ignoringEINTR(func() (int, error) { return syscall.ReadDirent(fd, buf) })
		if err != nil || n <= 0 {
			return false, sub
		}
		for rec := buf[:n]; len(rec) >= direntName; {
			// struct linux_dirent64: ino, off (8 bytes each), reclen (2),
			// type (1), then the name, NUL-terminated within reclen.
			reclen := int(binary.NativeEndian.Uint16(rec[16:18]))
			if reclen < direntName || reclen > len(rec) {
				return false, sub // not a record: stop, as a failed read would
			}
			typ := rec[18]
			if unknownTypes {
				typ = syscall.DT_UNKNOWN
			}
			name := rec[direntName:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			rec = rec[reclen:]
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			view := unsafe.String(unsafe.SliceData(name), len(name))
			entryIsDir := typ == syscall.DT_DIR || typ == syscall.DT_UNKNOWN && isDir(dir, view)
			if entryIsDir && (view == "build" || view == "__pycache__") {
				continue
			}
			if match(view) {
				return true, nil
			}
			if entryIsDir {
				sub = append(sub, filepath.Join(dir, string(name)))
			}
		}
	}
}

// direntName is where a linux_dirent64's name starts.
const direntName = 19

// unknownTypes makes every entry's type unknown, as some file systems
// leave it (tests: the lstat that then tells a directory).
var unknownTypes = false

// ignoringEINTR retries call while a signal interrupts it, as the os
// package does: FUSE and CIFS give EINTR even to restartable calls, and
// the runtime's preemption signal is frequent. A directory skipped for
// it would hide a leftover.
func ignoringEINTR(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// isDir reports whether name in dir is a directory, not a link to one: a
// file system that leaves an entry's type unknown is asked with lstat.
func isDir(dir, name string) bool {
	var st syscall.Stat_t
	if syscall.Lstat(filepath.Join(dir, name), &st) != nil {
		return false
	}
	return st.Mode&syscall.S_IFMT == syscall.S_IFDIR
}
