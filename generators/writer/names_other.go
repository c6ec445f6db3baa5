//go:build !linux

package writer

// anyNameBelow reports whether match accepts the name of anything below
// root: a file, a directory or a link, links not followed, directories
// named build or __pycache__ neither matched nor entered, and a directory
// that cannot be read skipped. match must not keep its argument (the
// Linux walk hands it views of a buffer).
func anyNameBelow(root string, match func(name string) bool) bool {
	return walkDirNames(root, match)
}
