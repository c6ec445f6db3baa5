package htp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakefileDryRun runs the generated Makefile with make -n against a
// fake SDK layout: every build target names the right compiler, flags and
// outputs, and each missing SDK piece stops make with a message naming it.
func TestMakefileDryRun(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	pkg := "../../../testdata/gen/examples/out/htp/VisionOps"
	sdk := t.TempDir()
	touch := func(p string) {
		full := filepath.Join(sdk, p)
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		_ = os.WriteFile(full, nil, 0o755)
	}
	touch("qnn/include/QNN/QnnOpPackage.h")
	touch("hexagon/hexagon-sdk-6.0.0/tools/HEXAGON_Tools/8.8.02/Tools/libnative/include/hexagon_protos.h")
	touch("hexagon/hexagon-sdk-5.4.0/tools/HEXAGON_Tools/8.6.02/Tools/bin/hexagon-clang++")
	touch("ndk/toolchains/llvm/prebuilt/linux-x86_64/bin/clang++")
	env := []string{
		"QNN_SDK_ROOT=" + filepath.Join(sdk, "qnn"),
		"HEXAGON_SDK_ROOT=" + filepath.Join(sdk, "hexagon", "hexagon-sdk-6.0.0"),
		"ANDROID_NDK_ROOT=" + filepath.Join(sdk, "ndk"),
		"PATH=" + os.Getenv("PATH"),
	}
	run := func(env []string, goals ...string) (string, error) {
		cmd := exec.Command("make", append([]string{"-n", "-C", pkg}, goals...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(env, "htp_x86", "htp_v73", "htp_aarch64")
	if err != nil {
		t.Fatalf("make -n failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"clang++ -std=c++17",
		"-DTHIS_PKG_NAME=VisionOps",
		"-o build/x86_64-linux-clang/ops/TopKLast.o",
		"libnative/lib -lnative",
		"-o build/x86_64-linux-clang/libQnnVisionOps.so",
		"hexagon-sdk-5.4.0/tools/HEXAGON_Tools/8.6.02/Tools/bin/hexagon-clang++",
		"-mv73", "-DPREPARE_DISABLED", "-o build/hexagon-v73/libQnnVisionOps.so",
		"--target=aarch64-none-linux-android21", "-lQnnHtp -lQnnHtpPrepare", "-o build/aarch64-android/libQnnVisionOps.so",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("make -n output lacks %q", want)
		}
	}
	// The aarch64 compiles include libnative's headers, as the vendor's do
	// (the QNN HTP headers include hexagon_protos.h on every platform).
	aarch64 := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "--target=aarch64") && strings.Contains(line, " -c ") {
			aarch64++
			if !strings.Contains(line, "8.8.02/Tools/libnative/include") {
				t.Errorf("aarch64 compile without the libnative include: %s", line)
			}
		}
	}
	if aarch64 == 0 {
		t.Error("make -n printed no aarch64 compile")
	}
	missing := []struct {
		drop, goal, want string
	}{
		{"QNN_SDK_ROOT", "htp_x86", "set QNN_SDK_ROOT"},
		{"HEXAGON_SDK_ROOT", "htp_x86", "Cannot find the Hexagon tools for the x86 build"},
		{"HEXAGON_SDK_ROOT", "htp_v75", "Cannot find hexagon-clang++ for v75"},
		{"ANDROID_NDK_ROOT", "htp_aarch64", "set ANDROID_NDK_ROOT"},
		{"HEXAGON_SDK_ROOT", "htp_aarch64", "libnative headers the aarch64 build includes"},
	}
	for _, m := range missing {
		var e []string
		for _, kv := range env {
			if !strings.HasPrefix(kv, m.drop+"=") {
				e = append(e, kv)
			}
		}
		out, err := run(e, m.goal)
		if err == nil || !strings.Contains(out, m.want) {
			t.Errorf("make %s without %s: err=%v, output lacks %q:\n%s", m.goal, m.drop, err, m.want, out)
		}
	}
	if out, err := run([]string{"PATH=" + os.Getenv("PATH")}, "clean"); err != nil {
		t.Errorf("make clean needs no SDK, but failed: %v\n%s", err, out)
	}
}

// TestMakefileLauncher: OPFORGE_COMPILER_LAUNCHER, from the environment or
// the make command line, goes in front of every compile and of no link.
func TestMakefileLauncher(t *testing.T) {
	requireMake(t)
	pkgs := []string{goldenPackage(t)}
	sdk := t.TempDir()
	touchAll(t, sdk, "qnn/include/QNN/QnnOpPackage.h", "hexagon/hexagon-sdk-6.0.0/tools/HEXAGON_Tools/8.8.02/Tools/libnative/include/x.h")
	base := []string{"QNN_SDK_ROOT=" + filepath.Join(sdk, "qnn"), "HEXAGON_SDK_ROOT=" + filepath.Join(sdk, "hexagon", "hexagon-sdk-6.0.0"),
		"X86_CXX=/usr/bin/clang++", "PATH=" + os.Getenv("PATH")}
	for _, c := range []struct {
		name     string
		env      []string
		args     []string
		launcher string
	}{
		{name: "none", launcher: ""},
		{name: "environment", env: []string{"OPFORGE_COMPILER_LAUNCHER=/opt/cache/ccache"}, launcher: "/opt/cache/ccache "},
		{name: "command line", args: []string{"OPFORGE_COMPILER_LAUNCHER=sccache"}, launcher: "sccache "},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("make", append([]string{"-n", "-B", "-C", pkgs[0], "htp_x86"}, c.args...)...)
			cmd.Env = append(append([]string{}, base...), c.env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make -n: %v\n%s", err, out)
			}
			compiles, links := 0, 0
			for _, line := range strings.Split(string(out), "\n") {
				line = strings.TrimSpace(line)
				switch {
				case strings.Contains(line, " -MMD -c "):
					compiles++
					if !strings.HasPrefix(line, c.launcher+"/usr/bin/clang++ ") {
						t.Errorf("compile does not start with %q: %s", c.launcher, line)
					}
				case strings.Contains(line, " -shared"):
					links++
					if !strings.HasPrefix(line, "/usr/bin/clang++ ") {
						t.Errorf("link goes through a launcher: %s", line)
					}
				}
			}
			if compiles < 2 || links != 1 {
				t.Errorf("%d compiles and %d links in:\n%s", compiles, links, out)
			}
		})
	}
}

