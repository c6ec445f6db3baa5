package render

import (
	"sync"
	"testing"
	"testing/fstest"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/ir/irtest"
)

// sharedAsks is an ir.Reuse.Shared that records the keys it is asked
// about, by path, and vouches for the keys in keep.
type sharedAsks struct {
	mu   sync.Mutex
	keys map[string]string
	keep map[string]bool
}

func (s *sharedAsks) shared(path, key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[path] = key
	return s.keep[key]
}

// TestPackageKeepsSharedFiles: a shared file of keyed sections is asked
// about with a key that follows its bytes, not its ops' keys. An op whose
// key changed but whose section did not leaves the key as it was, and a
// vouched key leaves the file unrendered; a changed section, frame or
// header changes the key, moved regions do not. A file with a section
// that has no key (no op, unkeyed sections) is never asked about.
func TestPackageKeepsSharedFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"t/f.tmpl":    {Data: []byte("frame {{ .Frame }}\n{{ .A }}end\n")},
		"t/item.tmpl": {Data: []byte(`{{ define "item" }}<{{ . }}>{{ "\n" }}{{ end }}`)},
	}
	s, err := Load(fsys, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	type data struct {
		Frame string
		A     *Joined
	}
	op0, op1 := &ir.Op{Name: "Zero"}, &ir.Op{Name: "One"}
	store := irtest.NewSections()
	asks := &sharedAsks{keys: map[string]string{}, keep: map[string]bool{}}
	// render renders f.tmpl with the ops' keys and items, the file's frame
	// and header source; keyed: its sections are KeyedSectionsOf, with
	// op1 given as nil when noKey; moved: the file carries moved code.
	render := func(k0, k1 string, items []string, frame, source string, keyed, noKey, moved bool) (key string, f []byte, kept bool) {
		t.Helper()
		pkg := &ir.Package{Name: "P", Source: source, Ops: []*ir.Op{op0, op1}}
		pkg.Reuse = &ir.Reuse{Keys: map[*ir.Op]string{op0: k0, op1: k1}, Sections: store, Shared: asks.shared}
		var j *Joined
		switch ops := []*ir.Op{op0, op1}; {
		case !keyed:
			j, err = Sections(s, "item", items)
		case noKey:
			j, err = KeyedSectionsOf(s, pkg, "item", []*ir.Op{op0, nil}, func(i int) string { return items[i] })
		default:
			j, err = KeyedSections(s, pkg, "item", items, ops)
		}
		if err != nil {
			t.Fatal(err)
		}
		file := File{Path: "f.txt", Tmpl: "f.tmpl", Data: data{frame, j}}
		if moved {
			file.Moved = map[string]string{"r": "elsewhere"}
		}
		delete(asks.keys, "P/f.txt")
		var l diag.List
		set := s.Package(pkg, []File{file}, l.ForTarget("t"))
		if l.HasErrors() || set.Len() != 1 {
			t.Fatalf("%v", l.Sorted())
		}
		got := set.Files()[0]
		return asks.keys["P/f.txt"], got.Data, got.Kept
	}
	first, data1, kept := render("k0", "k1", []string{"a", "b"}, "F", "opdefs/p.yaml", true, false, false)
	if first == "" || kept || string(data1) == "" {
		t.Fatalf("first render: key %q, kept %v, %q", first, kept, data1)
	}
	asks.keep[first] = true
	if key, data, kept := render("k0-changed", "k1", []string{"a", "b"}, "F", "opdefs/p.yaml", true, false, false); key != first || !kept || data != nil {
		t.Errorf("an op's key changed, its section not: key %q (want %q), kept %v, data %q", key, first, kept, data)
	}
	// Moved regions do not reach the key: the file on disk is the one the
	// last gen merged, which holds none of them.
	if key, _, kept := render("k0", "k1", []string{"a", "b"}, "F", "opdefs/p.yaml", true, false, true); key != first || !kept {
		t.Errorf("a file with moved regions: key %q (want %q), kept %v", key, first, kept)
	}
	for _, c := range []struct {
		name                string
		k0                  string
		items               []string
		frame, source       string
		keyed, noKey, moved bool
		asked               bool
	}{
		{"a section changed", "k0-new", []string{"c", "b"}, "F", "opdefs/p.yaml", true, false, false, true},
		{"the frame changed", "k0", []string{"a", "b"}, "G", "opdefs/p.yaml", true, false, false, true},
		{"the header changed", "k0", []string{"a", "b"}, "F", "opdefs/q.yaml", true, false, false, true},
		{"sections not keyed", "k0", []string{"a", "b"}, "F", "opdefs/p.yaml", false, false, false, false},
		{"a section with no op", "k0", []string{"a", "b"}, "F", "opdefs/p.yaml", true, true, false, false},
	} {
		key, data, kept := render(c.k0, "k1", c.items, c.frame, c.source, c.keyed, c.noKey, c.moved)
		switch {
		case kept || data == nil:
			t.Errorf("%s: the file was kept", c.name)
		case c.asked && (key == "" || key == first):
			t.Errorf("%s: asked with key %q, want a new one (the first was %q)", c.name, key, first)
		case !c.asked && key != "":
			t.Errorf("%s: asked with key %q, want never asked", c.name, key)
		}
	}
}

// TestFrameKeyReadsOneWay: a frame's key tells apart what the same bytes
// cut another way would otherwise give: sums moved between marks, a sum
// split in two, frame text that spells a mark's encoding.
func TestFrameKeyReadsOneWay(t *testing.T) {
	j := func(sums ...string) *Joined { return &Joined{sums: append([]string{}, sums...)} }
	out := []byte("abMcdMef")
	marks := func(a, b *Joined) []joinedMark { return []joinedMark{{2, 3, a}, {5, 6, b}} }
	keys := map[string]string{}
	for name, m := range map[string][]joinedMark{
		"x|y":     marks(j("x"), j("y")),
		"xy|":     marks(j("x", "y"), j()),
		"|xy":     marks(j(), j("x", "y")),
		"xy-one|": marks(j("xy"), j()),
		"x|y+":    marks(j("x"), j("y", "")),
	} {
		k := frameKey(out, m, "head")
		if k == "" {
			t.Fatalf("%s: no key", name)
		}
		if other, dup := keys[k]; dup {
			t.Errorf("%s and %s have one key", name, other)
		}
		keys[k] = name
	}
	if k := frameKey(out, marks(j("x"), &Joined{}), "head"); k != "" {
		t.Errorf("a Joined with no sums gave key %q", k)
	}
	if frameKey(out, marks(j("x"), j("y")), "head") == frameKey(out, marks(j("x"), j("y")), "head2") {
		t.Error("the header line is not in the key")
	}
}
