package buildplan

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/toolchain"
)

// TestTRTBuild builds the shipped TensorRT plugin libraries with the real
// nvcc and g++ when TENSORRT_INCLUDE_DIR names TensorRT headers (nvcc and
// the CUDA runtime come from CUDA_HOME or the test venv's CUDA wheels).
func TestTRTBuild(t *testing.T) {
	inc := os.Getenv("TENSORRT_INCLUDE_DIR")
	if inc == "" {
		t.Skip("TENSORRT_INCLUDE_DIR is not set: building the plugin libraries needs the TensorRT headers")
	}
	repo, _ := filepath.Abs("../..")
	o := Options{Out: filepath.Join(repo, "out"), Build: t.TempDir(), Toolchains: filepath.Join(repo, "toolchains"),
		Env: toolchain.Env{Getenv: func(k string) string {
			if k == "CUDA_ARCHS" && os.Getenv(k) == "" {
				return "80" // one architecture keeps the test short
			}
			return os.Getenv(k)
		}, LookPath: exec.LookPath, Root: repo}}
	p, err := TRT(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Preflight(); err != nil {
		t.Skipf("no CUDA toolchain: %v", err)
	}
	var log bytes.Buffer
	if _, err := p.Run(context.Background(), &log, 0); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	lib := filepath.Join(o.Build, "trt/VisionOps/libVisionOps.so")
	out, err := exec.Command("nm", "-D", "--defined-only", lib).Output()
	if err != nil {
		t.Fatal(err)
	}
	var exports []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 && strings.ContainsAny(f[1], "TWDB") {
			exports = append(exports, f[2])
		}
	}
	if strings.Join(exports, " ") != "getCreators getPluginCreators setLoggerFinder" {
		t.Errorf("libVisionOps.so exports %v", exports)
	}
	// A no-op rebuild runs nothing.
	log.Reset()
	r, err := p.Run(context.Background(), &log, 0)
	if err != nil || r.Processes != 0 {
		t.Errorf("no-op build: %+v %v\n%s", r, err, log.String())
	}
}

func TestTRTPreflight(t *testing.T) {
	o := Options{Out: "../../out", Build: t.TempDir(), Toolchains: "../../toolchains", Env: toolchain.Env{
		Getenv: func(string) string { return "" }, LookPath: func(string) (string, error) { return "", os.ErrNotExist }, Root: t.TempDir()}}
	p, err := TRT(o)
	if err != nil {
		t.Fatal(err)
	}
	err = p.Preflight()
	if err == nil || !strings.Contains(err.Error(), "set TENSORRT_INCLUDE_DIR") || !strings.Contains(err.Error(), "set NVCC") {
		t.Errorf("preflight: %v", err)
	}
}
