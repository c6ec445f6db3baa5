package gen

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// pyCheck parses every module of a job with ast (and compiles it), then
// looks for each text among the string constants: contains as a part of
// one (a docstring), exact as a whole one.
const pyCheck = `
import ast, json, sys
bad = []
for j in json.load(open(sys.argv[1])):
    consts = []
    for f in j["files"]:
        src = open(f, "rb").read()
        try:
            tree = ast.parse(src, f)
            compile(tree, f, "exec")
        except (SyntaxError, ValueError) as e:
            bad.append("%s: %s" % (f, e))
            continue
        consts += [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    for c in j["contains"]:
        if not any(c in k for k in consts):
            bad.append("%s: %r is part of no string constant" % (j["name"], c))
    for c in j["exact"]:
        if c not in consts:
            bad.append("%s: %r is no string constant" % (j["name"], c))
print("\n".join(bad))
`

// importCheck imports every module (torch.library defines and registers
// its ops on import) and prints each failure.
const importCheck = `
import importlib.util, json, sys, traceback
import torch
for i, f in enumerate(json.load(open(sys.argv[1]))):
    try:
        spec = importlib.util.spec_from_file_location("opforge_mod_%d" % i, f)
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    except Exception as e:
        print("%s: %s: %s" % (f, type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
`

type pyJob struct {
	Name     string   `json:"name"`
	Files    []string `json:"files"`
	Contains []string `json:"contains"`
	Exact    []string `json:"exact"`
}

