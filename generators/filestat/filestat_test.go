package filestat

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOfIsFromInfo: Of answers what FromInfo makes of os.Stat, whichever
// way it stats, for every kind of path a caller hands it.
func TestOfIsFromInfo(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("twelve bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A modification time with nanoseconds, where the file system keeps
	// them: the digits below the second must survive.
	mtime := time.Unix(1_700_000_000, 123_456_789)
	if err := os.Chtimes(file, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("f.txt", link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("none", dangling); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{file, dir, link, dangling, filepath.Join(dir, "missing"), "", "a\x00b", filepath.Join(file, "below-a-file")} {
		got, ok := Of(path)
		fi, err := os.Stat(path)
		want := Stat{}
		if err == nil {
			want = FromInfo(fi)
		}
		if ok != (err == nil) || got != want {
			t.Errorf("Of(%q) = %+v, %v; os.Stat gives %+v, %v", path, got, ok, want, err)
		}
	}
	if st, _ := Of(file); st.Size != 12 {
		t.Errorf("Of(file) = %+v: want size 12", st)
	}
}
