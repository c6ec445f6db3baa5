package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// aipuBuild sets up `opforge build aipu` over the shipped example's out/
// with a stand-in aipuocc and the launcher script given, and returns the
// arguments.
func aipuBuild(t *testing.T, launcher string) []string {
	t.Helper()
	root := t.TempDir()
	occ := filepath.Join(root, "aipuocc")
	body := "#!/bin/sh\nout=''; prev=''\nfor a in \"$@\"; do if [ \"$prev\" = -o ]; then out=$a; fi; prev=$a; done\necho object > \"$out\"\n"
	if err := os.WriteFile(occ, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "launcher")
	// It answers the version probe doctor and the build's resolution run.
	if err := os.WriteFile(path, []byte("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'ccache version 4.7.5'; exit 0; fi\n"+launcher), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AIPUOCC", occ)
	t.Setenv("OPFORGE_COMPILER_LAUNCHER", path)
	return []string{"build", "aipu", "--out", "../../testdata/gen/examples/out", "--build", filepath.Join(root, "build"), "--toolchains", "../../toolchains", "--jobs", "2"}
}

// TestBuildEndsOnHangingLauncher: `opforge build` with a launcher that
// never returns ends at --unit-timeout with exit 1, naming the unit, the
// stage and the signal.
func TestBuildEndsOnHangingLauncher(t *testing.T) {
	// One kernel's compiles hang (in every -mcpu variant); the rest pass.
	args := aipuBuild(t, "case \"$*\" in *-DOPFORGE_KERNEL=vision_ops_roi_align_lite_float16*) exec sleep 300;; esac\nexec \"$@\"\n")
	t0 := time.Now()
	code, out, errs := run(append(args, "--unit-timeout", "500ms")...)
	if took := time.Since(t0); took > 60*time.Second {
		t.Errorf("build took %s with a 500ms unit timeout", took)
	}
	if code != 1 || !strings.Contains(out, "ran past the unit timeout of 500ms (--unit-timeout); its process group was killed with SIGKILL") ||
		!strings.Contains(out, "the compile through compiler launcher ") || !strings.Contains(errs, "roi_align_lite_float16.o (timed out after 500ms, killed with SIGKILL)") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// TestBuildRefusesLauncherWritingNothing: a launcher that exits 0 without
// writing the object fails the build (exit 1), naming it.
func TestBuildRefusesLauncherWritingNothing(t *testing.T) {
	code, out, errs := run(aipuBuild(t, "exit 0\n")...)
	if code != 1 || !strings.Contains(out, "exited 0, but what it wrote for ") || !strings.Contains(out, "no file was written; it was removed and nothing was kept") ||
		!strings.Contains(errs, "bad output from compiler launcher ") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

func TestBuildUnitTimeoutMustBePositive(t *testing.T) {
	code, _, errs := run("build", "aipu", "--unit-timeout", "0s")
	if code != 2 || !strings.Contains(errs, "--unit-timeout must be positive") {
		t.Errorf("exit %d\n%s", code, errs)
	}
}
