package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/opforge/opforge/generators/buildengine"
)

func TestBuildDisplay(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	type displayCase struct {
		name string
		w    io.Writer
		env  func(string) string
		want buildengine.Display
	}
	cases := []displayCase{
		{"a buffer", &bytes.Buffer{}, env(), buildengine.Display{}},
		{"a file", file, env(), buildengine.Display{}},
		{"/dev/null, a character device but no terminal", devNull, env(), buildengine.Display{}},
		{"asked for plain lines", devNull, env("OPFORGE_PROGRESS", "plain"), buildengine.Display{}},
		{"asked for the status line, $COLUMNS wide", &bytes.Buffer{}, env("OPFORGE_PROGRESS", "status", "COLUMNS", "120"), buildengine.Display{Status: true, Width: 120}},
		{"asked for the status line, width unknown", file, env("OPFORGE_PROGRESS", "status"), buildengine.Display{Status: true}},
	}
	// A pseudo-terminal's master answers as a terminal does, where the
	// system has one to open.
	if pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0); err == nil && (runtime.GOOS == "linux" || runtime.GOOS == "darwin") {
		defer pty.Close()
		width, _ := terminalWidth(pty)
		cases = append(cases,
			displayCase{"a terminal", pty, env(), buildengine.Display{Status: true, Width: width}},
			displayCase{"a terminal asked for plain lines", pty, env("OPFORGE_PROGRESS", "plain"), buildengine.Display{}},
			displayCase{"a dumb terminal", pty, env("TERM", "dumb"), buildengine.Display{}},
		)
	} else {
		t.Logf("no pseudo-terminal to open (%v): a terminal's case not run", err)
	}
	for _, c := range cases {
		if got := buildDisplay(c.w, c.env); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
