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
