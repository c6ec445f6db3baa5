package writer

import (
	"io/fs"
	"path/filepath"
)

// walkDirNames is anyNameBelow by filepath.WalkDir: the walk on systems
// without the Linux one, and the Linux one's reference in tests.
func walkDirNames(root string, match func(name string) bool) bool {
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
