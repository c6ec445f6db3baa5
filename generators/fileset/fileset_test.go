package fileset

import (
	"slices"
	"testing"
)

// TestOrderFollowsAdds: the kept order is the paths sorted, made again
// after every Add, and what Paths returns is the caller's to change.
func TestOrderFollowsAdds(t *testing.T) {
	s := New()
	for _, p := range []string{"b/x", "a/y", "c"} {
		if err := s.Add(&File{Path: p}); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Paths(); !slices.Equal(got, []string{"a/y", "b/x", "c"}) {
		t.Fatalf("paths %v", got)
	}
	got := s.Paths()
	got[0] = "zzz"
	if err := s.Add(&File{Path: "a/a"}); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range s.Files() {
		files = append(files, f.Path)
	}
	if want := []string{"a/a", "a/y", "b/x", "c"}; !slices.Equal(s.Paths(), want) || !slices.Equal(files, want) {
		t.Fatalf("after an Add: paths %v, files %v, want %v", s.Paths(), files, want)
	}
}

// TestSetOrder: a set lists its files in path order however they were
// added, in order (kept as they come), out of order (sorted when asked),
// or both, between askings.
func TestSetOrder(t *testing.T) {
	for _, adds := range [][]string{
		{"a/b", "a/c", "b"},
		{"b", "a/c", "a/b"},
		{"a/b", "b", "a/c", "c", "a"},
	} {
		s := New()
		var want []string
		for _, p := range adds {
			if err := s.Add(&File{Path: p}); err != nil {
				t.Fatal(err)
			}
			want = append(want, p)
			slices.Sort(want)
			if got := s.Paths(); !slices.Equal(got, want) {
				t.Fatalf("after adding %q of %q: %q, want %q", p, adds, got, want)
			}
			var files []string
			for _, f := range s.Files() {
				files = append(files, f.Path)
			}
			if !slices.Equal(files, want) {
				t.Fatalf("after adding %q of %q: files %q, want %q", p, adds, files, want)
			}
		}
	}
}

// TestMergeUnderPrefix: Merge's joined paths are path.Join's, and a
// prefix that would leave the root (or join to an invalid path) fails as
// Add fails, on the fast path for a one-part name and the careful one
// for the rest.
func TestMergeUnderPrefix(t *testing.T) {
	for _, tc := range []struct {
		prefix string
		want   []string // nil: an error
	}{
		{"trt", []string{"trt/a.txt", "trt/d/b.txt"}},
		{"a/b", []string{"a/b/a.txt", "a/b/d/b.txt"}},
		{"", []string{"a.txt", "d/b.txt"}},
		{".", []string{"a.txt", "d/b.txt"}},
		{"..", nil},
		{"/abs", nil},
		{"x/../..", nil},
	} {
		other := New()
		for _, p := range []string{"d/b.txt", "a.txt"} {
			if err := other.Add(&File{Path: p}); err != nil {
				t.Fatal(err)
			}
		}
		s := New()
		err := s.Merge(tc.prefix, other)
		if tc.want == nil {
			if err == nil {
				t.Errorf("Merge(%q): %v, want an error", tc.prefix, s.Paths())
			}
			continue
		}
		if err != nil || !slices.Equal(s.Paths(), tc.want) {
			t.Errorf("Merge(%q) = %v, %v; want %v", tc.prefix, s.Paths(), err, tc.want)
		}
	}
	s := New()
	_ = s.Add(&File{Path: "trt/a.txt"})
	other := New()
	_ = other.Add(&File{Path: "a.txt"})
	if err := s.Merge("trt", other); err == nil {
		t.Errorf("a merged path already in the set: want the duplicate refused")
	}
}
