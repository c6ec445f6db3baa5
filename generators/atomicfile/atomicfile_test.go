package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "f.txt")
	for _, tc := range []struct {
		data        string
		wantChanged bool
	}{
		{"one", true},  // creates the directory and the file
		{"one", false}, // same bytes: untouched
		{"two", true},  // replaced
	} {
		old := time.Now().Add(-time.Hour)
		_ = os.Chtimes(p, old, old)
		changed, err := Write(p, []byte(tc.data), 0o644)
		if err != nil || changed != tc.wantChanged {
			t.Fatalf("Write(%q) = %v, %v; want changed=%v", tc.data, changed, err, tc.wantChanged)
		}
		got, _ := os.ReadFile(p)
		if string(got) != tc.data {
			t.Fatalf("file holds %q, want %q", got, tc.data)
		}
		if info, _ := os.Stat(p); !tc.wantChanged && !info.ModTime().Equal(old) {
			t.Errorf("unchanged write moved the mtime")
		}
		if names := entries(t, filepath.Dir(p)); len(names) != 1 {
			t.Errorf("directory holds %v, want only f.txt (no temporary file)", names)
		}
	}
}

func TestCreateRefusesExisting(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := Create(p, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Create(p, []byte("b"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Create: %v, want ErrExist", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "a" {
		t.Errorf("existing file changed to %q", got)
	}
}

func TestReplaceKeepsModeAndLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.sh")
	if err := Replace(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	// The umask may clear bits, never add them.
	if info.Mode().Perm()&^0o755 != 0 || info.Mode().Perm()&0o100 == 0 {
		t.Errorf("mode %v, want 0755 less the umask", info.Mode().Perm())
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v", names)
	}
}

func TestMkdirUnique(t *testing.T) {
	target := filepath.Join(t.TempDir(), "pkg")
	a, err := MkdirUnique(target)
	if err != nil {
		t.Fatal(err)
	}
	b, err := MkdirUnique(target)
	if err != nil {
		t.Fatal(err)
	}
	if a == b || filepath.Dir(a) != filepath.Dir(target) {
		t.Errorf("staging directories %s and %s: want two distinct siblings of %s", a, b, target)
	}
}

// IsTemp matches exactly the names Temp and MkdirUnique give, so removing
// leftovers never touches a user's file with a similar name.
func TestIsTemp(t *testing.T) {
	dir := t.TempDir()
	tmp, err := Temp(filepath.Join(dir, "f.txt"), []byte("x"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	stage, err := MkdirUnique(filepath.Join(dir, "pkg"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		filepath.Base(tmp): true, filepath.Base(stage): true, ".x.tmp-1-a-b": true,
		"f.txt.tmp-1-a-b": false, ".x.tmp-mine": false, ".x.tmp-1-a-b.bak": false, ".tmp-1-a-b": false, ".x.tmp-1-A-b": false,
	} {
		if got := IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestCreateNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if created, err := CreateNew(path, []byte("first"), 0o644); !created || err != nil {
		t.Fatalf("new file: %v %v", created, err)
	}
	if created, err := CreateNew(path, []byte("second"), 0o644); created || err != nil {
		t.Fatalf("existing file: %v %v", created, err)
	}
	if data, _ := os.ReadFile(path); string(data) != "first" {
		t.Errorf("the existing file was replaced: %q", data)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) > 0 {
		t.Errorf("temporaries left: %v", left)
	}
}
