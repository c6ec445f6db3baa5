// Package verifytest holds what the tests of verify and of the targets'
// verify runners share: workspaces copied from the golden trees, regions
// filled in, and the skip when no Python with torch is configured.
package verifytest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// FillRegion replaces the body of region key in file.
func FillRegion(t *testing.T, file, key, body string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?s)((?:#|//) opforge:begin ` + regexp.QuoteMeta(key) + `\n).*?(\n\s*(?:#|//) opforge:end ` + regexp.QuoteMeta(key) + `\n)`)
	if !re.Match(data) {
		t.Fatalf("%s has no region %s", file, key)
	}
	loc := re.FindSubmatchIndex(data)
	out := append([]byte{}, data[:loc[3]]...)
	out = append(out, body...)
	out = append(out, data[loc[4]:]...)
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// CopyTree copies the tree src to dst.
func CopyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// NeedPython skips the test, saying why, unless OPFORGE_PYTHON names a
// Python that imports torch (what verify's runner needs).
func NeedPython(t *testing.T) {
	t.Helper()
	p := os.Getenv("OPFORGE_PYTHON")
	if p == "" {
		t.Skip("OPFORGE_PYTHON is not set (a Python with torch); verify's runner is not run")
	}
	path, err := exec.LookPath(p)
	if err != nil {
		t.Skipf("no Python interpreter %q: %v", p, err)
	}
	if out, err := exec.Command(path, "-c", "import torch").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import torch: %s", path, strings.TrimSpace(string(out)))
	}
}

// VisionWorkspace copies the examples' opdefs and out/ (examples is the
// examples' golden tree) into a directory of the test's own and fills the
// references of VisionOps' TopKLast and NonZeroCoords: the opdefs and out
// directories of the copy.
func VisionWorkspace(t *testing.T, examples string) (opdefs, out string) {
	t.Helper()
	root := t.TempDir()
	opdefs, out = filepath.Join(root, "opdefs"), filepath.Join(root, "out")
	CopyTree(t, filepath.Join(examples, "opdefs"), opdefs)
	CopyTree(t, filepath.Join(examples, "out"), out)
	ref := filepath.Join(out, "reference/VisionOps/vision_ops_reference.py")
	FillRegion(t, ref, "reference:TopKLast", "    values, indices = torch.topk(x, min(k, x.shape[-1]), dim=-1, largest=(order == \"largest\"))\n    return values, indices.to(torch.int32)")
	FillRegion(t, ref, "reference:NonZeroCoords", "    return torch.nonzero(mask).to(torch.int32)")
	return opdefs, out
}
