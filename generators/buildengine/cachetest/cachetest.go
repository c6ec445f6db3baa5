// Package cachetest is test glue over remotecache: it installs what the
// real-cache tests need from Debian's packages when running as root (or
// skips saying why), and ties servers and caches to a test's lifetime.
package cachetest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/buildengine/remotecache"
)

// packages maps the commands tests run to the Debian package holding them.
var packages = map[string]string{"ccache": "ccache", "redis-server": "redis-server", "sccache": "sccache"}

var installMu sync.Mutex

// Require returns the paths of the commands, installing the missing ones
// with apt-get when running as root (bounded in time), else skipping.
func Require(t testing.TB, commands ...string) []string {
	t.Helper()
	installMu.Lock()
	defer installMu.Unlock()
	var missing []string
	for _, c := range commands {
		if _, err := exec.LookPath(c); err != nil {
			missing = append(missing, packages[c])
		}
	}
	if len(missing) > 0 {
		if os.Geteuid() != 0 {
			t.Skipf("%s not installed, and not root to install them (apt-get install %s)", strings.Join(missing, ", "), strings.Join(missing, " "))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "apt-get", append([]string{"install", "-y", "-q", "--no-install-recommends"}, missing...)...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("apt-get install %s failed: %v\n%s", strings.Join(missing, " "), err, out)
		}
	}
	paths := make([]string, len(commands))
	for i, c := range commands {
		p, err := exec.LookPath(c)
		if err != nil {
			t.Skipf("%s is still not on PATH after installing it", c)
		}
		paths[i] = p
	}
	return paths
}

// StartRedis starts a redis-server for the test; it stops when the test
// ends.
func StartRedis(t testing.TB) *remotecache.Redis {
	t.Helper()
	Require(t, "redis-server")
	r, err := remotecache.StartRedis(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r
}

// Ccache is a remotecache.Ccache bound to a test.
type Ccache struct {
	*remotecache.Ccache
}

// NewCcache sets up ccache with an empty local cache and remote storage
// (a URL; "" for none).
func NewCcache(t testing.TB, remote string) *Ccache {
	t.Helper()
	path := Require(t, "ccache")[0]
	c, err := remotecache.NewCcache(path, t.TempDir(), remote)
	if err != nil {
		t.Fatal(err)
	}
	return &Ccache{Ccache: c}
}

// Setenv makes this ccache the one the test's child processes use.
func (c *Ccache) Setenv(t testing.TB) {
	t.Helper()
	for k, v := range c.Env {
		t.Setenv(k, v) // registers the restore, also for the unset ones
		if v == "" {
			_ = os.Unsetenv(k)
		}
	}
}

// Stats reads ccache's counters, failing the test when it cannot.
func (c *Ccache) Stats(t testing.TB) remotecache.Stats {
	t.Helper()
	s, err := c.Ccache.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
