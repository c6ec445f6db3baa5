package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeedsABinary: without an opforge binary to time, the bench says how
// to get one and measures nothing.
func TestNeedsABinary(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"--opforge", filepath.Join(t.TempDir(), "opforge")}, &out, &errs)
	if code != 2 || out.Len() != 0 || !strings.Contains(errs.String(), "go build -o build/opforge ./generators/cmd/opforge") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errs.String())
	}
	if code := run([]string{"extra"}, &out, &errs); code != 2 {
		t.Errorf("a positional argument: exit %d, want 2", code)
	}
}
