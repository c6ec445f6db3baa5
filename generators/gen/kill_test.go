package gen

import (
	"bytes"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/writer"
)

// killHelperEnv makes the test binary one gen of the workspace it names
// ("opdefs|toolchains|out"), for TestKilledGenConverges to SIGKILL.
const killHelperEnv = "OPFORGE_GEN_KILL_HELPER"

func TestKilledGenHelper(t *testing.T) {
	spec := os.Getenv(killHelperEnv)
	if spec == "" {
		t.Skip("run by TestKilledGenConverges as the process it kills")
	}
	parts := strings.Split(spec, "|")
	if l := regen(t, Options{OpDefs: parts[0], Toolchains: parts[1], Out: parts[2]}); l.HasErrors() {
		t.Fatal(l.Sorted())
	}
}

// treeBytes maps every file under root to its bytes.
func treeBytes(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			r, _ := filepath.Rel(root, p)
			m[r] = string(b)
		}
		return nil
	})
	return m
}

// TestKilledGenConverges SIGKILLs real gen processes at random moments
// (switching the opdefs between two versions, so every run rewrites many
// files) and then checks that one more gen leaves exactly the tree a clean
// gen makes, the user's region intact, and that check agrees.
func TestKilledGenConverges(t *testing.T) {
	o := workspace(t)
	yaml := filepath.Join(o.OpDefs, "vision/vision_ops.yaml")
	cpp := filepath.Join(o.Out, "htp/VisionOps/src/ops/TopKLast.cpp")
	const mine = "  return GraphStatus::Success; // mine, survives every kill\n"
	edit(t, cpp, implEnd, mine+"  // opforge:end impl\n")
	v1, _ := os.ReadFile(yaml)
	v2 := bytes.Replace(v1, []byte("version: 1.0.0"), []byte("version: 1.0.1"), 1)
	if bytes.Equal(v1, v2) {
		t.Fatal("the opdef edit did not apply")
	}
	helper := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledGenHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), killHelperEnv+"="+o.OpDefs+"|"+o.Toolchains+"|"+o.Out)
		return cmd
	}
	// One whole run, to know how long there is to hit.
	_ = os.WriteFile(yaml, v2, 0o644)
	start := time.Now()
	if out, err := helper().CombinedOutput(); err != nil {
		t.Fatalf("helper gen: %v\n%s", err, out)
	}
	span := time.Since(start)
	rng := rand.New(rand.NewSource(16))
	kills := 12
	if testing.Short() {
		kills = 4
	}
	for i := 0; i < kills; i++ {
		version := [][]byte{v1, v2}[i%2]
		_ = os.WriteFile(yaml, version, 0o644)
		cmd := helper()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int63n(int64(span))))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
	// The user reverts to the first version, or keeps the last one tried.
	if l := regen(t, o); l.HasErrors() {
		t.Fatalf("gen after kills: %v", l.Sorted())
	}
	got := treeBytes(t, o.Out)
	if !strings.Contains(got["htp/VisionOps/src/ops/TopKLast.cpp"], mine) {
		t.Error("the user's region was lost")
	}
	var l diag.List
	writer.Diff(mustPlan(t, o), &l)
	if l.HasErrors() {
		t.Errorf("check after kills and one gen: %v", l.Sorted())
	}
	// A clean gen of the same opdefs, with the same user edit.
	clean := workspace(t)
	edit(t, filepath.Join(clean.Out, "htp/VisionOps/src/ops/TopKLast.cpp"), implEnd, mine+"  // opforge:end impl\n")
	last, _ := os.ReadFile(yaml)
	_ = os.WriteFile(filepath.Join(clean.OpDefs, "vision/vision_ops.yaml"), last, 0o644)
	if l := regen(t, clean); l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	want := treeBytes(t, clean.Out)
	for p, v := range want {
		if got[p] != v {
			t.Errorf("%s differs from a clean gen", p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("extra %s after kills and one gen", p)
		}
	}
}
