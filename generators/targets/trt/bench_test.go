package trt

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWheelCUDAHints: only a toolkit laid out as the pip wheels lay it out
// (lib/ without lib64/, libcudart.so only versioned) gets hints, and
// LIBRARY_PATH keeps what the caller had.
func TestWheelCUDAHints(t *testing.T) {
	tests := []struct {
		name       string
		files      []string
		callerPath string
		wantArgs   []string
		wantEnv    []string
	}{
		{"installer layout", []string{"lib64/libcudart.so", "lib/libcudart.so"}, "", nil, nil},
		{"no libraries at all", []string{"bin/nvcc"}, "", nil, nil},
		{"wheel layout", []string{"lib/libcudart.so.13", "lib/libcudart_static.a"}, "", []string{"-DCUDA_CUDART=<root>/lib/libcudart.so.13"}, []string{"LIBRARY_PATH=<root>/lib"}},
		{"wheel layout, unversioned cudart", []string{"lib/libcudart.so"}, "/opt/x", nil, []string{"LIBRARY_PATH=<root>/lib:/opt/x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(root, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args, env := wheelCUDAHints(root, tt.callerPath)
			expand := func(s []string) []string {
				var out []string
				for _, x := range s {
					out = append(out, strings.ReplaceAll(x, "<root>", root))
				}
				return out
			}
			if !slices.Equal(args, expand(tt.wantArgs)) || !slices.Equal(env, expand(tt.wantEnv)) {
				t.Errorf("wheelCUDAHints = %q, %q; want %q, %q", args, env, expand(tt.wantArgs), expand(tt.wantEnv))
			}
		})
	}
}

func TestBenchYardstickNeedsCUDA(t *testing.T) {
	for _, tool := range []string{"cmake", "ninja"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: BenchYardstick says so before it looks for CUDA", tool)
		}
	}
	if _, _, err := BenchYardstick("pkg", "b", []string{"PATH=/usr/bin"}); err == nil || !strings.Contains(err.Error(), "CUDA_HOME") {
		t.Errorf("no CUDA in env: err = %v, want one that names CUDA_HOME", err)
	}
	cmds, _, err := BenchYardstick("pkg", "b", []string{"NVCC=/cuda/bin/nvcc", "CUDA_ARCHS=80,90", "TENSORRT_INCLUDE_DIR=/trt/include"})
	if err != nil {
		t.Fatal(err)
	}
	configure := strings.Join(cmds[0], " ")
	for _, want := range []string{"-S pkg -B b -G Ninja", "-DCMAKE_CUDA_COMPILER=/cuda/bin/nvcc", "-DCMAKE_CUDA_ARCHITECTURES=80;90", "-DTENSORRT_INCLUDE_DIR=/trt/include"} {
		if !strings.Contains(configure, want) {
			t.Errorf("configure %q lacks %q", configure, want)
		}
	}
	if got := strings.Join(cmds[1], " "); got != "ninja -C b" {
		t.Errorf("build = %q", got)
	}
}

// TestBenchPeer runs tensorrt_plugin_generator on its spec of three ops
// when a checkout is named: it must accept the spec and write the three
// plugins (a header, a source and a Makefile each).
func TestBenchPeer(t *testing.T) {
	if os.Getenv("OPFORGE_TPG") == "" {
		if _, _, err := BenchPeer(3, t.TempDir(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "OPFORGE_TPG") {
			t.Errorf("without OPFORGE_TPG: err = %v, want one that names it", err)
		}
		t.Skip("OPFORGE_TPG names no checkout of tensorrt_plugin_generator: the spec was not run through it")
	}
	out := filepath.Join(t.TempDir(), "out")
	argv, cwd, err := BenchPeer(3, t.TempDir(), out)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = cwd
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", argv, err, output)
	}
	var files []string
	_ = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if len(files) != 9 {
		t.Errorf("tensorrt_plugin_generator wrote %d files for 3 ops, want 9: %v", len(files), files)
	}
}
