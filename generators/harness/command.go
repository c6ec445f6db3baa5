package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/opforge/opforge/generators/procgroup"
)

// ToolTimeout bounds a tool a runner starts to make a package runnable (a
// compiler, a version probe): a tool that hangs fails the runner instead
// of hanging verify.
const ToolTimeout = 10 * time.Minute

// TimedOut is a tool killed at its bound.
type TimedOut struct{ msg string }

func (e *TimedOut) Error() string { return e.msg }

// CombinedOutput runs name with args (what a runner does to make a package
// runnable: stage) within timeout and returns its combined output; past
// the timeout, the tool's process group is killed and the error, a
// *TimedOut, names the stage, the tool and the signal.
func CombinedOutput(timeout time.Duration, stage, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := procgroup.Command(ctx, name, args...).CombinedOutput()
	if ctx.Err() != nil {
		return out, &TimedOut{fmt.Sprintf("%s (%s) ran past %s; its process group was killed with %s", stage, name, timeout, procgroup.KillSignal)}
	}
	return out, err
}
