package gen

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/opforge/opforge/generators/sharedfixtures"
)

// vendorHTPOps reads a QNN XML config without opforge's loader (so the
// test does not take the loader's word for what a config holds): the
// package name and the ops that name an HTP backend, as
// qnn-op-package-generator would generate them for HTP, HTP_FP16 or HTPMCP.
func vendorHTPOps(t *testing.T, path string) (pkg string, ops []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		PackageName string `xml:"PackageName,attr"`
		OpDefs      []struct {
			Name     string   `xml:"Name"`
			Backends []string `xml:"SupportedBackend"`
		} `xml:"OpDefList>OpDef"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, od := range doc.OpDefs {
		for _, b := range od.Backends {
			if b == "HTP" || b == "HTP_FP16" || b == "HTPMCP" {
				ops = append(ops, od.Name)
				break
			}
		}
	}
	return doc.PackageName, ops
}

// TestFixturesEveryHTPOpGenerates: every op of the real QNN configs in
// shared/fixtures/qnn and shared/fixtures/qnn-more that names an HTP
// backend gets its op source and its package interface, and the folders
// hold such ops at all.
func TestFixturesEveryHTPOpGenerates(t *testing.T) {
	for _, dir := range []string{"qnn", "qnn-more"} {
		t.Run(dir, func(t *testing.T) {
			root := sharedfixtures.Need(t, filepath.Join(repo, "..", "shared", "fixtures", dir))
			var files []string
			_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && filepath.Ext(p) == ".xml" {
					files = append(files, p)
				}
				return nil
			})
			if len(files) == 0 {
				t.Fatalf("no QNN configs under %s", root)
			}
			p := mustPlan(t, Options{OpDefs: root, Toolchains: repo + "/toolchains", Out: t.TempDir()})
			planned := map[string]bool{}
			for _, f := range p.Files.Paths() {
				planned[filepath.ToSlash(f)] = true
			}
			var want []string
			for _, f := range files {
				pkg, ops := vendorHTPOps(t, f)
				if len(ops) > 0 {
					want = append(want, "htp/"+pkg+"/src/"+pkg+"Interface.cpp")
				}
				for _, op := range ops {
					want = append(want, "htp/"+pkg+"/src/ops/"+op+".cpp")
				}
			}
			if len(want) == 0 {
				t.Fatalf("no config under %s names an HTP backend", root)
			}
			sort.Strings(want)
			for _, w := range want {
				if !planned[w] {
					t.Errorf("%s is not generated", w)
				}
			}
			t.Logf("%d configs, %d HTP sources wanted and generated", len(files), len(want))
		})
	}
}
