package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/opforge/opforge/generators/writer"
)

// mvCase is a workspace with user code in the files an mv carries: the
// op's own files (moved) and the package-wide ones (keys renamed).
type mvCase struct {
	root, out string
	args      []string // --opdefs --toolchains --out
	mv        []string // the mv's arguments
	user      map[string]string
}

// mvTemplate is a generated examples workspace, made once: each case is
// a copy (a gen of the examples per kill point would be most of the time).
var mvTemplate struct {
	sync.Mutex
	root string
}

func newMvCase(t *testing.T, pkg bool) *mvCase {
	t.Helper()
	mvTemplate.Lock()
	if mvTemplate.root == "" {
		opdefs, _, _ := examplesWorkspace(t)
		dir, err := os.MkdirTemp("", "opforge-mv-template-")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(dir, os.DirFS(filepath.Dir(opdefs))); err != nil {
			t.Fatal(err)
		}
		mvTemplate.root = dir
	}
	mvTemplate.Unlock()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(mvTemplate.root)); err != nil {
		t.Fatal(err)
	}
	_ = os.RemoveAll(filepath.Join(root, "build")) // the template's cache names its own paths
	opdefs, out := filepath.Join(root, "opdefs"), filepath.Join(root, "out")
	args := []string{"--opdefs", opdefs, "--toolchains", "../../toolchains", "--out", out}
	c := &mvCase{root: root, out: out, args: args}
	fill := []struct{ before, key, body, after string }{
		{"trt/VisionOps/src/ops/TopKLastKernel.cu", "kernels", "// my CUDA kernel\n", "trt/VisionOps/src/ops/TopKAlongLastKernel.cu"},
		{"trt/VisionOps/python/vision_ops_qdp.py", "triton:TopKLast", "    # my Triton kernel\n", "trt/VisionOps/python/vision_ops_qdp.py"},
		{"htp/VisionOps/src/ops/TopKLast.cpp", "impl", "    // my HTP code\n", "htp/VisionOps/src/ops/TopKAlongLast.cpp"},
	}
	c.user = map[string]string{}
	for _, f := range fill {
		fillRegion(t, filepath.Join(out, f.before), f.key, f.body)
		after := f.after
		if pkg {
			after = strings.NewReplacer("VisionOps", "SightOps", "vision_ops", "sight_ops").Replace(f.before)
		}
		c.user[after] = f.body
	}
	c.mv = append(append([]string{"mv", "--cache", c.cache()}, args...), "TopKLast", "TopKAlongLast")
	if pkg {
		c.mv = append(append([]string{"mv", "--package", "--cache", c.cache()}, args...), "VisionOps", "SightOps")
	}
	return c
}

func (c *mvCase) cache() string { return filepath.Join(c.root, "build", "c.json") }

func (c *mvCase) run(cmd string) (int, string) {
	var code int
	var stdout, stderr string
	switch cmd {
	case "mv":
		code, stdout, stderr = run(c.mv...)
	default:
		code, stdout, stderr = run(append([]string{cmd, "--cache", c.cache()}, c.args...)...)
	}
	return code, stdout + stderr
}

func (c *mvCase) check() (int, string) {
	code, stdout, stderr := run(append([]string{"check"}, c.args...)...)
	return code, stdout + stderr
}

// snapshot is every file of the workspace but build/ (cache and lock):
// its opdefs and out/, bytes and modes.
func (c *mvCase) snapshot(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	_ = filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(c.root, p)
		if r == "build" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		fi, _ := d.Info()
		b, _ := os.ReadFile(p)
		m[filepath.ToSlash(r)] = fi.Mode().String() + " " + string(b)
		return nil
	})
	return m
}

