package buildengine

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Display is how a build shows its units: each as it starts, numbered in
// the order units start out of all the build's units ("[3/17] cc
// t/MyOps/Foo.o"), so a long compile is never silence; and
// each as it ends, with its time.
type Display struct {
	// Status, for a terminal, keeps the units that run on one status line
	// rewritten in place; only what must stay (a failure, a tool's
	// warnings, the summary) is printed above it. Otherwise (a log, CI)
	// every start and end is a line of its own.
	Status bool
	// Width is the terminal's width in columns: the status line is cut to
	// fit it, since a line that wraps can no longer be rewritten (0: 80).
	Width int
}

// display prints a build's progress and messages to one writer. The
// units' goroutines call it at once, so it takes turns.
type display struct {
	Display
	mu      sync.Mutex
	w       io.Writer
	total   int
	shown   bool      // the status line is on screen
	running []started // the units running, in the order they started
}

type started struct {
	seq  int
	what string
}

func newDisplay(w io.Writer, d Display, total int) *display {
	if d.Width <= 0 {
		d.Width = 80
	}
	return &display{Display: d, w: w, total: total}
}

// printf prints a message that stays: above the status line, which is
// drawn again under it.
func (d *display) printf(format string, args ...any) {
	if d == nil || d.w == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clear()
	fmt.Fprintf(d.w, format, args...)
	d.draw()
}

// start shows unit number seq starting.
func (d *display) start(seq int, u *Unit) {
	if d == nil || d.w == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	s := started{seq, describe(u)}
	if !d.Status {
		fmt.Fprintf(d.w, "[%d/%d] %s\n", seq, d.total, s.what)
		return
	}
	d.running = append(d.running, s)
	d.draw()
}

// done shows unit number seq ending well: a line with its time, and what
// the tool printed (warnings) under it; on a terminal, where only what
// must stay is printed, the line only when the tool printed something.
func (d *display) done(seq int, u *Unit, elapsed time.Duration, out []byte) {
	line := fmt.Sprintf("[%d/%d] done %s (%s)\n", seq, d.total, u.ID, elapsed.Round(time.Millisecond))
	if len(bytes.TrimSpace(out)) > 0 {
		d.ended(seq, withNewline(line+string(out)), true)
		return
	}
	d.ended(seq, line, false)
}

// failed shows unit number seq failing, whatever the display: its command
// as a user can run it again, why the engine failed it (why, or "") and
// what the tool printed.
func (d *display) failed(seq int, u *Unit, elapsed time.Duration, why string, out []byte) {
	report := fmt.Sprintf("[%d/%d] FAILED %s (%s)\n%s\n%s%s", seq, d.total, u.ID, elapsed.Round(time.Millisecond), commandLine(u), why, out)
	d.ended(seq, withNewline(report), true)
}

// ended takes unit seq off the status line and prints text, which on a
// terminal stays only when it must.
func (d *display) ended(seq int, text string, stays bool) {
	if d == nil || d.w == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, s := range d.running {
		if s.seq == seq {
			d.running = append(d.running[:i], d.running[i+1:]...)
			break
		}
	}
	d.clear()
	if stays || !d.Status {
		fmt.Fprint(d.w, text)
	}
	d.draw()
}

// withNewline ends s with a newline: a tool's output may lack its last.
func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

// finish clears the status line, for the summary to take its place.
func (d *display) finish() {
	if d == nil || d.w == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.running = nil
	d.clear()
}

// draw writes the status line: the unit that started last of those
// running, and how many more run.
func (d *display) draw() {
	if !d.Status || len(d.running) == 0 {
		return
	}
	last := d.running[len(d.running)-1]
	line := fmt.Sprintf("[%d/%d] %s", last.seq, d.total, last.what)
	if more := len(d.running) - 1; more > 0 {
		line += fmt.Sprintf(" (+%d running)", more)
	}
	fmt.Fprint(d.w, "\r"+cut(line, d.Width-1)+"\x1b[K")
	d.shown = true
}

// clear takes the status line off the screen: back to the line's start,
// erased to its end.
func (d *display) clear() {
	if d.shown {
		fmt.Fprint(d.w, "\r\x1b[K")
		d.shown = false
	}
}

// cut shortens line to width characters, keeping its end (the file's
// name is what tells units apart).
func cut(line string, width int) string {
	r := []rune(line)
	if len(r) <= width || width < 4 {
		return line
	}
	return "..." + string(r[len(r)-width+3:])
}

// describe is how a unit shows when it starts: its tool and its name
// ("cc t/MyOps/Foo.o"), which, unlike its source, no other
// unit shares (one kernel compiles once per architecture and dtype).
func describe(u *Unit) string {
	return filepath.Base(u.Tool) + " " + u.ID
}
