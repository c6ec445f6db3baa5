package stageclock

import (
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EnvVar turns the clock on for a run when set to a non-empty value.
const EnvVar = "OPFORGE_STAGES"

// Clock records the wall time between marks.
type Clock struct {
	last   time.Time
	stages []Stage
	now    func() time.Time
}

// Stage is one stage's name and wall time.
type Stage struct {
	Name string
	Took time.Duration
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
		if c.stages[i].Name == name {
			c.stages[i].Took += took
			return
		}
	}
	c.stages = append(c.stages, Stage{name, took})
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
		total += s.Took
		parts[i] = fmt.Sprintf("%s %s", s.Name, ms(s.Took))
	}
	fmt.Fprintf(w, "%s%s%s (total %s)\n", prefix, marker, strings.Join(parts, ", "), ms(total))
}

// marker starts the list in Print's line.
const marker = "stages: "

var stageRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-z][a-z0-9 _-]*) ([0-9]+\.[0-9])ms$`) })

// Parse reads the stages back from a command's output: the first line
// Print wrote (false: none). Lines that only contain the marker (a
// diagnostic quoting a name) are passed over. Stage names are lower-case
// words, as gen's are. The benchmarks use it to tabulate where a run's
// time went.
func Parse(output string) ([]Stage, bool) {
	for line := range strings.SplitSeq(output, "\n") {
		if stages, ok := parseLine(line); ok {
			return stages, true
		}
	}
	return nil, false
}

func parseLine(line string) ([]Stage, bool) {
	_, list, found := strings.Cut(line, marker)
	if !found {
		return nil, false
	}
	list, rest, found := strings.Cut(list, " (total ")
	if !found || !strings.HasSuffix(rest, "ms)") {
		return nil, false
	}
	var stages []Stage
	for part := range strings.SplitSeq(list, ", ") {
		m := stageRE().FindStringSubmatch(part)
		if m == nil {
			return nil, false
		}
		f, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return nil, false
		}
		stages = append(stages, Stage{m[1], time.Duration(math.Round(f * float64(time.Millisecond)))})
	}
	return stages, true
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
}
