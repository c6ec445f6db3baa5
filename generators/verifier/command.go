package verifier

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/opforge/opforge/generators/procgroup"
)

// ToolTimeout bounds a tool a runner starts to make a package runnable (a
// compiler, a version probe): a tool that hangs fails the runner instead
// of hanging verify.
const ToolTimeout = 10 * time.Minute

// CombinedOutput runs name with args, bounded by timeout, and returns its
// combined output; a run past the timeout is killed and its error says so.
func CombinedOutput(timeout time.Duration, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// The tool's whole group goes at the timeout (a compiler's cc1plus too).
	cmd := procgroup.Command(ctx, name, args...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return out, fmt.Errorf("%s %s did not finish in %s; it was killed", name, strings.Join(args, " "), timeout)
	}
	return out, err
}
