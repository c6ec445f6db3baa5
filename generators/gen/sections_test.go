package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestSectionStore: records survive a store, a new gen appends what it
// rendered, a damaged tail or a flipped byte keeps the records before
// it, and a store mostly unused is rewritten with the used records only.
func TestSectionStore(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	open := func() *sectionStore { return newSectionStore(cache) }
	get := func(s *sectionStore, k string) string {
		v, ok := s.Section(k)
		if !ok {
			return "<none>"
		}
		return v
	}

	s := open()
	for i := 0; i < 8; i++ {
		s.Remember(fmt.Sprint("k", i), fmt.Sprint("section ", i))
	}
	if err := s.store(); err != nil {
		t.Fatal(err)
	}
	full, _ := os.ReadFile(s.path)

	// A gen that uses all eight and renders a ninth appends it.
	s = open()
	for i := 0; i < 8; i++ {
		if got := get(s, fmt.Sprint("k", i)); got != fmt.Sprint("section ", i) {
			t.Fatalf("k%d: %q", i, got)
		}
	}
	s.Remember("k8", "section 8")
	if err := s.store(); err != nil {
		t.Fatal(err)
	}
	appended, _ := os.ReadFile(s.path)
	if len(appended) <= len(full) || string(appended[:len(full)]) != string(full) {
		t.Fatalf("the ninth record was not appended (%d -> %d bytes)", len(full), len(appended))
	}
	if got := get(open(), "k8"); got != "section 8" {
		t.Fatalf("k8 after the append: %q", got)
	}

	// An append cut short keeps every record before it.
	if err := os.WriteFile(s.path, appended[:len(appended)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	s = open()
	if got, got8 := get(s, "k7"), get(s, "k8"); got != "section 7" || got8 != "<none>" {
		t.Fatalf("cut short: k7 %q, k8 %q", got, got8)
	}
	// A flipped byte in the first record's text drops it and all after.
	flipped := append([]byte(nil), appended...)
	flipped[len(sectionsMagic)+5] ^= 0x20
	if err := os.WriteFile(s.path, flipped, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := get(open(), "k0"); got != "<none>" {
		t.Fatalf("flipped: k0 %q", got)
	}

	// A damaged file is rewritten whole, and one mostly unused keeps the
	// used records only.
	if err := os.WriteFile(s.path, appended, 0o644); err != nil {
		t.Fatal(err)
	}
	s = open()
	get(s, "k0")
	s.Remember("new", "fresh")
	if err := s.store(); err != nil {
		t.Fatal(err)
	}
	s = open()
	if got, gone := get(s, "new"), get(s, "k1"); got != "fresh" || gone != "<none>" {
		t.Fatalf("rewrite: new %q, k1 %q", got, gone)
	}
	if got := get(s, "k0"); got != "section 0" {
		t.Fatalf("rewrite lost a used record: %q", got)
	}
}

// TestSectionStoreCountsWhatItUsed: a record counts as used whether a gen
// took it or rendered it again, and the file is rewritten only once more
// than a quarter of its records went unused, the quarter itself kept.
func TestSectionStoreCountsWhatItUsed(t *testing.T) {
	const records = 8
	cases := []struct {
		name              string
		took, rendered    int // of the eight, the first took, the next rendered again
		again             int // of those taken, the first rendered again too (counted once)
		rewritten, newRec bool
	}{
		{"taken and rendered again, over a quarter unused", 3, 0, 3, true, false},
		{"taken and rendered again, a quarter unused", 6, 0, 6, false, false},
		{"every record taken", 8, 0, 0, false, false},
		{"every record rendered again", 0, 8, 0, false, false},
		{"half each", 4, 4, 0, false, false},
		{"a quarter unused", 3, 3, 0, false, false},
		{"a quarter unused and one new", 3, 3, 0, false, true},
		{"over a quarter unused", 2, 3, 0, true, false},
		{"over a quarter unused and one new", 5, 0, 0, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "cache")
			s := newSectionStore(cache)
			for i := 0; i < records; i++ {
				s.Remember(fmt.Sprint("k", i), fmt.Sprint("section ", i))
			}
			if err := s.store(); err != nil {
				t.Fatal(err)
			}
			// The file's bytes and identity (a rewrite replaces it by a
			// rename; an append keeps it).
			read := func() ([]byte, os.FileInfo) {
				data, err := os.ReadFile(s.path)
				if err != nil {
					t.Fatal(err)
				}
				fi, err := os.Stat(s.path)
				if err != nil {
					t.Fatal(err)
				}
				return data, fi
			}
			before, beforeInfo := read()

			s = newSectionStore(cache)
			for i := 0; i < c.took; i++ {
				if _, ok := s.Section(fmt.Sprint("k", i)); !ok {
					t.Fatalf("k%d not stored", i)
				}
			}
			for i := c.took; i < c.took+c.rendered; i++ {
				s.Remember(fmt.Sprint("k", i), fmt.Sprint("section ", i))
			}
			for i := 0; i < c.again; i++ {
				s.Remember(fmt.Sprint("k", i), fmt.Sprint("section ", i))
			}
			if c.newRec {
				s.Remember("new", "fresh")
			}
			if err := s.store(); err != nil {
				t.Fatal(err)
			}
			after, afterInfo := read()
			kept := os.SameFile(beforeInfo, afterInfo) && len(after) >= len(before) && string(after[:len(before)]) == string(before)
			if kept == c.rewritten {
				t.Fatalf("rewritten: %v, want %v (%d -> %d bytes)", !kept, c.rewritten, len(before), len(after))
			}
			if !c.rewritten && !c.newRec && len(after) != len(before) {
				t.Fatalf("nothing new, yet the file grew %d -> %d bytes", len(before), len(after))
			}
			s = newSectionStore(cache)
			for i := 0; i < c.took+c.rendered; i++ {
				if v, ok := s.Section(fmt.Sprint("k", i)); !ok || v != fmt.Sprint("section ", i) {
					t.Errorf("used record k%d lost: %q %v", i, v, ok)
				}
			}
			if v, ok := s.Section("new"); c.newRec && (!ok || v != "fresh") {
				t.Errorf("new record: %q %v", v, ok)
			}
		})
	}
}
