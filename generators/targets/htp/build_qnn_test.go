package htp

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/opforge/opforge/generators/buildengine"
	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/toolchain"
)

// The golden trees whose HTP packages must compile: every testdata/gen case
// (the shipped examples' copy and the QNN fixtures included), never the
// workspace's out/ (issue 15 item 4).
func htpGoldenTrees(t *testing.T) []string {
	t.Helper()
	var trees []string
	cases, _ := filepath.Glob("../../../testdata/gen/*/out")
	for _, c := range cases {
		if pkgs, _ := filepath.Glob(filepath.Join(c, "htp", "*", "src")); len(pkgs) > 0 {
			trees = append(trees, c)
		}
	}
	return trees
}

// qnnHeaders is $QNN_SDK_ROOT/include/QNN with the HTP core headers, or a
// skip naming what is missing.
func qnnHeaders(t *testing.T) string {
	t.Helper()
	root := os.Getenv("QNN_SDK_ROOT")
	if root == "" {
		t.Skip("QNN_SDK_ROOT is not set: point it at a tree with include/QNN (the QNN HTP headers, e.g. a checkout of qualcomm/geniex-qairt-plugin's qnn-api)")
	}
	inc := filepath.Join(root, "include", "QNN")
	for _, probe := range []string{"QnnOpPackage.h", "HTP/core/op_register_ext.h"} {
		if _, err := os.Stat(filepath.Join(inc, probe)); err != nil {
			t.Skipf("QNN_SDK_ROOT=%s has no include/QNN/%s", root, probe)
		}
	}
	abs, err := filepath.Abs(inc)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// hostClang is clang++ able to compile C++17 against libc++ (the Makefile's
// -stdlib=libc++), with its C++ include search directories, or a skip.
func hostClang(t *testing.T) (string, []string) {
	t.Helper()
	cxx, err := exec.LookPath("clang++")
	if err != nil {
		t.Skip("clang++ is not installed (the HTP Makefile's x86 compiler)")
	}
	cmd := exec.Command(cxx, "-std=c++17", "-stdlib=libc++", "-x", "c++", "-E", "-v", "-")
	cmd.Stdin = strings.NewReader("#include <vector>\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("clang++ -stdlib=libc++ cannot compile <vector> (install libc++-dev and libc++abi-dev): %v\n%s", err, lastLines(string(out), 5))
	}
	// The search list, less clang's resource directory: the Hexagon target
	// brings its own (with hexagon_protos.h and hexagon_types.h).
	var dirs []string
	in := false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "#include <...> search starts here:"):
			in = true
		case strings.HasPrefix(line, "End of search list."):
			in = false
		case in:
			d := strings.TrimSpace(line)
			if !strings.Contains(d, "/lib/clang/") {
				dirs = append(dirs, d)
			}
		}
	}
	return cxx, dirs
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// standinSDKs lays out the SDK pieces the HTP plan asks for, around the
// real QNN headers: a Hexagon SDK whose libnative is opforge's stand-in
// (testdata/htp/libnative: the headers, an empty libnative.a), a
// hexagon-clang++ and an NDK clang++ that are never run (their units are
// compiled by the host clang instead), and the QNN aarch64 library
// directory. The x86 compiler is the host clang++ itself.
func standinSDKs(t *testing.T, qnnInclude, cxx string) map[string]string {
	t.Helper()
	root := t.TempDir()
	mk := func(p string, data string, mode os.FileMode) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "qnn", "include"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(qnnInclude, filepath.Join(root, "qnn", "include", "QNN")); err != nil {
		t.Fatal(err)
	}
	mk("qnn/lib/aarch64-android/.keep", "", 0o644)
	native := "hexagon/hexagon-sdk-6.0.0/tools/HEXAGON_Tools/8.8.02/Tools/libnative"
	standin, err := filepath.Abs("../../../testdata/htp/libnative/include")
	if err != nil {
		t.Fatal(err)
	}
	mk(native+"/lib/libnative.a", "!<arch>\n", 0o644)
	if err := os.Symlink(standin, filepath.Join(root, native, "include")); err != nil {
		t.Fatal(err)
	}
	mk("hexagon/hexagon-sdk-6.0.0/incs/.keep", "", 0o644)
	mk("hexagon/hexagon-sdk-6.0.0/tools/HEXAGON_Tools/8.8.02/Tools/bin/hexagon-clang++", "#!/bin/sh\nexit 99\n", 0o755)
	mk("ndk/toolchains/llvm/prebuilt/linux-x86_64/bin/clang++", "#!/bin/sh\nexit 99\n", 0o755)
	return map[string]string{
		"QNN_SDK_ROOT":     filepath.Join(root, "qnn"),
		"HEXAGON_SDK_ROOT": filepath.Join(root, "hexagon", "hexagon-sdk-6.0.0"),
		"ANDROID_NDK_ROOT": filepath.Join(root, "ndk"),
		"X86_CXX":          cxx,
	}
}

