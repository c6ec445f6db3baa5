package yamldef

import (
	"regexp"
	"sync"
)

// lazyRE compiles expr on first use.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