func diffSnapshots(got, want map[string]string) string {
	var b strings.Builder
	for p, v := range want {
		if g, ok := got[p]; !ok {
			fmt.Fprintf(&b, "  missing %s\n", p)
		} else if g != v {
			fmt.Fprintf(&b, "  differs %s\n", p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			fmt.Fprintf(&b, "  extra %s\n", p)
		}
	}
	return b.String()
}

// withMvHook runs f with the writer's hook set, counting the changes.
func withMvHook(fail func(n int, op, path string) error, f func()) int {
	var mu sync.Mutex
	n := 0
	reset := writer.SetTestHook(func(op, path string) error {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fail(n, op, path)
	})
	defer reset()
	f()
	return n
}

// reference runs an uninterrupted mv of a fresh case and returns the tree
// before and after, and the number of changes the mv made.
func mvReference(t *testing.T, pkg bool) (before, after map[string]string, changes int) {
	t.Helper()
	c := newMvCase(t, pkg)
	before = c.snapshot(t)
	changes = withMvHook(func(int, string, string) error { return nil }, func() {
		if code, out := c.run("mv"); code != 0 {
			t.Fatalf("mv: %s", out)
		}
	})
	after = c.snapshot(t)
	for path, body := range c.user {
		if !strings.Contains(after["out/"+path], body) {
			t.Fatalf("the reference mv lost %q in %s", body, path)
		}
	}
	return before, after, changes
}

// TestMvKilledAtEveryChangeConverges kills `opforge mv` (as SIGKILL would:
// no roll back, no clean-up) before each change it makes on disk, for an
// op and for a package rename. Before anything else runs, `check` gives no
// advice to delete a file. Then the same mv again, or a gen, converges:
// the mv to the tree an uninterrupted mv makes, the gen to that tree or to
// the tree before the mv, exactly (every user byte in its place, the opdef
// included); check passes, and an mv after a rolled-back one finishes.
func TestMvKilledAtEveryChangeConverges(t *testing.T) {
	for _, pkg := range []bool{false, true} {
		t.Run(fmt.Sprintf("package=%v", pkg), func(t *testing.T) {
			before, after, total := mvReference(t, pkg)
			if total < 10 {
				t.Fatalf("only %d changes seen", total)
			}
			t.Logf("%d changes, each killed", total)
			for k := 1; k <= total; k++ {
				for _, then := range []string{"mv", "gen"} {
					c := newMvCase(t, pkg)
					var at string
					withMvHook(func(n int, op, path string) error {
						if n == k {
							at = op + " " + path
							return writer.ErrKilled
						}
						return nil
					}, func() { c.run("mv") })
					what := fmt.Sprintf("killed at change %d (%s), then %s", k, at, then)
					if _, out := c.check(); strings.Contains(out, "delete it") || strings.Contains(out, "extra file") {
						t.Errorf("%s: check after the kill advises deleting:\n%s", what, out)
					}
					code, out := c.run(then)
					if code != 0 {
						t.Errorf("%s: exit %d\n%s", what, code, out)
						continue
					}
					got := c.snapshot(t)
					switch d := diffSnapshots(got, after); {
					case d == "" && then == "gen":
						// Finished by the gen: the mv again has nothing to do.
						if code, out := c.run("mv"); code != 0 || !strings.Contains(out, "already renamed") || diffSnapshots(c.snapshot(t), after) != "" {
							t.Errorf("%s: mv after the gen finished it: %d\n%s", what, code, out)
						}
					case d == "":
					case then == "gen" && diffSnapshots(got, before) == "":
						// Rolled back: the mv again finishes the rename.
						if code, out := c.run("mv"); code != 0 {
							t.Errorf("%s: mv after the roll back: %s", what, out)
						} else if d := diffSnapshots(c.snapshot(t), after); d != "" {
							t.Errorf("%s: mv after the roll back differs from an uninterrupted mv:\n%s", what, d)
						}
					default:
						t.Errorf("%s: the tree is neither the renamed one nor the one before:\n%s", what, d)
					}
					if code, out := c.check(); code != 0 {
						t.Errorf("%s: check: %s", what, out)
					}
				}
			}
		})
	}
}

// TestMvWriteErrorAtEveryChangeRestores fails (ENOSPC) each change mv
// makes in turn: the mv exits 1 saying nothing was renamed and the tree is
// as before, and it is, exactly, opdef included; or, when the failure hit
// only the removal of the finished journal, the rename is complete.
func TestMvWriteErrorAtEveryChangeRestores(t *testing.T) {
	before, after, total := mvReference(t, false)
	t.Logf("%d changes, each failed", total)
	for k := 1; k <= total; k++ {
		c := newMvCase(t, false)
		var at string
		var code int
		var out string
		withMvHook(func(n int, op, path string) error {
			if n == k {
				at = op + " " + path
				return syscall.ENOSPC
			}
			return nil
		}, func() { code, out = c.run("mv") })
		what := fmt.Sprintf("ENOSPC at change %d (%s)", k, at)
		got := c.snapshot(t)
		if at == "remove "+writer.PendingName {
			if code != 0 || diffSnapshots(got, after) != "" {
				t.Errorf("%s: exit %d, tree:\n%s\n%s", what, code, diffSnapshots(got, after), out)
			}
			continue
		}
		if code != 1 || !strings.Contains(out, "no space left on device") || !strings.Contains(out, "nothing was renamed") || !strings.Contains(out, "as before") {
			t.Errorf("%s: exit %d\n%s", what, code, out)
		}
		if d := diffSnapshots(got, before); d != "" {
			t.Errorf("%s: the tree is not as before:\n%s", what, d)
		}
		if code, out := c.check(); code != 0 {
			t.Errorf("%s: check: %s", what, out)
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if mvTemplate.root != "" {
		os.RemoveAll(mvTemplate.root)
	}
	os.Exit(code)
}
