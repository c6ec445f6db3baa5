// Package irtest holds what the tests of several packages share about the
// IR: a section store in memory (ir.SectionStore) that counts what it
// served, for the tests that hold per-op sections to whole files.
package irtest

import "sync"

// Sections is an ir.SectionStore in memory.
type Sections struct {
	mu     sync.Mutex
	texts  map[string]string
	served []string // the keys Section gave a text of, in order
}

// NewSections returns an empty store.
func NewSections() *Sections { return &Sections{texts: map[string]string{}} }

// Section implements ir.SectionStore.
func (s *Sections) Section(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.texts[key]
	if ok {
		s.served = append(s.served, key)
	}
	return t, ok
}

// Remember implements ir.SectionStore.
func (s *Sections) Remember(key, text string) {
	s.mu.Lock()
	s.texts[key] = text
	s.mu.Unlock()
}

// Served is how many sections Section gave.
func (s *Sections) Served() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.served)
}

// ServedKeys are the keys Section gave a text of, in order.
func (s *Sections) ServedKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.served...)
}

// Holds reports whether a section is kept under key.
func (s *Sections) Holds(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.texts[key]
	return ok
}
