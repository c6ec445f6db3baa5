package stageclock

import (
	"bytes"
	"testing"
	"time"
)

func TestMarksAddUpInFirstOrder(t *testing.T) {
	at := time.Unix(0, 0)
	steps := []time.Duration{0, 5 * time.Millisecond, 2 * time.Millisecond, 1500 * time.Microsecond}
	i := 0
	c := Start(func() time.Time {
		at = at.Add(steps[i])
		i++
		return at
	})
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
