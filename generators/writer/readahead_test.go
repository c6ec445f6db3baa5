package writer

import (
	"slices"
	"testing"

	"github.com/opforge/opforge/generators/diag"
)

// TestReadAheadOnlyWhileUnchanged: a plan takes the manifest read ahead
// only while the manifest is the one read, and only once; otherwise it
// reads the manifest itself. Here a gen that wrote b.txt ran between the
// read and the plan, so only the manifest on disk knows b.txt is
// opforge's (stale now, not someone's file).
func TestReadAheadOnlyWhileUnchanged(t *testing.T) {
	root := t.TempDir()
	apply(t, root, set(plain("a.txt", "a\n")))
	stale := StartReadAhead(root)
	<-stale.done
	apply(t, root, set(plain("a.txt", "a\n"), plain("b.txt", "b\n")))
	var l diag.List
	p := PrepareWith(root, set(plain("a.txt", "a\n")), Options{ReadAhead: stale}, &l)
	if l.HasErrors() || !slices.Equal(p.Stale, []string{"b.txt"}) {
		t.Fatalf("manifest read ahead before a change: stale %v, diagnostics %v", p.Stale, l.Sorted())
	}

	fresh := StartReadAhead(root)
	for i := range 2 { // the second plan reads the manifest itself
		var l diag.List
		p := PrepareWith(root, set(plain("a.txt", "a\n")), Options{ReadAhead: fresh}, &l)
		if l.HasErrors() || !slices.Equal(p.Stale, []string{"b.txt"}) {
			t.Fatalf("plan %d with the manifest read ahead: stale %v, diagnostics %v", i, p.Stale, l.Sorted())
		}
		if took := len(p.oldManifest) > 0 && &p.oldManifest[0] == &fresh.data[0]; took != (i == 0) {
			t.Fatalf("plan %d took the manifest read ahead: %v", i, took)
		}
	}
}
