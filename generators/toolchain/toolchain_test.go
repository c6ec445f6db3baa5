package toolchain

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/toolchains"
)

func TestShippedDescriptorsLoad(t *testing.T) {
	for _, target := range []string{"htp", "trt", "aipu"} {
		d, err := Load("../../toolchains", target)
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		if len(d.SDKs)+len(d.Tools) == 0 {
			t.Errorf("%s names no SDK or tool", target)
		}
	}
}

func TestSchemaRejectsMistakes(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "trt.yaml"), []byte("version: 1\ntarget: trt\ntools:\n  - {name: nvcc, env: nvcc, nmes: [nvcc]}\n"), 0o644)
	_, err := Load(dir, "trt")
	if err == nil || !strings.Contains(err.Error(), "toolchain.schema.json") {
		t.Fatalf("a misspelt field and a lower-case variable passed: %v", err)
	}
	// The explanation names each mistake at its place.
	for _, want := range []string{`at "/tools/0": unknown field(s) "nmes"`, `at "/tools/0/env": "nvcc" does not match`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %s: %v", want, err)
		}
	}
}

func fakeEnv(t *testing.T, vars map[string]string) (Env, string) {
	root := t.TempDir()
	return Env{Getenv: func(k string) string { return vars[k] }, LookPath: func(n string) (string, error) {
		p := filepath.Join(root, "bin", n)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		return "", os.ErrNotExist
	}, Root: root, Home: root}, root
}

