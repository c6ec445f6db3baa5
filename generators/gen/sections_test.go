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
