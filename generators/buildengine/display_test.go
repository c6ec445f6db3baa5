package buildengine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scriptUnits are three units, a then b then c, run by a shell script that writes its artifact
// ("-o" then the path) and prints what the script says: a build that
// needs no compiler.
func scriptUnits(t *testing.T, dir string, say map[string]string, fail string) []*Unit {
	t.Helper()
	tool := filepath.Join(dir, "tool")
	script := "#!/bin/sh\nout=''; prev=''\nfor a in \"$@\"; do if [ \"$prev\" = -o ]; then out=$a; fi; prev=$a; done\n" +
		"echo made > \"$out\"\nprintf '%s' \"$1\"\n[ \"$2\" = fail ] && exit 1\nexit 0\n"
	if err := os.WriteFile(tool, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// Each waits for the one before: the order they run in is fixed.
	var units []*Unit
	after := []string{}
	for _, id := range []string{"a", "b", "c"} {
		src := filepath.Join(dir, id+".src")
		_ = os.WriteFile(src, []byte(id), 0o644)
		status := "ok"
		if id == fail {
			status = "fail"
		}
		units = append(units, &Unit{ID: "unit " + id, Tool: tool, Source: src, Inputs: []string{src}, Format: FormatNonEmpty,
			Output: filepath.Join(dir, "build", id+".out"), Args: []string{say[id], status, "-o", OutArg}, After: after})
		after = []string{"unit " + id}
	}
	return units
}

func runShown(t *testing.T, d Display, units []*Unit, dir string) (string, error) {
	t.Helper()
	var log bytes.Buffer
	e := &Engine{StateFile: filepath.Join(dir, "build", ".state.json"), Log: &log, Jobs: 1, Display: d}
	_, err := e.Run(context.Background(), units)
	return log.String(), err
}

// Without a terminal every unit is a line as it starts (its tool and
// name, numbered in start order) and one as it ends (its time), the
// tool's warnings and failures under it.
func TestDisplayLines(t *testing.T) {
	dir := t.TempDir()
	units := scriptUnits(t, dir, map[string]string{"b": "b.src:1: warning: careful\n"}, "c")
	log, err := runShown(t, Display{}, units, dir)
	if err == nil {
		t.Fatalf("a failing unit did not fail the build:\n%s", log)
	}
	ms := regexp.MustCompile(`\(\d+ms\)`)
	got := ms.ReplaceAllString(log, "(T)")
	want := "[1/3] tool unit a" + "\n" +
		"[1/3] done unit a (T)\n" +
		"[2/3] tool unit b" + "\n" +
		"[2/3] done unit b (T)\nb.src:1: warning: careful\n" +
		"[3/3] tool unit c" + "\n" +
		"[3/3] FAILED unit c (T)\n" + commandLine(units[2]) + "\n" +
		"3 units: 2 built, 0 up to date, 1 failed, 0 skipped in "
	if !strings.HasPrefix(got, want) {
		t.Errorf("log:\n%s\nwant it to start:\n%s", got, want)
	}
	if strings.Contains(log, "\r") || strings.Contains(log, "\x1b") {
		t.Errorf("a log holds terminal controls:\n%q", log)
	}
}

// On a terminal the units run on one status line, rewritten in place and
// cut to the width; what must stay (warnings, a failure, the summary) is
// printed above it, and the line is gone when the summary comes.
func TestDisplayStatusLine(t *testing.T) {
	dir := t.TempDir()
	units := scriptUnits(t, dir, map[string]string{"b": "b.src:1: warning: careful\n"}, "c")
	width := 14 // narrower than every status line: each is cut
	log, err := runShown(t, Display{Status: true, Width: width}, units, dir)
	if err == nil {
		t.Fatalf("a failing unit did not fail the build:\n%q", log)
	}
	// What a terminal shows: each \r returns to the line's start, \x1b[K
	// erases to its end.
	var screen []string
	line := ""
	for _, part := range regexp.MustCompile(`\r|\x1b\[K|\n|[^\r\n\x1b]+`).FindAllString(log, -1) {
		switch part {
		case "\r":
			line = ""
		case "\x1b[K": // ends each status line drawn
			if len([]rune(line)) >= width {
				t.Errorf("the status line %q reaches the terminal's width %d: it would wrap", line, width)
			}
		case "\n":
			screen = append(screen, line)
			line = ""
		default:
			line += part
		}
	}
	if line != "" {
		t.Errorf("the status line %q is still on screen after the summary", line)
	}
	text := strings.Join(screen, "\n")
	for _, want := range []string{"[2/3] done unit b", "b.src:1: warning: careful", "[3/3] FAILED unit c", "3 units: 2 built, 0 up to date, 1 failed"} {
		if !strings.Contains(text, want) {
			t.Errorf("the screen lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "done unit a") {
		t.Errorf("a unit that printed nothing left a line on the terminal:\n%s", text)
	}
	// Each start was shown, cut from the left to fit.
	for i, u := range units {
		shown := cut("["+string(rune('1'+i))+"/3] tool "+u.ID, width-1)
		if !strings.Contains(log, "\r"+shown+"\x1b[K") {
			t.Errorf("the start of %s was not shown as %q:\n%q", u.ID, shown, log)
		}
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		line  string
		width int
		want  string
	}{
		{"[1/3] nvcc a.cu", 20, "[1/3] nvcc a.cu"},
		{"[1/3] nvcc out/trt/MyOps/src/ops/FooKernel.cu", 20, ".../ops/FooKernel.cu"},
		{"ünïcödé-wide-enough", 10, "...-enough"},
	} {
		if got := cut(c.line, c.width); got != c.want || len([]rune(got)) > c.width {
			t.Errorf("cut(%q, %d) = %q, want %q", c.line, c.width, got, c.want)
		}
	}
}
