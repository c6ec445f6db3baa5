//go:build mage

// opforge's build targets. Run them with `go tool mage <target>` (mage is a
// tool dependency in go.mod, so nothing needs installing); `go tool mage -l`
// lists them.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/opforge/opforge/generators/cli"
)

// Default target when none is named.
var Default = Check

// Check validates every op definition under opdefs/ (all diagnostics, as
// path:line:col) and fails when the checked-in out/ tree differs from what
// they generate: changed, missing or extra files.
func Check() error {
	if code := cli.Main([]string{"check"}, os.Stdout, os.Stderr); code != 0 {
		return fmt.Errorf("check failed")
	}
	return nil
}

// Gen regenerates out/ from opdefs/: only changed files are written, user
// code between opforge:begin/end markers is kept, and nothing is written
// when any error was found.
func Gen() error {
	if code := cli.Main([]string{"gen"}, os.Stdout, os.Stderr); code != 0 {
		return fmt.Errorf("gen failed")
	}
	return nil
}

// venvDir holds the Python test dependencies (git-ignored, reused across
// runs; rebuilt only when testdata/requirements.txt changes).
const venvDir = ".venv"

// Test prepares the Python test environment, runs every Go test (SDK-gated
// ones skip with a reason unless their environment variables are set) and
// runs each fuzz target briefly.
func Test() error {
	python, err := ensureVenv()
	if err != nil {
		return err
	}
	env := append(os.Environ(), "OPFORGE_PYTHON="+python)
	if err := run(env, "go", "vet", "./..."); err != nil {
		return err
	}
	if err := run(env, "go", "test", "-count=1", "./..."); err != nil {
		return err
	}
	return Fuzz()
}

// fuzzTargets are the loaders' fuzz tests: package -> fuzz function.
var fuzzTargets = [][2]string{
	{"./generators/yamldef", "FuzzLoadYAML"},
	{"./generators/qnnxml", "FuzzLoadXML"},
	{"./generators/shapeexpr", "FuzzParse"},
}

// Fuzz runs each loader fuzz target for FUZZTIME (default 10s).
func Fuzz() error {
	d := os.Getenv("FUZZTIME")
	if d == "" {
		d = "10s"
	}
	for _, t := range fuzzTargets {
		if err := run(nil, "go", "test", "-run=^$", "-fuzz=^"+t[1]+"$", "-fuzztime="+d, "-fuzzminimizetime=3s", t[0]); err != nil {
			return err
		}
	}
	return nil
}

func ensureVenv() (string, error) {
	python := filepath.Join(venvDir, "bin", "python")
	if runtime.GOOS == "windows" {
		python = filepath.Join(venvDir, "Scripts", "python.exe")
	}
	req, err := os.ReadFile("testdata/requirements.txt")
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(req)
	stamp := filepath.Join(venvDir, ".requirements.sha256")
	want := hex.EncodeToString(sum[:])
	if got, err := os.ReadFile(stamp); err == nil && string(got) == want {
		return filepath.Abs(python)
	}
	start := time.Now()
	if _, err := os.Stat(python); err != nil {
		if err := run(nil, "python3", "-m", "venv", venvDir); err != nil {
			return "", fmt.Errorf("creating the test virtualenv: %w (on Debian: apt-get install python3-venv)", err)
		}
	}
	if err := run(nil, python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", "testdata/requirements.txt"); err != nil {
		return "", err
	}
	if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
		return "", err
	}
	fmt.Printf("test virtualenv ready in %s\n", time.Since(start).Round(time.Second))
	return filepath.Abs(python)
}

// run executes a command (argv, no shell) with output passed through.
func run(env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if env != nil {
		cmd.Env = env
	}
	fmt.Printf("$ %s %v\n", name, args)
	return cmd.Run()
}