func write(t *testing.T, path, data string, mode os.FileMode) {
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

func TestResolveSDK(t *testing.T) {
	env, root := fakeEnv(t, nil)
	for _, v := range []string{"2.9.0", "2.36.1", "2.10.0"} {
		write(t, filepath.Join(root, "sdks", "qairt-"+v, "include/QnnOpPackage.h"), "", 0o644)
		write(t, filepath.Join(root, "sdks", "qairt-"+v, "version.h"), `#define V "v`+v+`"`, 0o644)
	}
	sdk := SDK{Name: "qnn", Env: "QNN_SDK_ROOT", Search: []string{"sdks/qairt-*"}, Probe: "include/QnnOpPackage.h",
		Version: &VersionProbe{File: "version.h", Pattern: `"v([0-9.]+)"`, Min: "2.10.0"}}
	f := env.ResolveSDK(sdk)
	if !f.OK() || !strings.HasSuffix(f.Path, "qairt-2.36.1") || f.Version != "2.36.1" || f.Via != "search" {
		t.Errorf("search should pick the newest: %+v", f)
	}
	env.Getenv = func(string) string { return filepath.Join(root, "sdks", "qairt-2.9.0") }
	f = env.ResolveSDK(sdk)
	if f.OK() || !strings.Contains(f.Problem, "2.10.0 or newer") {
		t.Errorf("old SDK accepted: %+v", f)
	}
	sdk.Version.MinWhy = "older headers lack X"
	f = env.ResolveSDK(sdk)
	if f.OK() || !strings.Contains(f.Problem, "2.10.0 or newer is needed: older headers lack X (set QNN_SDK_ROOT") {
		t.Errorf("the minimum's reason is not given: %+v", f)
	}
	env.Getenv = func(string) string { return root }
	f = env.ResolveSDK(sdk)
	if f.OK() || !strings.Contains(f.Problem, "$QNN_SDK_ROOT="+root+" has no include/QnnOpPackage.h") {
		t.Errorf("wrong variable not named: %+v", f)
	}
}

func TestResolveTool(t *testing.T) {
	env, root := fakeEnv(t, nil)
	write(t, filepath.Join(root, "bin", "nvcc"), "#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.93'\n", 0o755)
	tool := Tool{Name: "nvcc", Env: "NVCC", Names: []string{"nvcc"}, Version: &VersionProbe{Args: []string{"--version"}, Pattern: `release ([0-9.]+)`, Min: "12.0"}}
	f := env.ResolveTool(tool)
	if !f.OK() || f.Version != "12.8" || f.Via != "PATH" {
		t.Errorf("PATH lookup: %+v", f)
	}
	tool.Version.Min = "13.0"
	if f := env.ResolveTool(tool); f.OK() || !strings.Contains(f.Problem, "13.0 or newer") {
		t.Errorf("too old accepted: %+v", f)
	}
	tool.Names = nil
	tool.Search = []string{"nowhere/nvcc"}
	if f := env.ResolveTool(tool); f.OK() || !strings.Contains(f.Problem, "set NVCC") || !strings.Contains(f.Problem, "nowhere/nvcc") {
		t.Errorf("missing tool: %+v", f)
	}
	cache := OpenVersionCache(filepath.Join(root, "versions.json"))
	env.Versions = cache
	tool.Names, tool.Version.Min = []string{"nvcc"}, ""
	if f := env.ResolveTool(tool); f.Version != "12.8" {
		t.Errorf("cached version: %+v", f)
	}
	if err := cache.Save(); err != nil {
		t.Fatal(err)
	}
	if again := OpenVersionCache(filepath.Join(root, "versions.json")); len(again.entries) != 1 {
		t.Errorf("cache not persisted: %v", again.entries)
	}
}

func TestResolveLauncher(t *testing.T) {
	vars := map[string]string{}
	env, root := fakeEnv(t, vars)
	write(t, filepath.Join(root, "bin", "ccache"), "#!/bin/sh\necho 'ccache version 4.7.5'\n", 0o755)
	write(t, filepath.Join(root, "bin", "sccache"), "#!/bin/sh\necho 'sccache 0.4.0-pre.6'\n", 0o755)
	probe := &VersionProbe{Args: []string{"--version"}, Pattern: `(?:ccache version|sccache) ([0-9]+(?:\.[0-9]+)+)`}
	d := &Descriptor{
		Launcher: &Launcher{Name: "launcher", Env: "OPFORGE_COMPILER_LAUNCHER", Version: probe},
		Tools: []Tool{
			{Name: "nvcc", Env: "NVCC", Launcher: &Launcher{Name: "nvcc_launcher", Env: "NVCC_LAUNCHER", Version: probe}},
			{Name: "cxx", Env: "CXX"},
		},
	}
	cases := []struct {
		name      string
		vars      map[string]string
		tool      string
		path, ver string // want: path suffix and version ("" = none)
		problem   string // want: a problem containing this
	}{
		{name: "opt-in: nothing set is no launcher and no problem", tool: "cxx"},
		{name: "the target's variable, a name on PATH", vars: map[string]string{"OPFORGE_COMPILER_LAUNCHER": "ccache"}, tool: "cxx", path: "bin/ccache", ver: "4.7.5"},
		{name: "a tool's own launcher wins", vars: map[string]string{"OPFORGE_COMPILER_LAUNCHER": "ccache", "NVCC_LAUNCHER": "sccache"}, tool: "nvcc", path: "bin/sccache", ver: "0.4.0"},
		{name: "the target's when the tool's is unset", vars: map[string]string{"OPFORGE_COMPILER_LAUNCHER": "ccache"}, tool: "nvcc", path: "bin/ccache"},
		{name: "compilers that are no tool take the target's", vars: map[string]string{"OPFORGE_COMPILER_LAUNCHER": "ccache"}, tool: "", path: "bin/ccache"},
		{name: "set but missing is a problem", vars: map[string]string{"OPFORGE_COMPILER_LAUNCHER": "ccahce"}, tool: "cxx", problem: "$OPFORGE_COMPILER_LAUNCHER=ccahce is not an executable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clear(vars)
			for k, v := range c.vars {
				vars[k] = v
			}
			f := env.LauncherFor(d, c.tool)
			if f.Kind != "launcher" {
				t.Errorf("kind %q", f.Kind)
			}
			switch {
			case c.problem != "":
				if f.OK() || !strings.Contains(f.Problem, c.problem) || !f.Configured() {
					t.Errorf("want problem %q, got %+v", c.problem, f)
				}
			case c.path == "":
				if f.Configured() || f.OK() {
					t.Errorf("want no launcher, got %+v", f)
				}
			default:
				if !f.OK() || !strings.HasSuffix(f.Path, c.path) || (c.ver != "" && f.Version != c.ver) {
					t.Errorf("want %s %s, got %+v", c.path, c.ver, f)
				}
			}
		})
	}
	// Names on PATH make a launcher found without any variable.
	clear(vars)
	d.Launcher.Names = []string{"ccache"}
	if f := env.LauncherFor(d, "cxx"); !f.OK() || f.Via != "PATH" {
		t.Errorf("PATH lookup: %+v", f)
	}
}

