package gen

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestSeenStatIsTakenOnce: Prefetch's walk and Reusable share one stat of
// each file; whichever asks first takes it, and what it saw is the answer
// for the other (the writer looks again), not a second stat.
func TestSeenStatIsTakenOnce(t *testing.T) {
	out := t.TempDir()
	path := filepath.Join(out, "a.txt")
	if err := os.WriteFile(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	var s seenStat
	var wg sync.WaitGroup
	published := make([]bool, 8)
	for i := range published {
		wg.Add(1)
		go func() {
			defer wg.Done()
			published[i] = s.take(out, "a.txt")
		}()
	}
	wg.Wait()
	if !s.take(out, "a.txt") || !s.ok || s.st.Size != 3 {
		t.Fatalf("after every take: published %v, ok %v, size %d; want the file's stat", published, s.ok, s.st.Size)
	}
	first := s.st
	if err := os.WriteFile(path, []byte("longer now"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !s.take(out, "a.txt") || s.st != first {
		t.Fatalf("a second take stat'ed again: %+v, want the first %+v", s.st, first)
	}
	var missing seenStat
	if !missing.take(out, "none.txt") || missing.ok {
		t.Fatalf("a missing file: want a published stat that is not ok")
	}
}
