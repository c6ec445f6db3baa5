package htp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestCppSyntax compiles every generated HTP source with g++ -fsyntax-only
// against a QNN SDK. QNN_SDK_ROOT must point at it; HTP/core includes the
// Hexagon libnative headers (hexagon_protos.h), found in
// $HEXAGON_SDK_ROOT/tools/HEXAGON_Tools/<version>/Tools/libnative/include
// and passed through OPFORGE_HTP_CXXFLAGS (e.g. "-isystem <that dir>").
func TestCppSyntax(t *testing.T) {
	root := os.Getenv("QNN_SDK_ROOT")
	if root == "" {
		t.Skip("QNN_SDK_ROOT is not set: the HTP sources need the QNN SDK headers to compile")
	}
	if _, err := os.Stat(filepath.Join(root, "include/QNN/QnnOpPackage.h")); err != nil {
		t.Fatalf("QNN_SDK_ROOT=%s has no include/QNN/QnnOpPackage.h", root)
	}
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "g++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		t.Skipf("no C++ compiler (%s)", cxx)
	}
	extra := strings.Fields(os.Getenv("OPFORGE_HTP_CXXFLAGS"))
	var sources []string
	for _, tr := range trees {
		for _, pattern := range []string{"htp/*/src/*.cpp", "htp/*/src/ops/*.cpp"} {
			m, _ := filepath.Glob(filepath.Join(tr.out, pattern))
			sources = append(sources, m...)
		}
	}
	more, _ := filepath.Glob("../../../testdata/gen/htp-legacy/out/htp/*/src/*.cpp")
	sources = append(sources, more...)
	more, _ = filepath.Glob("../../../testdata/gen/htp-legacy/out/htp/*/src/ops/*.cpp")
	sources = append(sources, more...)
	if len(sources) < 10 {
		t.Fatalf("only %d sources found", len(sources))
	}
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for _, src := range sources {
		var pkg string // out/htp/<Pkg>/src[/ops]/<file>.cpp
		if filepath.Base(filepath.Dir(src)) == "ops" {
			pkg = filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(src))))
		} else {
			pkg = filepath.Base(filepath.Dir(filepath.Dir(src)))
		}
		args := append([]string{"-std=c++17", "-fsyntax-only", "-Wall", "-Werror",
			// -isystem: the vendor headers themselves are not -Wall clean under g++.
			"-isystem", filepath.Join(root, "include/QNN"),
			"-D__HVXDBL__", "-DUSE_OS_LINUX", "-DTHIS_PKG_NAME=" + pkg}, extra...)
		args = append(args, src)
		wg.Add(1)
		sem <- struct{}{}
		go func(src string, args []string) {
			defer wg.Done()
			defer func() { <-sem }()
			if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
				t.Errorf("%s does not compile: %v\n%s", src, err, out)
			}
		}(src, args)
	}
	wg.Wait()
	t.Logf("%d sources compiled with %s", len(sources), cxx)
}