func TestShippedLaunchersAreOptIn(t *testing.T) {
	env, _ := fakeEnv(t, nil)
	for _, target := range []string{"htp", "trt", "aipu"} {
		d, err := Load("../../toolchains", target)
		if err != nil {
			t.Fatal(err)
		}
		if d.Launcher == nil || d.Launcher.Env != "OPFORGE_COMPILER_LAUNCHER" {
			t.Errorf("%s: no launcher read from OPFORGE_COMPILER_LAUNCHER: %+v", target, d.Launcher)
		} else if len(d.Launcher.Names) > 0 || len(d.Launcher.Search) > 0 {
			// A launcher found on PATH would turn itself on for everyone.
			t.Errorf("%s: the shipped launcher is looked up by name or path: %+v", target, d.Launcher)
		}
		for _, tool := range d.Tools {
			if tool.Launcher != nil && (len(tool.Launcher.Names) > 0 || len(tool.Launcher.Search) > 0) {
				t.Errorf("%s: %s's launcher is looked up by name or path: %+v", target, tool.Name, tool.Launcher)
			}
		}
		for _, tool := range append(d.Tools, Tool{}) {
			if f := env.LauncherFor(d, tool.Name); f.Configured() {
				t.Errorf("%s: %s is used with no variable set: %+v", target, f.Name, f)
			}
		}
	}
}

// TestToolInSDK: with the shipped TensorRT descriptor, CUDA_HOME alone
// finds that toolkit's nvcc, before any nvcc on PATH; NVCC still wins; a
// toolkit without bin/nvcc falls back to PATH.
func TestToolInSDK(t *testing.T) {
	d, err := Load("../../toolchains", "trt")
	if err != nil {
		t.Fatal(err)
	}
	nvccScript := "#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n"
	for _, tc := range []struct {
		name     string
		toolkit  bool   // CUDA_HOME's toolkit has bin/nvcc
		onPath   bool   // an nvcc on PATH
		nvccVar  bool   // NVCC set
		wantPath string // relative to the temporary root
		wantVia  string
	}{
		{"CUDA_HOME alone", true, false, false, "cuda/bin/nvcc", "$CUDA_HOME"},
		{"CUDA_HOME before PATH", true, true, false, "cuda/bin/nvcc", "$CUDA_HOME"},
		{"NVCC before CUDA_HOME", true, true, true, "mine/nvcc", "$NVCC"},
		{"toolkit without nvcc", false, true, false, "bin/nvcc", "PATH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{}
			env, root := fakeEnv(t, vars)
			vars["CUDA_HOME"] = filepath.Join(root, "cuda")
			write(t, filepath.Join(root, "cuda/include/cuda_runtime_api.h"), "", 0o644)
			if tc.toolkit {
				write(t, filepath.Join(root, "cuda/bin/nvcc"), nvccScript, 0o755)
			}
			if tc.onPath {
				write(t, filepath.Join(root, "bin/nvcc"), nvccScript, 0o755)
			}
			if tc.nvccVar {
				write(t, filepath.Join(root, "mine/nvcc"), nvccScript, 0o755)
				vars["NVCC"] = filepath.Join(root, "mine/nvcc")
			}
			f := env.ResolveToolOf(d, "nvcc")
			if !f.OK() || f.Path != filepath.Join(root, tc.wantPath) || f.Via != tc.wantVia || f.Version != "13.0" {
				t.Errorf("got %+v, want %s via %s", f, tc.wantPath, tc.wantVia)
			}
		})
	}
}

func TestInSDKMustNameAnSDK(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../toolchains/trt.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), "in_sdk: {sdk: cuda,", "in_sdk: {sdk: cudnn,", 1)
	write(t, filepath.Join(dir, "trt.yaml"), bad, 0o644)
	if _, err := Load(dir, "trt"); err == nil || !strings.Contains(err.Error(), `in_sdk names sdk "cudnn"`) {
		t.Errorf("in_sdk naming an undeclared SDK: %v", err)
	}
}

