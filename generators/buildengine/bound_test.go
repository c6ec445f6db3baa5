package buildengine

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// script writes an executable shell script into the project.
func (p *project) script(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// runUnits runs units with a unit timeout (0: the default) and ctx.
func (p *project) runUnits(ctx context.Context, t *testing.T, units []*Unit, timeout time.Duration) (Result, string, error) {
	t.Helper()
	var log bytes.Buffer
	e := &Engine{StateFile: filepath.Join(p.dir, "build", ".state.json"), Log: &log, Jobs: 2, UnitTimeout: timeout}
	r, err := e.Run(ctx, units)
	return r, log.String(), err
}

// launched gives the project's compiles the launcher.
func (p *project) launched(launcher string) []*Unit {
	units := p.units()
	for _, u := range units {
		if u.Source != "" {
			u.Launcher = launcher
		}
	}
	return units
}

// writesOut is a shell loop that sets $out to the argument after -o.
const writesOut = "out=''; prev=''\nfor a in \"$@\"; do if [ \"$prev\" = -o ]; then out=$a; fi; prev=$a; done\n"

// gone says whether pid has ended (gone, or a zombie nobody reaped).
func gone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || strings.Contains(string(stat), ") Z ")
}

// TestHangingLauncherIsKilled: a launcher that never returns (and started
// a child that never does either) fails its unit at the unit timeout, with
// its whole process group killed; the message names the unit, the command,
// the stage and the signal.
func TestHangingLauncherIsKilled(t *testing.T) {
	p := newProject(t)
	pids := filepath.Join(p.dir, "pids")
	launcher := p.script(t, "hanging-launcher", "sleep 300 &\necho $! >> "+pids+"\nwait\n")
	t0 := time.Now()
	r, log, err := p.runUnits(context.Background(), t, p.launched(launcher), 300*time.Millisecond)
	if took := time.Since(t0); took > 20*time.Second {
		t.Errorf("the build took %s past a 300ms unit timeout", took)
	}
	if err == nil || r.Failed != 3 || r.Skipped != 1 || r.Built != 0 {
		t.Fatalf("a hanging launcher did not fail its units: %+v %v\n%s", r, err, log)
	}
	for _, want := range []string{
		"FAILED compile a",
		"compile a: the compile through compiler launcher " + launcher + " ran past the unit timeout of 300ms (--unit-timeout); its process group was killed with SIGKILL",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %q:\n%s", want, log)
		}
	}
	if line := failedCommand(t, log, "compile a"); !strings.Contains(line, "a.cpp") || !strings.Contains(line, filepath.Join("build", "a.o")) {
		t.Errorf("the command is not shown: %s", line)
	}
	if !strings.Contains(err.Error(), "compile a (timed out after 300ms, killed with SIGKILL)") {
		t.Errorf("the error does not say the unit timed out: %v", err)
	}
	data, _ := os.ReadFile(pids)
	ids := strings.Fields(string(data))
	if len(ids) != 3 {
		t.Fatalf("%d launcher children recorded, want 3: %q", len(ids), data)
	}
	for _, id := range ids {
		pid, _ := strconv.Atoi(id)
		deadline := time.Now().Add(5 * time.Second)
		for !gone(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !gone(pid) {
			t.Errorf("the launcher's child %d outlived the timeout", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(p.dir, "build", "*.tmp")); len(left) > 0 {
		t.Errorf("temporaries left behind: %v", left)
	}
	// Without the launcher the same tree builds.
	if r, log, err := p.runUnits(context.Background(), t, p.units(), 0); err != nil || r.Built != 4 {
		t.Errorf("plain build after the hang: %+v %v\n%s", r, err, log)
	}
}

// TestHangingLinkerIsKilled: the tool itself hanging, in a link.
func TestHangingLinkerIsKilled(t *testing.T) {
	p := newProject(t)
	hang := p.script(t, "hanging-linker", "exec sleep 300\n")
	units := p.units()
	link := units[len(units)-1]
	link.Tool = hang
	r, log, err := p.runUnits(context.Background(), t, units, 300*time.Millisecond)
	if err == nil || r.Failed != 1 || r.Built != 3 {
		t.Fatalf("%+v %v\n%s", r, err, log)
	}
	want := "link libx.so: the link ran past the unit timeout of 300ms (--unit-timeout); its process group was killed with SIGKILL"
	if !strings.Contains(log, want) || !strings.Contains(failedCommand(t, log, "link libx.so"), hang) {
		t.Errorf("the log does not say %q with the command:\n%s", want, log)
	}
}

// TestInterruptKillsUnits: the build's context ending (Ctrl-C) kills the
// running units' processes and says so.
func TestInterruptKillsUnits(t *testing.T) {
	p := newProject(t)
	launcher := p.script(t, "hanging-launcher", "exec sleep 300\n")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	r, log, err := p.runUnits(ctx, t, p.launched(launcher), 0)
	if took := time.Since(t0); err == nil || r.Built != 0 || took > 20*time.Second {
		t.Fatalf("interrupted build: %+v %v in %s\n%s", r, err, took, log)
	}
	if !strings.Contains(log, "the build was interrupted during the compile through compiler launcher "+launcher+"; its process group was killed with SIGKILL") || !strings.Contains(err.Error(), "(interrupted)") {
		t.Errorf("the interruption is not named:\n%s\n%v", log, err)
	}
}

// TestLyingLauncher: a launcher that exits 0 after writing something other
// than the object (garbage, nothing, an empty file) fails the unit, naming
// the launcher and the file; what it wrote is removed, and a plain build
// afterwards compiles everything and succeeds. A warm tree keeps its good
// objects.
func TestLyingLauncher(t *testing.T) {
	for _, c := range []struct{ name, body, says string }{
		{"garbage", writesOut + "echo garbage > \"$out\"\n", `is not a relocatable object: it is not an ELF relocatable object (it starts with "garbage\n")`},
		{"nothing", "exit 0\n", "is not a relocatable object: no file was written"},
		{"empty", writesOut + ": > \"$out\"\n", "is not a relocatable object: the file is empty"},
		{"a library", writesOut + "exec \"$1\" -shared -o \"$out\" -x c++ /dev/null\n", "is not a relocatable object: it is an ELF file of type shared object, not a relocatable object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t)
			launcher := p.script(t, "lying-launcher", c.body)
			r, log, err := p.runUnits(context.Background(), t, p.launched(launcher), 0)
			if err == nil || r.Failed != 3 || r.Skipped != 1 || r.LauncherFailed != 0 {
				t.Fatalf("a lying launcher was trusted: %+v %v\n%s", r, err, log)
			}
			obj := filepath.Join(p.dir, "build", "a.o")
			want := "compile a: compiler launcher " + launcher + " exited 0, but what it wrote for " + obj + " " + c.says + "; it was removed and nothing was kept"
			if !strings.Contains(log, want) {
				t.Errorf("the log does not say\n%s\n%s", want, log)
			}
			if !strings.Contains(err.Error(), "compile a (bad output from compiler launcher "+launcher+")") {
				t.Errorf("the error does not blame the launcher: %v", err)
			}
			left, _ := filepath.Glob(filepath.Join(p.dir, "build", "*"))
			for _, f := range left {
				if !strings.HasPrefix(filepath.Base(f), ".state.json") {
					t.Errorf("kept after the failed check: %s", f)
				}
			}
			// The next plain build trusts nothing of that run.
			p.processes(t)
			r, log, err = p.runUnits(context.Background(), t, p.units(), 0)
			if err != nil || r.Built != 4 || len(p.processes(t)) != 4 {
				t.Fatalf("plain build after the lying launcher: %+v %v\n%s", r, err, log)
			}
			for _, o := range []string{"a.o", "b.o", "c.o"} {
				if bad := checkArtifact(filepath.Join(p.dir, "build", o), FormatObject); bad != nil {
					t.Errorf("%s: %v", o, bad)
				}
			}
			// Warm: switching to the liar fails the compiles again and
			// leaves the good objects and library; switching back finds
			// them up to date.
			before, _ := os.ReadFile(obj)
			if r, log, err := p.runUnits(context.Background(), t, p.launched(launcher), 0); err == nil || r.Failed != 3 {
				t.Fatalf("warm tree, lying launcher: %+v %v\n%s", r, err, log)
			}
			if after, _ := os.ReadFile(obj); !bytes.Equal(before, after) {
				t.Error("a failed check replaced the last good object")
			}
			if r, log, err := p.runUnits(context.Background(), t, p.units(), 0); err != nil || r.Built != 0 || r.UpToDate != 4 {
				t.Errorf("plain build after: %+v %v\n%s", r, err, log)
			}
		})
	}
}

// TestBadToolOutput: the tool itself (no launcher) exiting 0 with a file
// that is not its artifact fails the same way, naming the tool.
func TestBadToolOutput(t *testing.T) {
	p := newProject(t)
	liar := p.script(t, "liar", writesOut+"echo 'not a library' > \"$out\"\n")
	units := p.units()
	units[len(units)-1].Tool = liar
	r, log, err := p.runUnits(context.Background(), t, units, 0)
	if err == nil || r.Failed != 1 {
		t.Fatalf("%+v %v\n%s", r, err, log)
	}
	lib := filepath.Join(p.dir, "build", "libx.so")
	if !strings.Contains(log, liar+" exited 0, but what it wrote for "+lib+" is not a shared library: it is not an ELF shared library") {
		t.Errorf("the log does not name the tool and the file:\n%s", log)
	}
	if _, err := os.Stat(lib); !os.IsNotExist(err) {
		t.Errorf("the bad library was kept: %v", err)
	}
}

// TestBadArtifactInPlaceIsRebuilt: an artifact at the output that is not
// what it should be (what an older opforge kept from a lying launcher, or
// anything written over it) is not up to date, whatever the key says.
func TestBadArtifactInPlaceIsRebuilt(t *testing.T) {
	p := newProject(t)
	if r, log, err := p.runUnits(context.Background(), t, p.units(), 0); err != nil || r.Built != 4 {
		t.Fatalf("%+v %v\n%s", r, err, log)
	}
	obj := filepath.Join(p.dir, "build", "b.o")
	if err := os.WriteFile(obj, []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.processes(t)
	r, log, err := p.runUnits(context.Background(), t, p.units(), 0)
	if err != nil || r.Built != 1 || r.UpToDate != 3 {
		t.Fatalf("%+v %v\n%s", r, err, log)
	}
	if !strings.Contains(log, "compile b: removed "+obj+", which is not a relocatable object") {
		t.Errorf("the log does not say why b.o was rebuilt:\n%s", log)
	}
	if bad := checkArtifact(obj, FormatObject); bad != nil {
		t.Error(bad)
	}
}

// TestUnitKeyFollowsLauncher: the launcher's path and contents are part
// of a unit's key; a unit without one keeps the key it had.
func TestUnitKeyFollowsLauncher(t *testing.T) {
	p := newProject(t)
	one := p.script(t, "one", "exec \"$@\"\n")
	two := p.script(t, "two", "exec \"$@\"\n")
	key := func(launcher string) string {
		u := p.units()[0]
		u.Launcher = launcher
		return loadState(filepath.Join(p.dir, "none.json")).key(u, nil)
	}
	plain, k1, k2 := key(""), key(one), key(two)
	if plain == k1 || k1 == k2 || plain == k2 {
		t.Errorf("keys do not follow the launcher: none %s, one %s, two %s", plain, k1, k2)
	}
	p.script(t, "one", "# a new version\nexec \"$@\"\n")
	if key(one) == k1 {
		t.Error("a launcher's new version keeps its old key")
	}
	if key("") != plain {
		t.Error("the key of a unit without a launcher is not stable")
	}
}

func TestCheckArtifact(t *testing.T) {
	p := newProject(t)
	if r, log, err := p.runUnits(context.Background(), t, p.units(), 0); err != nil || r.Built != 4 {
		t.Fatalf("%+v %v\n%s", r, err, log)
	}
	obj, lib := filepath.Join(p.dir, "build", "a.o"), filepath.Join(p.dir, "build", "libx.so")
	cut := func(src string, n int) string {
		data, _ := os.ReadFile(src)
		path := src + ".cut" + strconv.Itoa(n)
		_ = os.WriteFile(path, data[:n], 0o644)
		return path
	}
	garbage := filepath.Join(p.dir, "garbage")
	_ = os.WriteFile(garbage, []byte("\x7fELF\x09"+strings.Repeat("x", 100)), 0o644)
	for _, c := range []struct {
		path string
		f    Format
		want string // "" for no error
	}{
		{obj, FormatObject, ""},
		{lib, FormatShared, ""},
		{obj, FormatShared, "it is an ELF file of type relocatable, not a shared library"},
		{lib, FormatObject, "it is an ELF file of type shared object, not a relocatable object"},
		{cut(obj, 200), FormatObject, "it is an ELF file cut short: its section headers end at byte"},
		{cut(obj, 20), FormatObject, "it is an ELF file cut short in its header"},
		{garbage, FormatObject, "it has the ELF magic but no valid class (9)"},
		{filepath.Join(p.dir, "src", "a.cpp"), FormatNonEmpty, ""},
		{filepath.Join(p.dir, "src", "a.cpp"), FormatArchive, "it is not an ar archive"},
		{filepath.Join(p.dir, "build"), FormatNonEmpty, "it is not a regular file"},
	} {
		err := checkArtifact(c.path, c.f)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s as %s: %v, want %q", c.path, c.f, err, c.want)
		}
	}
	if ar, err := exec.LookPath("ar"); err == nil {
		archive := filepath.Join(p.dir, "build", "libx.a")
		if out, err := exec.Command(ar, "rcs", archive, obj).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if err := checkArtifact(archive, FormatArchive); err != nil {
			t.Error(err)
		}
	}
	for out, want := range map[string]Format{"x.o": FormatObject, "x.so": FormatShared, "x.a": FormatArchive, "x.d": FormatNonEmpty, "x.bin": FormatNonEmpty} {
		if got := formatOf(&Unit{Output: out}); got != want {
			t.Errorf("%s: %s, want %s", out, got, want)
		}
	}
	if got := formatOf(&Unit{Output: "k.o", Format: FormatNonEmpty}); got != FormatNonEmpty {
		t.Errorf("a unit's own format is not kept: %s", got)
	}
}
