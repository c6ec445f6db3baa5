package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Write replaces path with data by writing a temporary file in the same
// directory and renaming it over path. It returns false, touching nothing,
// when path already holds exactly data.
func Write(path string, data []byte, perm os.FileMode) (changed bool, err error) {
	if old, err := ReadRegular(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, Replace(path, data, perm)
}

// ErrNotRegular is a path holding a directory, FIFO, device or socket.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens the regular file at path to read, and its stat. It
// opens with O_NONBLOCK, so that a FIFO there (put by accident, or by
// someone who means harm) cannot hang the reader waiting for a writer, and
// refuses anything but a regular file, wrapping ErrNotRegular.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadRegular reads the regular file at path (OpenRegular).
func ReadRegular(path string) ([]byte, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, fi.Size())
}

// readAll reads f, of size bytes by its fstat.
func readAll(f *os.File, size int64) ([]byte, error) {
	// Sized from the fstat like os.ReadFile: one read and the EOF, where
	// io.ReadAll's growing buffer takes several for a large file.
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err := buf.ReadFrom(f)
	return buf.Bytes(), err
}

// Replace writes data to path through a temporary file and a rename,
// without first comparing with what path holds: for callers that already
// know the bytes differ. The directory must exist.
func Replace(path string, data []byte, perm os.FileMode) error {
	return ReplaceFrom(path, bytes.NewReader(data), perm)
}

// Temp writes data to a new, uniquely named hidden temporary beside path
// and returns its name, for callers that rename it over path later (all
// files of a change first, then every rename). Its name matches IsTemp.
func Temp(path string, data []byte, perm os.FileMode) (string, error) {
	return besideUnique(path, func(tmp string) error {
		return create(tmp, perm, func(f *os.File) error { _, err := f.Write(data); return err })
	})
}

// tempRE matches the names besideUnique gives: "." + base + ".tmp-" + pid
// "-" start "-" counter.
var tempRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\..+\.tmp-[0-9]+-[0-9a-z]+-[0-9a-z]+$`) })

// IsTemp reports whether a base name is one of this package's temporary
// files or staging directories: what a killed writer leaves behind.
func IsTemp(base string) bool {
	// Most names a walk of out/ meets are not: they are told so without
	// the expression.
	if len(base) < 2 || base[0] != '.' || !strings.Contains(base, ".tmp-") {
		return false
	}
	return tempRE().MatchString(base)
}

// Owner is what this process puts in its temporaries' names: its pid and
// start time, which no other process, one reusing the pid included, has.
func Owner() string { return strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(start, 36) }

// TempOwner is the Owner of the process that named the temporary base
// (IsTemp), "" for another name.
func TempOwner(base string) string {
	if !IsTemp(base) {
		return ""
	}
	rest := base[strings.LastIndex(base, ".tmp-")+len(".tmp-"):]
	return rest[:strings.LastIndexByte(rest, '-')]
}

// ReplaceFrom is Replace with the bytes streamed from r, for files too
// large to hold in memory.
func ReplaceFrom(path string, r io.Reader, perm os.FileMode) error {
	tmp, err := besideUnique(path, func(tmp string) error {
		return create(tmp, perm, func(f *os.File) error { _, err := io.Copy(f, r); return err })
	})
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// Create writes data to a new file at path and fails when path exists. It
// is not atomic by itself: callers write into a directory no reader knows
// yet (a staging directory renamed into place when complete), where a
// crash leaves nothing half-written in view.
func Create(path string, data []byte, perm os.FileMode) error {
	return create(path, perm, func(f *os.File) error { _, err := f.Write(data); return err })
}

// create makes a new file at path, fills it with fill, and removes it
// again when that or closing fails.
func create(path string, perm os.FileMode, fill func(*os.File) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

// CreateNew writes data to path when nothing is there and returns false,
// writing nothing, when something is: through a temporary beside it and a
// hard link, so the file appears whole or not at all, and a file created
// meanwhile is never replaced.
func CreateNew(path string, data []byte, perm os.FileMode) (created bool, err error) {
	tmp, err := besideUnique(path, func(name string) error { return Create(name, data, perm) })
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// MkdirUnique creates a new directory beside path, named after it with a
// unique hidden suffix, for a tree to be staged there and renamed to path.
func MkdirUnique(path string) (string, error) {
	return besideUnique(path, func(stage string) error { return os.Mkdir(stage, 0o755) })
}

// besideUnique calls create with hidden names beside path until one is not
// taken yet (another writer's temporary file), and returns that name.
func besideUnique(path string, create func(name string) error) (string, error) {
	dir, base := filepath.Split(path)
	for {
		name := filepath.Join(dir, "."+base+".tmp-"+uniqueSuffix())
		if err := create(name); !errors.Is(err, fs.ErrExist) {
			return name, err
		}
	}
}

var counter atomic.Uint64

// uniqueSuffix is unique within the process (a counter) and across
// processes (the pid and the start time), without a random source.
func uniqueSuffix() string {
	return Owner() + "-" + strconv.FormatUint(counter.Add(1), 36)
}

var start = time.Now().UnixNano()
