package cli

import (
	"io"
	"os"
	"strconv"

	"github.com/opforge/opforge/generators/buildengine"
)

// buildDisplay is how `opforge build` shows its units on w: a status line
// rewritten in place on a terminal, a line per unit's start and end
// anywhere else (a pipe, a file, CI's log). OPFORGE_PROGRESS=plain asks
// for the lines on a terminal too (a screen reader, a terminal that does
// not take the controls), =status for the status line whatever w is;
// TERM=dumb is a terminal without them.
func buildDisplay(w io.Writer, getenv func(string) string) buildengine.Display {
	switch getenv("OPFORGE_PROGRESS") {
	case "plain":
		return buildengine.Display{}
	case "status":
		return buildengine.Display{Status: true, Width: columns(w, getenv)}
	}
	if getenv("TERM") == "dumb" {
		return buildengine.Display{}
	}
	f, ok := w.(*os.File)
	if !ok {
		return buildengine.Display{}
	}
	width, ok := terminalWidth(f)
	if !ok {
		return buildengine.Display{}
	}
	return buildengine.Display{Status: true, Width: width}
}

// columns is w's width when it is a terminal, else $COLUMNS, else 0 (the
// engine's default).
func columns(w io.Writer, getenv func(string) string) int {
	if f, ok := w.(*os.File); ok {
		if width, ok := terminalWidth(f); ok {
			return width
		}
	}
	n, _ := strconv.Atoi(getenv("COLUMNS"))
	return max(n, 0)
}
