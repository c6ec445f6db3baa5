package stageclock

import (
	"bytes"
	"testing"
	"time"
)

// stepped is a clock whose every reading is the last one plus the next
// of steps.
func stepped(steps ...time.Duration) func() time.Time {
	at := time.Unix(0, 0)
	return func() time.Time {
		at = at.Add(steps[0])
		steps = steps[1:]
		return at
	}
}

func TestMarksAddUpInFirstOrder(t *testing.T) {
	c := Start(stepped(0, 5*time.Millisecond, 2*time.Millisecond, 1500*time.Microsecond))
	c.Mark("load")
	c.Mark("apply")
	c.Mark("load")
	var b bytes.Buffer
	c.Print(&b, "opforge gen: ")
	want := "opforge gen: stages: load 6.5ms, apply 2.0ms (total 8.5ms)\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

func TestNilClockIsSilent(t *testing.T) {
	var c *Clock
	c.Mark("load")
	var b bytes.Buffer
	c.Print(&b, "")
	if b.Len() != 0 {
		t.Fatalf("nil clock printed %q", b.String())
	}
}

// TestParseReadsPrint: what Print writes, Parse reads back (to the tenth
// of a millisecond Print keeps); lines Print did not write are refused.
func TestParseReadsPrint(t *testing.T) {
	c := Start(stepped(0, 105300*time.Microsecond, 20*time.Millisecond, 7100*time.Microsecond))
	c.Mark("load")
	c.Mark("open cache")
	c.Mark("store")
	var b bytes.Buffer
	b.WriteString("warning: op X: stages: 3\nopforge gen: 4010 files in out\n")
	c.Print(&b, "opforge gen: ")
	got, ok := Parse(b.String())
	want := []Stage{{"load", 105300 * time.Microsecond}, {"open cache", 20 * time.Millisecond}, {"store", 7100 * time.Microsecond}}
	if !ok || len(got) != len(want) {
		t.Fatalf("Parse = %v, %v; want %v", got, ok, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("stage %d: %v, want %v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"", "no stages here", "stages: load 1.0ms", "stages: load ms (total 1.0ms)", "stages: Load 1.0ms (total 1.0ms)"} {
		if s, ok := Parse(bad); ok {
			t.Errorf("Parse(%q) = %v, want false", bad, s)
		}
	}
}
