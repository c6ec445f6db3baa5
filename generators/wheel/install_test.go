package wheel

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestWheelInstallsAndRuns builds opforge for this machine, writes its
// wheel, installs it with pip into a fresh venv (no index: the wheel
// alone) and runs the installed command as a new user would: init, then
// gen in the repository init made.
func TestWheelInstallsAndRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds opforge and a venv; skipped with -short")
	}
	p, ok := PlatformFor(runtime.GOOS, runtime.GOARCH)
	if !ok {
		t.Skipf("opforge ships no wheel for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	python := os.Getenv("OPFORGE_PYTHON")
	if python == "" {
		python = "python3"
	}
	if err := exec.Command(python, "-c", "import venv, ensurepip").Run(); err != nil {
		t.Skipf("%s cannot make a venv with pip (venv, ensurepip): %v; set OPFORGE_PYTHON", python, err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, p.Executable("opforge"))
	compile := exec.Command("go", "build", "-trimpath", "-o", bin, "github.com/opforge/opforge/generators/cmd/opforge")
	compile.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := compile.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	s := Spec{Name: "opforge", Version: "0.1.0.dev1+gtest", Platform: p, Executable: exe, Modified: time.Unix(0, 0)}
	whl := filepath.Join(dir, s.FileName())
	f, err := os.Create(whl)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(f, s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	venv := filepath.Join(dir, "venv")
	mustRun(t, dir, nil, python, "-m", "venv", venv)
	scripts := filepath.Join(venv, "bin")
	if runtime.GOOS == "windows" {
		scripts = filepath.Join(venv, "Scripts")
	}
	mustRun(t, dir, nil, filepath.Join(scripts, "python"), "-m", "pip", "install", "--no-index", "--disable-pip-version-check", whl)

	// The installed command is found on PATH, not by its path: that is
	// what installing it is for.
	env := append(os.Environ(), "PATH="+scripts+string(os.PathListSeparator)+os.Getenv("PATH"))
	repo := filepath.Join(dir, "repo")
	mustRun(t, dir, env, "opforge", "init", repo)
	out := mustRun(t, repo, env, "opforge", "gen")
	t.Logf("opforge gen:\n%s", out)
	if entries, err := os.ReadDir(filepath.Join(repo, "out")); err != nil || len(entries) == 0 {
		t.Errorf("gen wrote no out/ (%v)", err)
	}
	if installed, err := exec.LookPath(filepath.Join(scripts, p.Executable("opforge"))); err != nil {
		t.Errorf("pip did not install the executable: %v", err)
	} else if !strings.HasPrefix(installed, venv) {
		t.Errorf("opforge installed at %s, outside the venv", installed)
	}
}

func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(lookPath(env, name), args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// lookPath finds name on the PATH of env (this process's when env is nil),
// as the shell of a user with that environment would.
func lookPath(env []string, name string) string {
	if env == nil || strings.ContainsRune(name, os.PathSeparator) {
		return name
	}
	// The last PATH= wins, as it does for exec.Cmd.Env.
	var path string
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = p
		}
	}
	for _, d := range filepath.SplitList(path) {
		if c := filepath.Join(d, name); isExecutable(c) {
			return c
		}
	}
	return name
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
