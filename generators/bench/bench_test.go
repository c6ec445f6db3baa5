package bench

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSmall runs the whole bench on tiny packages with a freshly built
// opforge: every step must run and report what it did.
func TestRunSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds opforge")
	}
	work := t.TempDir()
	bin := filepath.Join(work, "opforge")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/opforge").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var table bytes.Buffer
	o := Options{Binary: bin, Toolchains: "../../toolchains", Work: work, Sizes: []int{3}, Out: &table}
	steps, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 12 { // all, htp, trt, aipu x cold, no-op, one op changed
		t.Fatalf("%d steps:\n%s", len(steps), table.String())
	}
	for i := 0; i < len(steps); i += 3 {
		cold, noop, one := steps[i], steps[i+1], steps[i+2]
		if cold.FilesWritten == 0 || cold.CopyFloor == 0 || cold.PeakRSS == 0 {
			t.Errorf("cold step %+v: want files, a copy floor and peak memory", cold)
		}
		if noop.FilesWritten != 0 {
			t.Errorf("no-op step wrote %d files", noop.FilesWritten)
		}
		if one.FilesWritten == 0 || one.FilesWritten >= cold.FilesWritten {
			t.Errorf("one op changed wrote %d files (cold: %d)", one.FilesWritten, cold.FilesWritten)
		}
	}
	if _, err := NoopBuild(o, 3, "../../testdata/build/fake-compiler.sh"); err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(table.String(), "\n"); rows != 13 {
		t.Errorf("table has %d rows:\n%s", rows, table.String())
	}
}
