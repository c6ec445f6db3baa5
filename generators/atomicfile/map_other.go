//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package atomicfile

import (
	"errors"
	"os"
)

// mapFile: no mapping here; MapRegular reads.
func mapFile(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }
