package htp

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/toolchain"
)

// fakeCompiler stands in for hexagon-clang++, clang++ and the NDK clang++
// (testdata/build/fake-compiler.sh): it logs its argv, "compiles" by
// copying the source, writes a depfile, and fails like a compiler on a
// source containing #error.
var fakeCompiler = func() string {
	data, err := os.ReadFile("../../../testdata/build/fake-compiler.sh")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

type fakeSDK struct {
	env  map[string]string
	log  string
	opts buildplan.Options
}

func newFakeSDK(t *testing.T) *fakeSDK {
	t.Helper()
	root := t.TempDir()
	f := &fakeSDK{env: map[string]string{}, log: filepath.Join(root, "compilers.log")}
	exe := func(p string) {
		full := filepath.Join(root, p)
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(fakeCompiler), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := func(p string) { _ = os.MkdirAll(filepath.Join(root, p), 0o755) }
	dir("qnn/include/QNN")
	_ = os.WriteFile(filepath.Join(root, "qnn/include/QNN/QnnOpPackage.h"), nil, 0o644)
	dir("qnn/lib/aarch64-android")
	dir("hexagon/hexagon-sdk-6.0.0/incs")
	dir("hexagon/hexagon-sdk-6.0.0/tools/HEXAGON_Tools/8.8.02/Tools/libnative/include")
	exe("hexagon/hexagon-sdk-5.4.0/tools/HEXAGON_Tools/8.6.02/Tools/bin/hexagon-clang++")
	exe("host/clang++")
	exe("ndk/toolchains/llvm/prebuilt/linux-x86_64/bin/clang++")
	f.env["QNN_SDK_ROOT"] = filepath.Join(root, "qnn")
	f.env["HEXAGON_SDK_ROOT"] = filepath.Join(root, "hexagon/hexagon-sdk-6.0.0")
	f.env["ANDROID_NDK_ROOT"] = filepath.Join(root, "ndk")
	f.env["X86_CXX"] = filepath.Join(root, "host/clang++")
	t.Setenv("FAKE_LOG", f.log)
	out := filepath.Join(root, "out")
	copyDir(t, "../../../testdata/gen/examples/out/htp", filepath.Join(out, "htp"))
	f.opts = buildplan.Options{Out: out, Build: filepath.Join(root, "build"), Toolchains: "../../../toolchains", Env: toolchain.Env{
		Getenv:   func(k string) string { return f.env[k] },
		LookPath: func(string) (string, error) { return "", os.ErrNotExist },
		Root:     root,
	}}
	return f
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, _ := os.ReadFile(p)
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}

func (f *fakeSDK) calls(t *testing.T) []string {
	data, _ := os.ReadFile(f.log)
	_ = os.Remove(f.log)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func (f *fakeSDK) build(t *testing.T, variants ...string) (string, error) {
	t.Helper()
	p, err := planHTP(f.opts, variants)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	_, err = p.Run(context.Background(), &log, 2)
	return log.String(), err
}

func TestHTPBuildIsIncremental(t *testing.T) {
	f := newFakeSDK(t)
	log, err := f.build(t, "x86", "v73", "aarch64")
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	cold := f.calls(t)
	// 3 packages: VisionOps (interface + 3 ops), TensorOps (interface + 4
	// ops) and ExampleOpPackage (interface + 1 op), 3 variants, plus one
	// link per package and variant.
	// The host compiler's version is asked once and then cached.
	if len(cold) > 0 && strings.HasSuffix(cold[0], "--version") {
		cold = cold[1:]
	}
	if want := (4+5+2)*3 + 3*3; len(cold) != want {
		t.Errorf("cold build ran %d tools, want %d", len(cold), want)
	}
	joined := strings.Join(cold, "\n")
	for _, want := range []string{"-mv73", "-DTHIS_PKG_NAME=VisionOps", "--target=aarch64-none-linux-android21", "-lnative", "-DPREPARE_DISABLED"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no invocation has %s", want)
		}
	}
	// The aarch64 compiles include libnative's headers, as the vendor's do.
	for _, c := range cold {
		if strings.Contains(c, "--target=aarch64") && strings.Contains(c, " -c ") && !strings.Contains(c, "8.8.02/Tools/libnative/include") {
			t.Errorf("aarch64 compile without the libnative include: %s", c)
		}
	}
	for _, lib := range []string{"htp/VisionOps/x86_64-linux-clang/libQnnVisionOps.so", "htp/VisionOps/hexagon-v73/libQnnVisionOps.so", "htp/ExampleOpPackage/aarch64-android/libQnnExampleOpPackage.so"} {
		if _, err := os.Stat(filepath.Join(f.opts.Build, lib)); err != nil {
			t.Errorf("missing %s", lib)
		}
	}
	if _, err := os.Stat(filepath.Join(f.opts.Build, "htp", "compile_commands.json")); err != nil {
		t.Error("no compile_commands.json")
	}
	// No-op: zero compiler processes.
	if log, err := f.build(t, "x86", "v73", "aarch64"); err != nil || len(f.calls(t)) != 0 {
		t.Errorf("no-op build ran compilers: %v\n%s", err, log)
	}
	// One op changes: its three compiles and its package's three links.
	op := filepath.Join(f.opts.Out, "htp/VisionOps/src/ops/TopKLast.cpp")
	data, _ := os.ReadFile(op)
	_ = os.WriteFile(op, append(data, []byte("// tuned\n")...), 0o644)
	if _, err := f.build(t, "x86", "v73", "aarch64"); err != nil {
		t.Fatal(err)
	}
	calls := f.calls(t)
	compiles, links := 0, 0
	for _, c := range calls {
		switch {
		case strings.Contains(c, "TopKLast.cpp"):
			compiles++
		case strings.Contains(c, "libQnnVisionOps.so"):
			links++
		default:
			t.Errorf("unrelated unit rebuilt: %s", c)
		}
	}
	if compiles != 3 || links != 3 {
		t.Errorf("one-op change: %d compiles, %d links; want 3 and 3", compiles, links)
	}
	// A broken source fails with the compiler's message; the last good
	// library stays.
	lib := filepath.Join(f.opts.Build, "htp/VisionOps/hexagon-v73/libQnnVisionOps.so")
	before, _ := os.ReadFile(lib)
	_ = os.WriteFile(op, append(data, []byte("#error nope\n")...), 0o644)
	log, err = f.build(t, "v73")
	if err == nil || !strings.Contains(log, "broken on purpose") {
		t.Errorf("broken source: %v\n%s", err, log)
	}
	after, _ := os.ReadFile(lib)
	if !bytes.Equal(before, after) {
		t.Error("the last good library was replaced")
	}
}

func TestHTPPreflightNamesWhatIsMissing(t *testing.T) {
	f := newFakeSDK(t)
	delete(f.env, "ANDROID_NDK_ROOT")
	f.env["HEXAGON_TOOLS_VERSION_V73"] = "9.9.99"
	p, err := planHTP(f.opts, []string{"aarch64", "v73", "x86"})
	if err != nil {
		t.Fatal(err)
	}
	err = p.Preflight()
	if err == nil {
		t.Fatal("preflight passed")
	}
	msg := err.Error()
	for _, want := range []string{"set ANDROID_NDK_ROOT", "hexagon-clang++ for v73", "HEXAGON_Tools/9.9.99", "HEXAGON_TOOLS_VERSION_V73"} {
		if !strings.Contains(msg, want) {
			t.Errorf("preflight does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "host_cxx") || strings.Contains(msg, "libnative") {
		t.Errorf("x86 is available but reported missing:\n%s", msg)
	}
	for _, c := range f.calls(t) {
		if !strings.HasSuffix(c, "--version") {
			t.Errorf("a compile ran despite the failed preflight: %s", c)
		}
	}
	if _, err := planHTP(f.opts, []string{"v99"}); err == nil || !strings.Contains(err.Error(), "unknown HTP variant") {
		t.Errorf("unknown variant: %v", err)
	}
}

// TestHTPOneHexagonSDK: one installed Hexagon SDK, whatever its tools
// version, serves every arch whose pinned SDK is not installed beside it,
// and the x86 build, with no per-arch variable; a pinned SDK that is
// installed still wins.
func TestHTPOneHexagonSDK(t *testing.T) {
	f := newFakeSDK(t)
	root := f.opts.Env.Root
	one := filepath.Join(root, "hexagon", "hexagon-sdk-6.9.0")
	_ = os.MkdirAll(filepath.Join(one, "incs"), 0o755)
	// The pinned SDK of x86 and v79 is not installed; v73's is.
	_ = os.RemoveAll(filepath.Join(root, "hexagon", "hexagon-sdk-6.0.0"))
	for _, v := range []string{"8.9.01", "19.1.02"} { // the newest by version, not by text
		dir := filepath.Join(one, "tools", "HEXAGON_Tools", v, "Tools")
		_ = os.MkdirAll(filepath.Join(dir, "libnative", "include"), 0o755)
		_ = os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, "bin", "hexagon-clang++"), []byte(fakeCompiler), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.env["HEXAGON_SDK_ROOT"] = one
	p, err := planHTP(f.opts, []string{"x86", "v73", "v79", "v81"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Preflight(); err != nil {
		t.Fatalf("one Hexagon SDK does not serve every arch: %v", err)
	}
	want := map[string]string{
		"v73": filepath.Join(root, "hexagon/hexagon-sdk-5.4.0/tools/HEXAGON_Tools/8.6.02/Tools/bin/hexagon-clang++"), // pinned, installed
		"v79": filepath.Join(one, "tools/HEXAGON_Tools/19.1.02/Tools/bin/hexagon-clang++"),
		"v81": filepath.Join(one, "tools/HEXAGON_Tools/19.1.02/Tools/bin/hexagon-clang++"),
	}
	seen := map[string]bool{}
	for _, u := range p.Units {
		for arch, cxx := range want {
			if strings.Contains(u.ID, "/"+arch+"/") {
				seen[arch] = true
				if u.Tool != cxx {
					t.Errorf("%s compiles with %s, want %s", u.ID, u.Tool, cxx)
				}
			}
		}
		if strings.Contains(u.ID, "/x86/") && u.Source != "" && !slicesContains(u.Args, "-I"+filepath.Join(one, "tools/HEXAGON_Tools/19.1.02/Tools/libnative/include")) {
			t.Errorf("x86 does not take libnative from the one SDK: %v", u.Args)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("units for %v, want %v", seen, want)
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestBuildOnePackage: --package limits a build to the packages named;
// a name out/ does not hold is an error that lists those it does.
func TestBuildOnePackage(t *testing.T) {
	f := newFakeSDK(t)
	f.opts.Packages = []string{"VisionOps"}
	p, err := planHTP(f.opts, []string{"x86"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Units) == 0 {
		t.Fatal("no units")
	}
	for _, u := range p.Units {
		if !strings.HasPrefix(u.ID, "htp/VisionOps/") {
			t.Errorf("unit %s is not of VisionOps", u.ID)
		}
	}
	f.opts.Packages = []string{"VisionOps", "NoSuchOps"}
	if _, err := planHTP(f.opts, []string{"x86"}); err == nil || !strings.Contains(err.Error(), `no htp package "NoSuchOps"`) || !strings.Contains(err.Error(), "VisionOps") {
		t.Errorf("unknown package: %v", err)
	}
}

// TestHTPAssembly: src/ops/<arch>_asm/*.S build with their variant only,
// into its library, as the vendor's Makefile builds them.
func TestHTPAssembly(t *testing.T) {
	f := newFakeSDK(t)
	asm := filepath.Join(f.opts.Out, "htp", "VisionOps", "src", "ops", "v73_asm", "fast.S")
	_ = os.MkdirAll(filepath.Dir(asm), 0o755)
	if err := os.WriteFile(asm, []byte("// assembly\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := planHTP(f.opts, []string{"x86", "v73"})
	if err != nil {
		t.Fatal(err)
	}
	var v73, x86 bool
	for _, u := range p.Units {
		if u.Source == asm {
			switch {
			case strings.Contains(u.ID, "/v73/"):
				v73 = true
			default:
				x86 = true
			}
		}
		if strings.HasSuffix(u.ID, "hexagon-v73/libQnnVisionOps.so") || strings.HasSuffix(u.ID, "/v73/libQnnVisionOps.so") {
			if !slicesContains(u.Inputs, filepath.Join(f.opts.Build, "htp", "VisionOps", "hexagon-v73", "ops", "v73_asm", "fast.o")) {
				t.Errorf("the v73 library does not link the assembly object: %v", u.Inputs)
			}
		}
	}
	if !v73 || x86 {
		t.Errorf("assembly compiled for v73: %v, for x86: %v", v73, x86)
	}
}

// TestHTPPreflightQNNMinimum: the descriptor's minimum QNN SDK is the
// oldest whose headers the generated interface compiles against; an older
// SDK (2.13: no INIT_PKG_CORE_INIT_FUNC) is refused before anything runs.
func TestHTPPreflightQNNMinimum(t *testing.T) {
	for _, c := range []struct {
		version string
		ok      bool
	}{{"2.13.0", false}, {"2.24.9", false}, {"2.25.0", true}, {"2.36.1", true}} {
		f := newFakeSDK(t)
		id := `#define QNN_SDK_BUILD_ID "v` + c.version + `.230725130242_60412"` + "\n"
		if err := os.WriteFile(filepath.Join(f.env["QNN_SDK_ROOT"], "include/QNN/QnnSdkBuildId.h"), []byte(id), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := planHTP(f.opts, []string{"x86"})
		if err != nil {
			t.Fatal(err)
		}
		err = p.Preflight()
		if c.ok && err != nil {
			t.Errorf("QNN %s refused: %v", c.version, err)
		}
		if !c.ok && (err == nil || !strings.Contains(err.Error(), "is version "+c.version+"; 2.25.0 or newer is needed: the generated interface does not compile against older HTP headers (2.13.0's lack INIT_PKG_CORE_INIT_FUNC") || !strings.Contains(err.Error(), "(set QNN_SDK_ROOT")) {
			t.Errorf("QNN %s: preflight does not name the minimum: %v", c.version, err)
		}
	}
}

// TestBuildWarnsAboutUnusableLauncher: a launcher set to something that is
// not there is said once, and the build runs its compiles directly.
func TestBuildWarnsAboutUnusableLauncher(t *testing.T) {
	f := newFakeSDK(t)
	f.env["OPFORGE_COMPILER_LAUNCHER"] = "/nonexistent/ccache"
	log, err := f.build(t, "x86")
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if n := strings.Count(log, "warning: launcher: $OPFORGE_COMPILER_LAUNCHER=/nonexistent/ccache is not an executable; compiles run without it"); n != 1 {
		t.Errorf("warned %d times:\n%s", n, log)
	}
	for _, c := range f.calls(t) {
		if strings.Contains(c, "ccache") {
			t.Errorf("ran through the missing launcher: %s", c)
		}
	}
}

// TestHTPCompilesRunThroughLauncher: every compile of every variant runs
// through the launcher, no link does.
func TestHTPCompilesRunThroughLauncher(t *testing.T) {
	f := newFakeSDK(t)
	launcher := filepath.Join(t.TempDir(), "launcher")
	if err := os.WriteFile(launcher, []byte("#!/bin/sh\necho \"launcher $*\" >> \"$FAKE_LOG\"\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.env["OPFORGE_COMPILER_LAUNCHER"] = launcher
	p, err := planHTP(f.opts, []string{"x86", "aarch64", "v73"})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range p.Units {
		if (u.Source != "") != (u.Launcher == launcher) {
			t.Errorf("%s: launcher %q", u.ID, u.Launcher)
		}
	}
	log, err := f.build(t, "x86", "aarch64", "v73")
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	launched := 0
	for _, c := range f.calls(t) {
		if strings.HasPrefix(c, "launcher ") {
			launched++
		}
	}
	if launched == 0 || !strings.Contains(log, "through the compiler launcher") {
		t.Errorf("no compile went through the launcher:\n%s", log)
	}
	// A no-op build starts no process: not the compilers, and not the
	// launcher for its version either (cached like every tool's).
	if log, err := f.build(t, "x86", "aarch64", "v73"); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if calls := f.calls(t); len(calls) != 0 {
		t.Errorf("the no-op build started %v", calls)
	}
}

// planHTP plans the HTP build of the variants (nil: all).
func planHTP(o buildplan.Options, variants []string) (*buildplan.Plan, error) {
	o.Variants = variants
	return BuildPlan(o)
}
