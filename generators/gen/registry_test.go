package gen

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
)

// TestFilesWithoutTargetsGeneratesEveryTarget: Files handed no targets
// generates every target of the registry (reading the built-in
// descriptors here, as the repository's are the same files), never just
// the reference modules.
func TestFilesWithoutTargetsGeneratesEveryTarget(t *testing.T) {
	var l diag.List
	pkgs := load.Tree(repo+"/testdata/gen/examples/opdefs", &l)
	registry.Check(&l, pkgs...)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	implicit := Files(pkgs, nil, &l)
	explicit := Files(pkgs, registry.WithToolchains(repo+"/toolchains"), &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	for _, name := range registry.Names() {
		if !slices.ContainsFunc(implicit.Paths(), func(p string) bool { return strings.HasPrefix(p, name+"/") }) {
			t.Errorf("no %s files generated without targets named", name)
		}
	}
	if !slices.Equal(implicit.Paths(), explicit.Paths()) {
		t.Fatalf("paths differ:\n%v\n%v", implicit.Paths(), explicit.Paths())
	}
	for _, p := range implicit.Paths() {
		if string(implicit.Get(p).Data) != string(explicit.Get(p).Data) {
			t.Errorf("%s differs between the registry's targets and those of the repository's toolchains/", p)
		}
	}
}

// TestBrokenDescriptorIsAnError: a toolchain descriptor that generation
// reads (htp's pins) and cannot is an error of the target, and nothing is
// planned.
func TestBrokenDescriptorIsAnError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "toolchains")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "htp.yaml"), []byte("target: htp\nbogus: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := repoOptions()
	o.Toolchains, o.Out = dir, t.TempDir()
	var l diag.List
	if p := Plan(o, &l); p != nil {
		t.Error("a plan despite a broken descriptor")
	}
	var found bool
	for _, d := range l.Sorted() {
		found = found || d.Code == "toolchain" && d.Severity == diag.Error && strings.Contains(d.Message, "htp.yaml")
	}
	if !found {
		t.Errorf("no toolchain error naming htp.yaml: %v", l.Sorted())
	}
}
