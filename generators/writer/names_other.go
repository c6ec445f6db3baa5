//go:build !linux

package writer

import (
	"io/fs"
	"path/filepath"
)

// anyNameBelow reports whether match accepts the name of anything below
// root: a file, a directory or a link, links not followed, directories
// named build or __pycache__ neither matched nor entered, and a directory
// that cannot be read skipped. match must not keep its argument (the
// Linux walk hands it views of a buffer).
func anyNameBelow(root string, match func(name string) bool) bool {
	errFound := fs.ErrExist // any sentinel: only this walk returns it
	err := filepath.WalkDir(root, func(full string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || full == root:
			return nil
		case d.IsDir() && (d.Name() == "build" || d.Name() == "__pycache__"):
			return filepath.SkipDir
		case match(d.Name()):
			return errFound
		}
		return nil
	})
	return err == errFound
}
