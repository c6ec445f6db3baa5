package sharedfixtures

import (
	"os"
	"testing"
)

// Need returns dir, a folder under shared/fixtures, or skips the test when
// it is absent.
func Need(t testing.TB, dir string) string {
	t.Helper()
	if !Present(dir) {
		t.Skipf("%s is absent: the real XML op configs of shared/fixtures sit beside this repository's clone only in its CI and its developers' sessions", dir)
	}
	return dir
}

// Present reports whether dir exists (for a test that reads it among
// folders of its own and leaves it out when absent).
func Present(dir string) bool {
	_, err := os.Stat(dir)
	return err == nil
}
