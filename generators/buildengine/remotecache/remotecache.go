// Package remotecache runs the shared compiler cache a team plugs opforge
// builds into, for the tests and `mage bench` that measure it: a
// redis-server on the loopback address as the remote storage, and ccache
// with a local cache of its own per simulated machine, read back through
// ccache's own statistics. opforge itself never talks to a cache; it only
// runs the compiler launcher the toolchain descriptors name.
package remotecache

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Redis is a redis-server without persistence, listening on loopback.
type Redis struct {
	Addr string
	cmd  *exec.Cmd
	done chan struct{}
}

// StartRedis starts redis-server on a free loopback port, its files under
// dir, and waits until it answers PING.
func StartRedis(dir string) (*Redis, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	r := &Redis{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), done: make(chan struct{})}
	r.cmd = exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
	if err := r.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	deadline := time.Now().Add(10 * time.Second)
	for r.ping() != nil {
		if time.Now().After(deadline) {
			r.Stop()
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			return nil, fmt.Errorf("redis-server on %s did not answer within 10s:\n%s", r.Addr, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return r, nil
}

// URL is the address in the form ccache's remote_storage takes.
func (r *Redis) URL() string { return "redis://" + r.Addr }

func (r *Redis) ping() error {
	c, err := net.DialTimeout("tcp", r.Addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("redis answered %q", line)
	}
	return nil
}

// Stop kills the server and waits for it to exit: the remote storage is
// gone from that moment. Stopping twice is harmless.
func (r *Redis) Stop() {
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Kill()
	<-r.done
}

// Ccache is one machine's ccache: an empty local cache and a configuration
// file of its own (so neither the developer's cache nor their settings take
// part), and the shared remote storage.
type Ccache struct {
	Path string
	// Env holds the variables ccache reads; an empty value means the
	// variable must be unset (ccache takes a set-but-empty CCACHE_DISABLE
	// as set).
	Env map[string]string
}

// NewCcache sets up ccache (the executable at path) with its local cache
// and configuration under dir and remote storage at remote ("" for none).
func NewCcache(path, dir, remote string) (*Ccache, error) {
	conf := filepath.Join(dir, "ccache.conf")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		return nil, err
	}
	return &Ccache{Path: path, Env: map[string]string{
		"CCACHE_DIR":            filepath.Join(dir, "cache"),
		"CCACHE_CONFIGPATH":     conf,
		"CCACHE_REMOTE_STORAGE": remote,
		"CCACHE_DISABLE":        "",
		"CCACHE_RECACHE":        "",
		"CCACHE_READONLY":       "",
	}}, nil
}

// Environ is base with this ccache's variables set or removed.
func (c *Ccache) Environ(base []string) []string {
	var out []string
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); !hasKey(c.Env, k) {
			out = append(out, kv)
		}
	}
	for k, v := range c.Env {
		if v != "" {
			out = append(out, k+"="+v)
		}
	}
	return out
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// Stats reads this ccache's counters.
func (c *Ccache) Stats() (Stats, error) {
	cmd := exec.Command(c.Path, "--print-stats")
	cmd.Env = c.Environ(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("ccache --print-stats: %v", err)
	}
	return ParseStats(string(out)), nil
}

// Stats are ccache's counters (`ccache --print-stats`), by name.
type Stats map[string]int

// ParseStats reads the tab-separated name/value lines of --print-stats.
func ParseStats(text string) Stats {
	s := Stats{}
	for _, line := range strings.Split(text, "\n") {
		name, value, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSpace(value)); err == nil {
			s[name] = n
		}
	}
	return s
}

// Compiled is how many compiles ccache had to run (cache misses).
func (s Stats) Compiled() int { return s["cache_miss"] }

// RemoteHits is how many results came from the remote storage.
func (s Stats) RemoteHits() int { return s["remote_storage_hit"] }

// String lists the non-zero hit, miss and remote-storage counters.
func (s Stats) String() string {
	var parts []string
	for _, k := range []string{"direct_cache_hit", "preprocessed_cache_hit", "cache_miss", "local_storage_hit", "remote_storage_hit", "remote_storage_miss", "remote_storage_error", "remote_storage_timeout", "called_for_link", "unsupported_compiler_option"} {
		if s[k] != 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", k, s[k]))
		}
	}
	return strings.Join(parts, " ")
}
