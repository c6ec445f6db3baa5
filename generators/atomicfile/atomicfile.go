// Package atomicfile writes files so that readers and crashes never see a
// half-written file, and leaves unchanged files (and their mtimes) alone.
package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
)

// Write replaces path with data by writing a temporary file in the same
// directory and renaming it over path. It returns false, touching nothing,
// when path already holds exactly data.
func Write(path string, data []byte, perm os.FileMode) (changed bool, err error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return false, err
	}
	fail := func(err error) (bool, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return false, err
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return false, err
	}
	return true, nil
}
