package verifier

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
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
	cmd := exec.CommandContext(ctx, name, args...)
	// Output pipes a killed tool's children still hold are closed after this.
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return out, fmt.Errorf("%s %s did not finish in %s; it was killed", name, strings.Join(args, " "), timeout)
	}
	return out, err
}