// TestMakefileOneHexagonSDK: with only the SDK HEXAGON_SDK_ROOT names
// installed, every arch and the x86 build use it and its newest tools
// (by version: 19.1.02 after 8.9.01), with no per-arch variable.
func TestMakefileOneHexagonSDK(t *testing.T) {
	requireMake(t)
	pkgs := []string{goldenPackage(t)}
	sdk := t.TempDir()
	one := filepath.Join(sdk, "hexagon-sdk-6.9.0")
	touchAll(t, sdk, "qnn/include/QNN/QnnOpPackage.h",
		"hexagon-sdk-6.9.0/tools/HEXAGON_Tools/8.9.01/Tools/bin/hexagon-clang++",
		"hexagon-sdk-6.9.0/tools/HEXAGON_Tools/19.1.02/Tools/bin/hexagon-clang++",
		"hexagon-sdk-6.9.0/tools/HEXAGON_Tools/19.1.02/Tools/libnative/include/x.h")
	cmd := exec.Command("make", "-n", "-B", "-C", pkgs[0], "htp_x86", "htp_v73", "htp_v81")
	cmd.Env = []string{"QNN_SDK_ROOT=" + filepath.Join(sdk, "qnn"), "HEXAGON_SDK_ROOT=" + one + "/", "X86_CXX=/usr/bin/clang++", "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n with one Hexagon SDK: %v\n%s", err, out)
	}
	tools := one + "/tools/HEXAGON_Tools/19.1.02/Tools"
	for _, want := range []string{tools + "/bin/hexagon-clang++", "-mv73", "-mv81", tools + "/libnative/lib -lnative"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make -n output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "8.9.01") {
		t.Errorf("the older tools were chosen:\n%s", out)
	}
}

// TestMakefileAssembly: src/ops/<arch>_asm/*.S are compiled for their
// build only and linked into its library, as in the vendor's Makefile.
func TestMakefileAssembly(t *testing.T) {
	requireMake(t)
	pkg := filepath.Join(t.TempDir(), "MixedParams")
	if err := os.CopyFS(pkg, os.DirFS("../../../testdata/gen/htp-params/out/htp/MixedParams")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(pkg, "src/ops/v73_asm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "src/ops/v73_asm/fast.S"), []byte("// assembly\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sdk := t.TempDir()
	one := filepath.Join(sdk, "hexagon-sdk-6.9.0")
	touchAll(t, sdk, "qnn/include/QNN/QnnOpPackage.h", "hexagon-sdk-6.9.0/tools/HEXAGON_Tools/19.1.02/Tools/bin/hexagon-clang++",
		"hexagon-sdk-6.9.0/tools/HEXAGON_Tools/19.1.02/Tools/libnative/include/x.h")
	run := func(goal string) string {
		cmd := exec.Command("make", "-n", "-B", "-C", pkg, goal)
		cmd.Env = []string{"QNN_SDK_ROOT=" + filepath.Join(sdk, "qnn"), "HEXAGON_SDK_ROOT=" + one, "X86_CXX=/usr/bin/clang++", "PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", goal, err, out)
		}
		return string(out)
	}
	v73 := run("htp_v73")
	for _, want := range []string{"-c src/ops/v73_asm/fast.S -o build/hexagon-v73/ops/v73_asm/fast.o", "build/hexagon-v73/ops/v73_asm/fast.o"} {
		if !strings.Contains(v73, want) {
			t.Errorf("make -n htp_v73 lacks %q:\n%s", want, v73)
		}
	}
	if x86 := run("htp_x86"); strings.Contains(x86, "fast.S") {
		t.Errorf("the v73 assembly is in the x86 build:\n%s", x86)
	}
}

// requireMake skips a test where make is not installed.
func requireMake(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
}

// goldenPackage is a generated HTP package of the golden trees.
func goldenPackage(t *testing.T) string {
	t.Helper()
	pkgs, _ := filepath.Glob("../../../testdata/gen/htp-params/out/htp/*")
	if len(pkgs) == 0 {
		t.Fatal("no golden HTP package")
	}
	return pkgs[0]
}

// touchAll creates the given files (empty, executable) below root: the
// layout of an SDK, enough for make -n.
func touchAll(t *testing.T, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(root, p)
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
