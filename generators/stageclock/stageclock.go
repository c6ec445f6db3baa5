package stageclock

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// EnvVar turns the clock on for a run when set to a non-empty value.
const EnvVar = "OPFORGE_STAGES"

// Clock records the wall time between marks.
type Clock struct {
	last   time.Time
	stages []stage
	now    func() time.Time
}

type stage struct {
	name string
	took time.Duration
}

// FromEnv starts a clock when EnvVar is set, and returns nil otherwise.
func FromEnv() *Clock {
	if os.Getenv(EnvVar) == "" {
		return nil
	}
	return Start(time.Now)
}

// Start starts a clock that reads the time from now.
func Start(now func() time.Time) *Clock {
	return &Clock{last: now(), now: now}
}

// Mark ends the stage called name: the time since the previous mark (or
// the start) is its. Marks of the same name add up.
func (c *Clock) Mark(name string) {
	if c == nil {
		return
	}
	t := c.now()
	took := t.Sub(c.last)
	c.last = t
	for i := range c.stages {
		if c.stages[i].name == name {
			c.stages[i].took += took
			return
		}
	}
	c.stages = append(c.stages, stage{name, took})
}

// Print writes one line of every stage in the order first marked, and
// their total, as "stages: load 105.2ms, check 20.1ms, ... (total 310.0ms)".
func (c *Clock) Print(w io.Writer, prefix string) {
	if c == nil || len(c.stages) == 0 {
		return
	}
	var total time.Duration
	parts := make([]string, len(c.stages))
	for i, s := range c.stages {
		total += s.took
		parts[i] = fmt.Sprintf("%s %s", s.name, ms(s.took))
	}
	fmt.Fprintf(w, "%sstages: %s (total %s)\n", prefix, strings.Join(parts, ", "), ms(total))
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
}