// hexagonArchFlag gives the -mvNN the host clang accepts for arch: the arch
// itself, else the newest older one it knows (clang 14 stops at v69). The
// syntax check then holds the headers' arch-independent code; what a newer
// arch adds is checked only by a clang that knows it.
func hexagonArchFlag(t *testing.T, cxx, arch string, cache map[string]string) string {
	if f, ok := cache[arch]; ok {
		return f
	}
	var n int
	fmt.Sscanf(arch, "v%d", &n)
	for ; n >= 60; n-- {
		flag := fmt.Sprintf("-mv%d", n)
		cmd := exec.Command(cxx, "--target=hexagon", flag, "-x", "c++", "-fsyntax-only", "-")
		cmd.Stdin = strings.NewReader("int x;\n")
		if cmd.Run() == nil {
			if flag != "-m"+arch {
				t.Logf("host clang does not know -m%s; Hexagon syntax for %s is checked with %s", arch, arch, flag)
			}
			cache[arch] = flag
			return flag
		}
	}
	cache[arch] = ""
	return ""
}

// TestHTPSourcesCompileAgainstQNN compiles every HTP source of the golden
// trees against the real QNN HTP headers, with the flags opforge build
// plans (the Makefile tests hold the generated Makefile to the same flags):
// x86 exactly as planned (compile and link) with the libnative stand-in;
// aarch64 with the host clang as a stand-in for the NDK's (its target and
// sysroot dropped, -fsyntax-only); each Hexagon arch as syntax only with
// the host clang's Hexagon target, whose own hexagon_protos.h and
// hexagon_types.h serve (the Hexagon SDK's include directories dropped,
// the host's libc++ and C headers instead of the SDK's).
func TestHTPSourcesCompileAgainstQNN(t *testing.T) {
	inc := qnnHeaders(t)
	cxx, sysDirs := hostClang(t)
	env := standinSDKs(t, inc, cxx)
	stubs := t.TempDir()
	// glibc's headers ask for gnu/stubs-32.h on a 32-bit target.
	if err := os.MkdirAll(filepath.Join(stubs, "gnu"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stubs, "gnu", "stubs-32.h"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	hexInc := []string{"-isystem", stubs}
	for _, d := range sysDirs {
		hexInc = append(hexInc, "-isystem", d)
	}
	hexFlags := map[string]string{}
	hmx := exec.Command(cxx, "--target=hexagon", "-mv68", "-mhvx", "-mhmx", "-x", "c++", "-fsyntax-only", "-")
	hmx.Stdin = strings.NewReader("int x;\n")
	hmxOK := hmx.Run() == nil
	if !hmxOK {
		t.Log("host clang does not know -mhmx; the Hexagon syntax checks leave it out")
	}

	type job struct {
		id, variant string
		argv        []string
	}
	var jobs []job
	seen := map[[32]byte]bool{}
	work := t.TempDir()
	variants := map[string]int{}
	for ti, tree := range htpGoldenTrees(t) {
		o := buildplan.Options{Out: tree, Build: filepath.Join(work, fmt.Sprint(ti)), Toolchains: "../../../toolchains", Env: toolchain.Env{
			Getenv:   func(k string) string { return env[k] },
			LookPath: exec.LookPath,
			Root:     ".",
		}}
		p, err := planHTP(o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Missing) > 0 {
			for _, m := range p.Missing {
				t.Errorf("%s: the stand-in SDKs leave %s missing: %s", tree, m.Name, m.Problem)
			}
			continue
		}
		// A package a former tree held byte for byte is compiled once.
		skip := map[string]bool{}
		pkgs, _ := filepath.Glob(filepath.Join(tree, "htp", "*", "src"))
		for _, src := range pkgs {
			h := sha256.New()
			_ = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					data, _ := os.ReadFile(p)
					rel, _ := filepath.Rel(src, p)
					fmt.Fprintf(h, "%s\x00%d\x00", rel, len(data))
					h.Write(data)
				}
				return nil
			})
			name := filepath.Base(filepath.Dir(src))
			var key [32]byte
			copy(key[:], h.Sum([]byte(name)))
			if seen[key] {
				skip[name] = true
			}
			seen[key] = true
		}
		for _, u := range p.Units {
			parts := strings.Split(u.ID, "/") // htp/<pkg>/<variant>/...
			variant := parts[2]
			if skip[parts[1]] {
				continue
			}
			var argv []string
			switch {
			case variant == "x86":
				// As planned: compile, and link the library.
				argv = append([]string{u.Tool}, u.Args...)
				for i, a := range argv {
					argv[i] = strings.ReplaceAll(strings.ReplaceAll(a, buildengine.OutArg, u.Output), buildengine.DepArg, u.Output+".d")
				}
				if err := os.MkdirAll(filepath.Dir(u.Output), 0o755); err != nil {
					t.Fatal(err)
				}
			case u.Source == "":
				continue // links of the other variants need their SDKs
			case variant == "aarch64":
				argv = []string{cxx}
				for _, a := range syntaxOnly(u.Args) {
					if strings.HasPrefix(a, "--target=") || strings.HasPrefix(a, "--sysroot=") || a == "-static-libstdc++" {
						continue
					}
					argv = append(argv, a)
				}
				argv = append(argv, "-fsyntax-only")
			default: // a Hexagon arch
				arch := hexagonArchFlag(t, cxx, variant, hexFlags)
				if arch == "" {
					t.Fatalf("host clang knows no Hexagon arch up to %s", variant)
				}
				argv = []string{cxx, "--target=hexagon-unknown-linux-musl"}
				for _, a := range syntaxOnly(u.Args) {
					switch {
					case a == "-m"+variant:
						a = arch
					case a == "-mhmx" && !hmxOK:
						continue
					case strings.HasPrefix(a, "-I") && strings.HasPrefix(a[2:], env["HEXAGON_SDK_ROOT"]):
						continue // the SDK's qurt, posix and incs directories
					}
					argv = append(argv, a)
				}
				argv = append(append(argv, hexInc...), "-fsyntax-only")
			}
			// Hexagon archs that map to the same host flags compile once.
			key := sha256.Sum256([]byte(strings.Join(argv, "\x00")))
			if seen[key] {
				continue
			}
			seen[key] = true
			variants[variant]++
			jobs = append(jobs, job{id: tree + ": " + u.ID, variant: variant, argv: argv})
		}
	}
	if variants["x86"] == 0 || variants["aarch64"] == 0 || len(variants) < 3 {
		t.Fatalf("the plan gave too few units to compile: %v", variants)
	}
	// x86 links come after their objects: run compiles first, links last.
	sort.SliceStable(jobs, func(i, j int) bool {
		return !strings.HasSuffix(jobs[i].id, ".so") && strings.HasSuffix(jobs[j].id, ".so")
	})
	var mu sync.Mutex
	failures := 0
	run := func(js []job) {
		var wg sync.WaitGroup
		ch := make(chan job)
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range ch {
					cmd := exec.Command(j.argv[0], j.argv[1:]...)
					out, err := cmd.CombinedOutput()
					mu.Lock()
					if err != nil {
						failures++
						t.Errorf("%s (%s) does not compile: %v\n%s\n%s", j.id, j.variant, err, strings.Join(j.argv, " "), lastLines(string(out), 30))
					} else if len(bytes.TrimSpace(out)) > 0 {
						t.Logf("%s: %s", j.id, out)
					}
					mu.Unlock()
				}
			}()
		}
		for _, j := range js {
			ch <- j
		}
		close(ch)
		wg.Wait()
	}
	split := slices.IndexFunc(jobs, func(j job) bool { return strings.HasSuffix(j.id, ".so") })
	if split < 0 {
		t.Fatal("the plan has no x86 link")
	}
	run(jobs[:split])
	if failures == 0 {
		run(jobs[split:])
	}
	t.Logf("compiled against %s: %v (x86: compiles and links; aarch64 and Hexagon: syntax)", inc, variants)
}

