package writer

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
)

// TestMarshalManifest: the hand-written encoder writes what
// json.MarshalIndent writes, for the shapes a manifest takes.
func TestMarshalManifest(t *testing.T) {
	cases := []*Manifest{
		{Version: 2},
		{Version: 2, Files: []ManifestFile{}},
		{Version: 2, Files: []ManifestFile{{Path: "a/b.cpp"}}},
		{Version: 1, Files: []ManifestFile{
			{Path: "trt/P/src/ops/OpPlugin.cpp", Owned: true, Hash: "0123abcd", Regions: map[string]string{"z": "1", "a:b": "2", "impl:Op": "3"}},
			{Path: "trt/P/README.md", Hash: "ffee"},
			{Path: "odd \"quoted\" <path> & \\ \u00e9\u2028 \x01", Hash: "h", Regions: map[string]string{"<k>": "\xff"}},
			{Path: "x", Owned: true, Regions: map[string]string{}},
		}},
		{Version: 2, Files: []ManifestFile{{Path: "p"}}, Move: &Move{}},
	}
	for i, m := range cases {
		want, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if got := marshalManifest(m); !bytes.Equal(got, want) {
			t.Errorf("case %d:\ngot  %s\nwant %s", i, got, want)
		}
	}
}

// FuzzMarshalManifest holds the encoder to the library on any strings.
func FuzzMarshalManifest(f *testing.F) {
	f.Add("trt/P/a.cpp", "abc", "impl:Op", "def", true)
	f.Add("<&>\u2029", "\xfe", "k\"", "\\", false)
	f.Fuzz(func(t *testing.T, path, hash, key, val string, owned bool) {
		m := &Manifest{Version: 2, Files: []ManifestFile{{Path: path, Owned: owned, Hash: hash, Regions: map[string]string{key: val, key + "2": hash}}, {Path: key}}}
		want, _ := json.MarshalIndent(m, "", "  ")
		if got := marshalManifest(m); !bytes.Equal(got, want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	})
}

// FuzzUnmarshalManifest holds the hand reader to the library: on any bytes
// it accepts, the same manifest; on every manifest the writer writes (one
// built from the fuzzed strings), acceptance.
func FuzzUnmarshalManifest(f *testing.F) {
	f.Add([]byte(`{"version": 2, "files": []}`), "trt/P/a.cpp", "abc", "impl:Op", true)
	f.Add(marshalManifest(&Manifest{Version: 2, Files: []ManifestFile{{Path: "a", Owned: true, Hash: "h", Regions: map[string]string{"k": "v", "l": "w"}}, {Path: "b"}}}), "<&>", "\xfe", "k\"", false)
	f.Fuzz(func(t *testing.T, data []byte, path, hash, key string, owned bool) {
		if m, ok := parseCanonicalManifest(data); ok {
			var want Manifest
			if err := json.Unmarshal(data, &want); err != nil || !reflect.DeepEqual(m, &want) {
				t.Errorf("%q: read by hand %+v, the library: %+v, %v", data, m, want, err)
			}
			checkRawEntries(t, data)
		}
		written := &Manifest{Version: 2, Files: []ManifestFile{{Path: path, Owned: owned, Hash: hash, Regions: map[string]string{key: hash}}, {Path: key}}}
		data = marshalManifest(written)
		got, err := unmarshalManifest(data)
		var want Manifest
		json.Unmarshal(data, &want)
		if err != nil || !reflect.DeepEqual(got, &want) {
			t.Errorf("%q: read %+v, %v; the library: %+v", data, got, err, want)
		}
		if plain := !strings.ContainsFunc(path+hash+key, func(r rune) bool { return r < 0x20 || r >= 0x7f || strings.ContainsRune("\"\\<>&", r) }); plain {
			if _, ok := parseCanonicalManifest(data); !ok {
				t.Errorf("%q: the hand reader refused what the writer wrote", data)
			}
		}
	})
}

// TestJournalReadsBack: the journal marshalJournal writes reads back
// (encoding/json, as readPending reads it) as what json.Marshal of the
// list reads back as.
func TestJournalReadsBack(t *testing.T) {
	ms := []Manifest{
		{Version: 2},
		{Version: 2, Files: []ManifestFile{{Path: "trt/P/a.cpp", Owned: true, Hash: "h", Regions: map[string]string{"impl:Op": "1", "<k>": "\xff"}}, {Path: "odd \"p\" \u2028"}}},
		{Version: 2, Files: []ManifestFile{{Path: "p"}}, Move: &Move{What: "op", From: "A", To: "B", Files: []MoveFile{{Path: "trt/P/src/ops/APlugin.cpp"}}}},
	}
	for n := 1; n <= len(ms); n++ {
		var want []Manifest
		lib, _ := json.Marshal(ms[:n])
		if err := json.Unmarshal(lib, &want); err != nil {
			t.Fatal(err)
		}
		// The last manifest encoded with the others, or given encoded as
		// the plan's manifest file holds it (applier.journal).
		last := marshalManifest(&ms[n-1])
		for _, data := range [][]byte{marshalJournal(ms[:n], nil), marshalJournal(ms[:n-1], last)} {
			var got []Manifest
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("%d manifests: %v", n, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%d manifests read back as\n%+v\nnot\n%+v", n, got, want)
			}
		}
	}
}

// checkRawEntries: a manifest written with the entries' bytes as read
// (parseCanonical's raws) is the manifest written afresh.
func checkRawEntries(t *testing.T, data []byte) {
	t.Helper()
	eager, raws, ok := parseCanonical(bytes.Clone(data), false)
	if !ok {
		return
	}
	lazy, lazyRaws, ok := parseCanonical(bytes.Clone(data), true)
	if !ok || !reflect.DeepEqual(raws, lazyRaws) {
		t.Fatalf("%q: read lazily: %v, entries %q, not %q", data, ok, lazyRaws, raws)
	}
	want := marshalManifest(eager)
	for _, m := range []*Manifest{eager, lazy} {
		got := marshalManifestWith(m, func(i int) string { return raws[i] })
		if !bytes.Equal(got, want) {
			t.Errorf("%q: written from the entries read\n%s\nnot\n%s", data, got, want)
		}
		if got := marshalManifest(m); !bytes.Equal(got, want) {
			t.Errorf("%q: written afresh\n%s\nnot\n%s", data, got, want)
		}
	}
	for i := range lazy.Files {
		if got := lazy.Files[i].regions(); !reflect.DeepEqual(got, eager.Files[i].Regions) {
			t.Errorf("%q: entry %d's regions made lazily %v, not %v", data, i, got, eager.Files[i].Regions)
		}
	}
	moved := *lazy
	moved.Move = &Move{What: "op", From: "A", To: "B"}
	eagerMoved := *eager
	eagerMoved.Move = moved.Move
	if got, want := marshalManifest(&moved), marshalManifest(&eagerMoved); !bytes.Equal(got, want) {
		t.Errorf("%q: a rename's journal entry\n%s\nnot\n%s", data, got, want)
	}
	lazy.decodeRegions()
	if !reflect.DeepEqual(lazy, eager) {
		t.Errorf("%q: a lazy manifest decoded is %+v, not %+v", data, lazy, eager)
	}
}

// TestRawEntries: entries read from manifests in the writer's layout but
// not as it writes them (escapable bytes, an empty hash or region map,
// keys out of order or repeated) are written afresh, the others copied.
func TestRawEntries(t *testing.T) {
	entry := func(body string) []byte {
		return []byte("{\n  \"version\": 2,\n  \"files\": [\n    {\n      \"path\": \"a\"" + body + "\n    },\n    {\n      \"path\": \"b\",\n      \"hash\": \"h\"\n    }\n  ]\n}\n")
	}
	for _, c := range []struct {
		body   string
		copied bool
	}{
		{",\n      \"owned\": true,\n      \"hash\": \"h\",\n      \"regions\": {\n        \"k\": \"v\",\n        \"l\": \"w\"\n      }", true},
		{",\n      \"hash\": \"h<\"", false},
		{",\n      \"hash\": \"\"", false},
		{",\n      \"regions\": {\n        \"l\": \"v\",\n        \"k\": \"w\"\n      }", false},
		{",\n      \"regions\": {\n        \"k\": \"v\",\n        \"k\": \"w\"\n      }", false},
	} {
		data := entry(c.body)
		_, raws, ok := parseCanonical(data, true)
		if !ok {
			t.Fatalf("%q: not read", c.body)
		}
		if copied := raws[0] != ""; copied != c.copied || raws[1] == "" {
			t.Errorf("%q: copied %v, want %v (second entry %q)", c.body, copied, c.copied, raws[1])
		}
		checkRawEntries(t, data)
	}
}

// TestJournalFramesThePlansManifest: with no other journal pending, the
// journal Apply writes is the plan's manifest encoded once, framed as a
// list ("[" + the manifest file's bytes + "]\n", sharing them), and reads
// back as that manifest; with one pending it lists both.
func TestJournalFramesThePlansManifest(t *testing.T) {
	root := t.TempDir()
	apply(t, root, set(plain("a.txt", "a\n")))
	for _, pending := range []bool{false, true} {
		var l diag.List
		p := PrepareWith(root, set(plain("a.txt", "changed\n"), plain("b.txt", "b\n")), Options{}, &l)
		if l.HasErrors() {
			t.Fatal(l.Sorted())
		}
		if pending {
			p.pending = []Manifest{{Version: manifestVersion}}
		}
		f := p.Files.Get(ManifestName)
		data := (&applier{p: p}).journal(*p.manifest)
		var got []Manifest
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("pending=%v: the journal does not read back: %v\n%s", pending, err, data)
		}
		var want Manifest
		if err := json.Unmarshal(f.Data, &want); err != nil {
			t.Fatal(err)
		}
		if n := len(got); n != 1+len(p.pending) || !reflect.DeepEqual(got[n-1], want) {
			t.Fatalf("pending=%v: the journal lists %d manifests, the last %+v, not the plan's %+v", pending, n, got[n-1], want)
		}
		framed := string(data) == "["+string(f.Data)+"]\n"
		if shares := &data[1] == &f.Data[0]; framed != shares || framed == pending {
			t.Errorf("pending=%v: framed %v, shares the manifest's bytes %v", pending, framed, shares)
		}
	}
}