func pythonTool() string {
	for _, p := range []string{os.Getenv("OPFORGE_PYTHON"), "python3"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	return ""
}

// checkWithTools runs the language tools over the generated trees under
// dir, skipping (with the reason) each tool that is missing.
func checkWithTools(t *testing.T, dir string, cases []hostileCase, skip ...string) {
	t.Helper()
	run := func(name string, f func(t *testing.T)) {
		for _, s := range skip {
			if s == name {
				return
			}
		}
		t.Run(name, f)
	}
	run("python", func(t *testing.T) {
		py := pythonTool()
		if py == "" {
			t.Skip("no Python (OPFORGE_PYTHON or python3): generated modules not parsed")
		}
		var jobs []pyJob
		for _, c := range cases {
			for _, target := range []string{"htp", "trt", "aipu"} {
				files, _ := filepath.Glob(filepath.Join(dir, target, c.pkg, "*", "*.py"))
				if len(files) == 0 {
					continue // trt without QDP
				}
				j := pyJob{Name: target + "/" + c.pkg, Files: files, Contains: []string{}, Exact: []string{}}
				// What each target's Python holds as data.
				switch target {
				case "aipu":
					j.Contains = append(j.Contains, c.contains...)
					j.Exact = append(j.Exact, c.exact...)
				}
				// htp and trt Python hold these texts only in comments
				// (descriptions) or not at all (enum values are indices).
				jobs = append(jobs, j)
			}
		}
		in := filepath.Join(t.TempDir(), "jobs.json")
		data, _ := json.Marshal(jobs)
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(py, "-c", pyCheck, in).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("generated Python (%s): %v\n%s", py, err, out)
		}
	})
	run("executorch", func(t *testing.T) {
		py := pythonTool()
		if py == "" || exec.Command(py, "-c", "import torch").Run() != nil {
			t.Skip("no Python with torch (OPFORGE_PYTHON): the ExecuTorch modules are not imported")
		}
		var files []string
		for _, c := range cases {
			f, _ := filepath.Glob(filepath.Join(dir, "htp", c.pkg, "executorch", "*.py"))
			files = append(files, f...)
		}
		if len(files) == 0 {
			t.Skip("no ExecuTorch module generated")
		}
		list := filepath.Join(t.TempDir(), "modules.json")
		data, _ := json.Marshal(files)
		if err := os.WriteFile(list, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(py, "-c", importCheck, list).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("ExecuTorch modules (%s): %v\n%s", py, err, tail(string(out), 8000))
		}
	})
	run("tensorrt", func(t *testing.T) {
		inc := os.Getenv("TENSORRT_INCLUDE_DIR")
		if inc == "" {
			t.Skip("TENSORRT_INCLUDE_DIR is not set: the TensorRT plugins are not compiled")
		}
		cuda := cudaInclude()
		if cuda == "" {
			t.Skip("no cuda_runtime_api.h (CUDA_HOME or OPFORGE_PYTHON's nvidia wheels): the TensorRT plugins are not compiled")
		}
		if _, err := exec.LookPath("g++"); err != nil {
			t.Skip("no g++: the TensorRT plugins are not compiled")
		}
		// Translation units batched across the packages (each has its own
		// C++ namespace): one per plugin source name, and the library of
		// the first package (the others differ only in identifiers).
		units := map[string][]string{}
		var names []string
		for i, c := range cases {
			root := filepath.Join(dir, "trt", c.pkg, "src")
			srcs, _ := filepath.Glob(filepath.Join(root, "ops", "*.cpp"))
			if i == 0 {
				srcs = append(srcs, filepath.Join(root, c.pkg+"Library.cpp"))
			}
			for _, src := range srcs {
				base := filepath.Base(src)
				if units[base] == nil {
					names = append(names, base)
				}
				units[base] = append(units[base], src)
			}
		}
		var fns []func() error
		for _, name := range names {
			var b strings.Builder
			for _, src := range units[name] {
				fmt.Fprintf(&b, "#include %q\n", src)
			}
			unit := filepath.Join(dir, "trt", "unity-"+name)
			if err := os.WriteFile(unit, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			fns = append(fns, func() error {
				args := []string{"-std=c++17", "-fsyntax-only", "-Wall", "-Werror", "-Wno-unused-function", "-isystem", inc, "-isystem", cuda, unit}
				if out, err := exec.Command("g++", args...).CombinedOutput(); err != nil {
					return fmt.Errorf("%s: %v\n%s", unit, err, out)
				}
				return nil
			})
		}
		for _, err := range runParallel(fns) {
			t.Error(err)
		}
	})
	run("opencl", func(t *testing.T) {
		clang := os.Getenv("CLANG")
		if clang == "" {
			clang = "clang"
		}
		if _, err := exec.LookPath(clang); err != nil {
			t.Skipf("%s is not installed: the OpenCL kernels are not checked", clang)
		}
		// One clang run checks a batch of kernels (each its own unit).
		var srcs []string
		for _, c := range cases {
			s, _ := filepath.Glob(filepath.Join(dir, "aipu", c.pkg, "kernels", "*.cl"))
			srcs = append(srcs, s...)
		}
		var fns []func() error
		for len(srcs) > 0 {
			n := min(len(srcs), 40)
			batch := srcs[:n]
			srcs = srcs[n:]
			fns = append(fns, func() error {
				args := append([]string{"-x", "cl", "-cl-std=CL2.0", "-fsyntax-only", "-Wall", "-Werror"}, batch...)
				if out, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
					return fmt.Errorf("%v\n%s", err, out)
				}
				return nil
			})
		}
		for _, err := range runParallel(fns) {
			t.Error(err)
		}
	})
	run("make", func(t *testing.T) {
		if _, err := exec.LookPath("make"); err != nil {
			t.Skip("make is not installed: the Makefiles are not parsed")
		}
		for _, c := range cases {
			for _, target := range []string{"htp", "aipu"} {
				mk := filepath.Join(dir, target, c.pkg, "Makefile")
				out, _ := exec.Command("make", "-n", "-p", "-f", mk, "opforge-no-such-goal").CombinedOutput()
				for _, bad := range []string{"missing separator", "unterminated", "invalid syntax", "recipe commences before first target", "extraneous"} {
					if strings.Contains(string(out), bad) {
						t.Errorf("%s (text %q) does not parse: %s", mk, c.text, bad)
					}
				}
			}
		}
	})
	run("cmake", func(t *testing.T) {
		if _, err := exec.LookPath("cmake"); err != nil {
			t.Skip("cmake is not installed: the CMakeLists are not parsed")
		}
		for _, c := range cases {
			// Script mode parses the whole file before it runs the first
			// command (project(), which it then refuses).
			f := filepath.Join(dir, "trt", c.pkg, "CMakeLists.txt")
			out, _ := exec.Command("cmake", "-P", f).CombinedOutput()
			if strings.Contains(string(out), "Parse error") || strings.Contains(string(out), "Syntax Error") {
				t.Errorf("%s (text %q) does not parse:\n%s", f, c.text, out)
			}
		}
	})
}

func cudaInclude() string {
	var cands []string
	if h := os.Getenv("CUDA_HOME"); h != "" {
		cands = append(cands, filepath.Join(h, "include"))
	}
	if py := os.Getenv("OPFORGE_PYTHON"); py != "" {
		if out, err := exec.Command(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").Output(); err == nil {
			site := strings.TrimSpace(string(out))
			cands = append(cands, filepath.Join(site, "nvidia/cu13/include"), filepath.Join(site, "nvidia/cuda_runtime/include"))
		}
	}
	cands = append(cands, "/usr/local/cuda/include", "/usr/include")
	for _, c := range cands {
		if _, err := os.Stat(filepath.Join(c, "cuda_runtime_api.h")); err == nil {
			return c
		}
	}
	return ""
}

// runParallel runs fns two at a time (the test machines are small) and
// returns their errors.
func runParallel(fns []func() error) []error {
	var mu sync.Mutex
	var errs []error
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for _, fn := range fns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errs
}
