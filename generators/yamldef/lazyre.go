package yamldef

import (
	"regexp"
	"sync"
)

// lazyRE compiles expr on first use: every opforge command runs the
// package's initialization, a no-op build included (the package's one way
// to a lazy regular expression).
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
