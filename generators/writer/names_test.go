package writer

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestAnyNameBelowAnswersAsWalkDir(t *testing.T) {
	// Each tree holds one name the match looks for (".hit"), or none.
	type entry struct {
		path string
		dir  bool
		link string // a symlink to this target
	}
	cases := []struct {
		name    string
		entries []entry
		want    bool
	}{
		{"empty", nil, false},
		{"at the top", []entry{{path: ".hit"}}, true},
		{"deep", []entry{{path: "a/b/c/d/.hit"}, {path: "a/x.txt"}}, true},
		{"a directory's name", []entry{{path: "a/.hit", dir: true}}, true},
		{"none", []entry{{path: "a/b/x.cpp"}, {path: "a/c/y.py"}, {path: "hit"}, {path: ".hitx"}}, false},
		{"below build", []entry{{path: "pkg/build/.hit"}}, false},
		{"below __pycache__", []entry{{path: "python/__pycache__/.hit"}}, false},
		{"a file named build", []entry{{path: "pkg/build"}, {path: "pkg/.hit"}}, true},
		{"below a link to a directory", []entry{{path: "elsewhere/.hit"}, {path: "tree/link", link: "../elsewhere"}}, false},
		{"a link's own name", []entry{{path: "tree/.hit", link: "nowhere"}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			for _, e := range c.entries {
				p := filepath.Join(base, filepath.FromSlash(e.path))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				var err error
				switch {
				case e.link != "":
					if runtime.GOOS == "windows" {
						t.Skip("no symlinks without privileges on Windows")
					}
					err = os.Symlink(e.link, p)
				case e.dir:
					err = os.Mkdir(p, 0o755)
				default:
					err = os.WriteFile(p, nil, 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			root := base
			if strings.HasPrefix(c.name, "below a link") {
				root = filepath.Join(base, "tree")
			}
			match := func(name string) bool { return name == ".hit" }
			if got, want := anyNameBelow(root, match), walkDirNames(root, match); got != want || got != c.want {
				t.Errorf("anyNameBelow = %v, WalkDir = %v, want %v", got, want, c.want)
			}
		})
	}
}

// A directory of thousands of entries takes several reads of its
// records; the name sought may be in any of them, the last included.
func TestAnyNameBelowReadsEveryRecord(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "src", "ops")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 3000)
	for i := range names {
		names[i] = fmt.Sprintf("op_with_a_rather_long_name_%04d_plugin.cpp", i)
		if err := os.WriteFile(filepath.Join(dir, names[i]), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	anyNameBelow(root, func(name string) bool { seen[strings.Clone(name)] = true; return false })
	for _, n := range append(names, "src", "ops", "sub") {
		if !seen[n] {
			t.Fatalf("the walk never offered %s (%d names seen)", n, len(seen))
		}
	}
	for _, n := range []string{names[0], names[len(names)-1], "sub"} {
		if !anyNameBelow(root, func(name string) bool { return name == n }) {
			t.Errorf("%s not found", n)
		}
	}
}

// A root that is missing, a file or a link is no tree: nothing is below it.
func TestAnyNameBelowOfNoTree(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	all := func(string) bool { return true }
	for _, root := range []string{filepath.Join(base, "missing"), file} {
		if anyNameBelow(root, all) != walkDirNames(root, all) {
			t.Errorf("%s: the walks disagree", root)
		}
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(base, "link")
		if err := os.Symlink(base, link); err != nil {
			t.Fatal(err)
		}
		if anyNameBelow(link, all) || walkDirNames(link, all) {
			t.Error("a link given as the root was followed")
		}
	}
}