// TestBuiltInDescriptors: the binary carries every shipped descriptor,
// byte for byte, and a directory's own descriptor overrides it.
func TestBuiltInDescriptors(t *testing.T) {
	empty := t.TempDir()
	for _, target := range []string{"htp", "trt", "aipu"} {
		d, err := Load(empty, target)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if d.Path != BuiltIn+target+".yaml" {
			t.Errorf("%s: path %q", target, d.Path)
		}
		shipped, _ := os.ReadFile("../../toolchains/" + target + ".yaml")
		built, _ := fs.ReadFile(toolchains.FS, target+".yaml")
		if !bytes.Equal(shipped, built) {
			t.Errorf("%s: the built-in descriptor differs from toolchains/%s.yaml", target, target)
		}
	}
	data, _ := os.ReadFile("../../toolchains/trt.yaml")
	write(t, filepath.Join(empty, "trt.yaml"), strings.Replace(string(data), `cuda_archs: ["80", "86", "89", "90"]`, `cuda_archs: ["90"]`, 1), 0o644)
	d, err := Load(empty, "trt")
	var sec struct {
		CUDAArchs []string `yaml:"cuda_archs"`
		Flags     any      `yaml:"flags"`
	}
	if err == nil {
		err = d.Section(&sec)
	}
	if err != nil || d.Path != filepath.Join(empty, "trt.yaml") || len(sec.CUDAArchs) != 1 {
		t.Errorf("the directory's descriptor did not override the built-in one: %v %+v", err, d)
	}
	if _, err := Load(empty, "nosuch"); err == nil || !strings.Contains(err.Error(), "none is built in") {
		t.Errorf("unknown target: %v", err)
	}
}

// TestSection: the target's own section stays undecoded until the target
// reads it; a missing section, a field the target does not know and
// another target's section are errors naming the file.
func TestSection(t *testing.T) {
	dir := t.TempDir()
	data, _ := os.ReadFile("../../toolchains/aipu.yaml")
	type aipu struct {
		Flags struct {
			AIPUOCC []string `yaml:"aipuocc"`
		} `yaml:"flags"`
	}
	d, err := Load("../../toolchains", "aipu")
	var good aipu
	if err == nil {
		err = d.Section(&good)
	}
	if err != nil || len(good.Flags.AIPUOCC) == 0 {
		t.Fatalf("shipped aipu section: %v %+v", err, good)
	}
	if d, got, err := LoadWith[aipu]("../../toolchains", "aipu"); err != nil || d.Target != "aipu" || !slices.Equal(got.Flags.AIPUOCC, good.Flags.AIPUOCC) {
		t.Errorf("LoadWith: %v %+v", err, got)
	}
	if _, _, err := LoadWith[struct{}]("../../toolchains", "aipu"); err == nil {
		t.Error("LoadWith into a type without the section's fields decoded")
	}
	var strict struct {
		Flags struct{} `yaml:"flags"`
	}
	if err := d.Section(&strict); err == nil || !strings.Contains(err.Error(), "aipu section") || !strings.Contains(err.Error(), "aipuocc") {
		t.Errorf("unknown field: %v", err)
	}
	i := strings.Index(string(data), "\naipu:")
	if i < 0 {
		t.Fatal("toolchains/aipu.yaml has no aipu section")
	}
	write(t, filepath.Join(dir, "aipu.yaml"), string(data[:i+1]), 0o644)
	if d, err := Load(dir, "aipu"); err != nil {
		t.Fatal(err)
	} else if err := d.Section(&good); err == nil || !strings.Contains(err.Error(), "aipu.yaml has no aipu section") {
		t.Errorf("missing section: %v", err)
	}
	write(t, filepath.Join(dir, "aipu.yaml"), string(data[:i+1])+"trt:\n  cuda_archs: [\"90\"]\n  flags: {nvcc: [-O2], cxx: [-O2], link: [-shared]}\n", 0o644)
	if _, err := Load(dir, "aipu"); err == nil || !strings.Contains(err.Error(), `section "trt" is not the target's ("aipu")`) {
		t.Errorf("another target's section: %v", err)
	}
}
