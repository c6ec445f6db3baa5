package ir

import (
	"testing"

	"github.com/opforge/opforge/generators/diag"
)

// TestWhere: a Where answers as the map it replaced did: the last Set of a
// field wins, a field never set is not found and At falls back.
func TestWhere(t *testing.T) {
	at := func(line int) diag.Pos { return diag.Pos{File: "f.yaml", Line: line, Col: 3} }
	var w Where
	if _, ok := w.Lookup("name"); ok {
		t.Fatal("an empty Where found a field")
	}
	if got := w.At("name", at(9)); got != at(9) {
		t.Fatalf("At of an empty Where: %v, want the fallback", got)
	}
	w.Set("name", at(1))
	w.Set("type", at(2))
	w.Set("name", at(3)) // a duplicate key: the later wins, as in a map
	if len(w) != 2 {
		t.Fatalf("Set of a field twice: %v, want it once", w)
	}
	for field, want := range map[string]diag.Pos{"name": at(3), "type": at(2)} {
		if got, ok := w.Lookup(field); !ok || got != want {
			t.Errorf("Lookup(%q) = %v, %v; want %v", field, got, ok, want)
		}
		if got := w.At(field, at(9)); got != want {
			t.Errorf("At(%q) = %v; want %v", field, got, want)
		}
	}
	if _, ok := w.Lookup("shape"); ok {
		t.Error("Lookup found a field never set")
	}
	if got := WhereOf("name", at(4)); len(got) != 1 || got.At("name", at(9)) != at(4) {
		t.Errorf("WhereOf: %v", got)
	}
}