// syntaxOnly drops a compile's output and depfile arguments.
func syntaxOnly(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-MMD" || a == "-c":
		case a == "-MF" || a == "-o":
			i++
		default:
			out = append(out, a)
		}
	}
	return out
}

var q6Name = regexp.MustCompile(`\bQ6_[A-Za-z0-9_]+`)

// TestLibnativeStandinDeclaresOnlyWhatQNNNames holds the stand-in
// hexagon_protos.h to the QNN headers: every intrinsic it declares is named
// by them, so it stays the minimum the headers need (that it is enough is
// what TestHTPSourcesCompileAgainstQNN shows).
func TestLibnativeStandinDeclaresOnlyWhatQNNNames(t *testing.T) {
	inc := qnnHeaders(t)
	named := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(inc, "HTP", "core", "*.h"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range q6Name.FindAll(data, -1) {
			named[string(m)] = true
		}
	}
	data, err := os.ReadFile("../../../testdata/htp/libnative/include/hexagon_protos.h")
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "//") {
			continue
		}
		for _, m := range q6Name.FindAllString(line, -1) {
			declared++
			if !named[m] {
				t.Errorf("the stand-in declares %s, which no header in %s names", m, filepath.Join(inc, "HTP", "core"))
			}
		}
	}
	if declared == 0 {
		t.Fatal("the stand-in declares no intrinsic")
	}
}
