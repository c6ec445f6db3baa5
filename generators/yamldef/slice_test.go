package yamldef

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/yamldef/yamldeftest"
)

// nodeDiff names the first difference between two trees ("": none),
// every field compared (an alias's target by its anchor).
func nodeDiff(a, b *yaml.Node, path string) string {
	switch {
	case a == nil || b == nil:
		if a != b {
			return path + ": one tree ends"
		}
		return ""
	case a.Kind != b.Kind, a.Style != b.Style, a.Tag != b.Tag, a.Value != b.Value, a.Anchor != b.Anchor,
		a.HeadComment != b.HeadComment, a.LineComment != b.LineComment, a.FootComment != b.FootComment,
		a.Line != b.Line, a.Column != b.Column, len(a.Content) != len(b.Content), (a.Alias == nil) != (b.Alias == nil):
		return fmt.Sprintf("%s: %+v\nagainst %+v", path, *a, *b)
	case a.Alias != nil && a.Alias.Anchor != b.Alias.Anchor:
		return path + ": aliases differ"
	}
	for i := range a.Content {
		if d := nodeDiff(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// checkSliced holds ParseSliced of data, with what chunks holds, to
// Parse: the same tree, or the same diagnostics.
func checkSliced(t *testing.T, name string, data []byte, chunks Chunks) {
	t.Helper()
	var want, got diag.List
	wantDoc, wantOK := Parse("f.yaml", data, &want)
	gotDoc, gotOK := ParseSliced("f.yaml", data, chunks, &got)
	if gotOK != wantOK || fmt.Sprint(got.Sorted()) != fmt.Sprint(want.Sorted()) {
		t.Fatalf("%s: ParseSliced ok=%v %v, Parse ok=%v %v\n%s", name, gotOK, got.Sorted(), wantOK, want.Sorted(), data)
	}
	if wantOK {
		if d := nodeDiff(gotDoc, wantDoc, ""); d != "" {
			t.Fatalf("%s: ParseSliced's tree differs from Parse's at %s\n%s", name, d, data)
		}
	}
}

// editLines makes a random edit of an opdef's lines: what a user does to
// one op (a value changed, a line or comment added, an item copied or
// removed), and what stops the file from being cut (comments between
// items, open quotes, anchors, keep-chomped block scalars, tabs).
func editLines(r *rand.Rand, lines []string) []string {
	out := append([]string(nil), lines...)
	if len(out) == 0 {
		return []string{"ops:"}
	}
	i := r.Intn(len(out))
	ind := len(out[i]) - len(strings.TrimLeft(out[i], " "))
	pad := strings.Repeat(" ", ind)
	switch r.Intn(18) {
	case 0:
		out[i] = strings.Replace(out[i], "1", "2", 1)
	case 1:
		out = insert(out, i, pad+"# a note")
	case 2:
		out = insert(out, i, "")
	case 3:
		out = insert(out, i, pad+"description: \"open")
	case 4:
		out = insert(out, i, pad+"description: |+\n"+pad+"  kept\n")
	case 5:
		out[i] = out[i] + " # line note"
	case 6:
		out = insert(out, i, "# top note")
	case 7:
		out = append(out[:i], out[i+1:]...)
	case 8: // copy an item's lines
		j := min(len(out), i+1+r.Intn(12))
		out = append(out[:j], append(append([]string(nil), out[i:j]...), out[j:]...)...)
	case 9:
		out[i] = strings.Replace(out[i], "name: ", "name: &a ", 1)
	case 10:
		out = insert(out, i, pad+"x: *a")
	case 11:
		out[i] = "\t" + out[i]
	case 12:
		out = insert(out, i, pad+"  - {name: extra, type: float32}")
	case 13:
		out = insert(out, i, pad+"description: >-\n"+pad+"  folded\n"+pad+"  text")
	case 14:
		out[i] = " " + out[i]
	case 16: // a flow closed on a line at column 0
		out = insert(out, i, pad+"x: [a,\nb]")
	case 17: // a quote closed on a line at column 0
		out = insert(out, i, pad+"x: \"a\nb\"")
	default:
		out[i] = strings.Replace(out[i], "float32", "float16", 1)
	}
	return out
}

func insert(s []string, i int, v string) []string {
	return append(s[:i], append([]string{v}, s[i:]...)...)
}

// editRand is the random source of a test's edits: a new seed each run,
// or OPFORGE_SLICE_SEED's, logged so that a failure can be replayed.
func editRand(t *testing.T) *rand.Rand {
	seed := rand.Int63()
	if s := os.Getenv("OPFORGE_SLICE_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d (replay: OPFORGE_SLICE_SEED=%d go test ./generators/yamldef -run %s)", seed, seed, t.Name())
	return rand.New(rand.NewSource(seed))
}

// opdefTexts are the YAML opdefs under testdata.
func opdefTexts(t testing.TB) map[string][]byte {
	texts := map[string][]byte{}
	_ = filepath.WalkDir("../../testdata", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") && strings.Contains(path, "opdefs") {
			if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), "\nops:") {
				texts[path] = data
			}
		}
		return nil
	})
	if len(texts) == 0 {
		t.Fatal("no opdefs under testdata")
	}
	return texts
}

// TestParseSlicedIsParse: over random edit sequences of every YAML opdef
// under testdata, a file parsed in chunks (its unchanged items from the
// store) has the tree Parse gives, or Parse's diagnostics.
func TestParseSlicedIsParse(t *testing.T) {
	r := editRand(t)
	served, files := 0, 0
	for path, data := range opdefTexts(t) {
		chunks := yamldeftest.NewChunks()
		checkSliced(t, path, data, chunks)
		if _, ok := sliceOps(data); ok {
			files++
		}
		lines := strings.Split(string(data), "\n")
		for step := 0; step < 12; step++ {
			lines = editLines(r, lines)
			checkSliced(t, fmt.Sprintf("%s, step %d", path, step), []byte(strings.Join(lines, "\n")), chunks)
		}
		served += chunks.Served()
	}
	t.Logf("%d files cut into items, %d items served from the store", files, served)
	if files == 0 || served == 0 {
		t.Fatalf("%d files cut, %d items served: the test checked nothing", files, served)
	}
}

// TestParseSlicedMovesItems: an item served from the store after lines
// were added above it has its new lines, and a file whose items all come
// from the store is put together too.
func TestParseSlicedMovesItems(t *testing.T) {
	base := "version: 1\npackage: {name: P, domain: p}\nops:\n  - name: A\n    description: first\n\n  - name: B\n    # about B\n    description: |\n      two\n      lines\n    inputs: [{name: x, type: float32, shape: [N]}]\ntargets: {}\n"
	chunks := yamldeftest.NewChunks()
	checkSliced(t, "base", []byte(base), chunks)
	moved := strings.Replace(base, "description: first\n", "description: first\n    summary: more\n\n", 1)
	before := chunks.Served()
	checkSliced(t, "moved", []byte(moved), chunks)
	if chunks.Served()-before != 1 {
		t.Errorf("%d items served from the store, want B's", chunks.Served()-before)
	}
	before = chunks.Served()
	checkSliced(t, "again", []byte(moved), chunks)
	if chunks.Served()-before != 2 {
		t.Errorf("%d items served from the store, want both", chunks.Served()-before)
	}
}

// TestItemCodec: a kept item reads back, and a cut or padded record is
// refused.
func TestItemCodec(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("ops:\n  - name: A # c\n    # h\n    x: [1, \"two\", {k: v}]\n    y: |\n      z\n"), &doc); err != nil {
		t.Fatal(err)
	}
	item := doc.Content[0].Content[1].Content[0]
	enc := string(encodeItem(item, 2))
	got, ok := decodeItem(enc, 2)
	if !ok {
		t.Fatal("not read back")
	}
	if d := nodeDiff(got, item, ""); d != "" {
		t.Fatal(d)
	}
	for n := 0; n < len(enc); n++ {
		if _, ok := decodeItem(enc[:n], 2); ok {
			t.Errorf("read back cut to %d of %d bytes", n, len(enc))
		}
	}
	if _, ok := decodeItem(enc+"\x00", 2); ok {
		t.Error("read back with a byte more")
	}
}

// FuzzParseSliced: whatever a file is and however it is then edited
// (editLines, from seed), ParseSliced of each version, with the earlier
// versions' items in the store, is Parse.
func FuzzParseSliced(f *testing.F) {
	for _, data := range opdefTexts(f) {
		f.Add(data, int64(len(data)))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed int64) {
		if len(data) > 1<<16 {
			return
		}
		chunks := yamldeftest.NewChunks()
		checkSliced(t, "before", data, chunks)
		r := rand.New(rand.NewSource(seed))
		lines := strings.Split(string(data), "\n")
		for step := 0; step < 4; step++ {
			lines = editLines(r, lines)
			checkSliced(t, fmt.Sprintf("step %d", step), []byte(strings.Join(lines, "\n")), chunks)
		}
	})
}

// TestParseSlicedReviewCases: files an independent review found parsed
// in chunks to another tree than Parse's, each parsed once to fill the
// store and then as it is or edited.
func TestParseSlicedReviewCases(t *testing.T) {
	cases := []struct{ name, before, after string }{
		{"a flow continued at column 0, then closed no more",
			"version: 1\npackage: {name: P, domain: t, version: 1.0.0}\nops:\n  - name: Gelu\n    inputs:\n      - {name: x, type: [float32, float16], rank: any}\n    outputs: [{name: y, type: [float32, float16], rank: any},\n{name: z, type: float32, rank: any}]\n",
			"version: 1\npackage: {name: P, domain: t, version: 1.0.0}\nops:\n  - name: Gelu\n    inputs:\n      - {name: x, type: [float32, float16], rank: any}\n    outputs: [{name: y, type: [float32, float16], rank: any},\n"},
		{"a flow continued at column 0", "ops:\n  - x: [a,\nfoo: b]\n", "ops:\n  - x: [a,\nfoo: b]\n"},
		{"a quote continued at column 0", "ops:\n  - name: \"A\nfoo: bar\"\n", "ops:\n  - name: \"A\nfoo: bar\"\n"},
		{"a quote left open", "ops:\n  - name: \"A\nfoo: bar\"\n", "ops:\n  - name: \"A\n"},
		{"a root flow mapping", "{a: 1,\nops:\n  - x\n}\n", "{a: 1,\nops:\n  - x\n}\n"},
		{"a line separator", "ops:\n  - name: \"a\u2028b\"\n  - name: B\n", "ops:\n  - name: \"a\u2028b\"\n  - name: B\n"},
		{"a next line", "ops:\n  - name: \"a\u0085b\"\n  - name: B\n", "ops:\n  - name: \"a\u0085b\"\n  - name: C\n"},
		// yaml.v3 gives the comment of an item that holds only it to the
		// next item, whose text would then be stored with it.
		{"an item holding only a comment", "ops:\n- x: 0\n- y: 1\n- #c\n- a\n- z: 2\n", "ops:\n- x: 0\n- a\n"},
		{"an item holding only a comment, indented", "ops:\n  - name: A\n  -   # TODO\n  - name: B\n", "ops:\n  - name: B\n"},
		{"the file's last item holding only a comment", "#\nops:\n- #0", "#\nops:\n- #0\n"},
	}
	for _, c := range cases {
		chunks := yamldeftest.NewChunks()
		checkSliced(t, c.name+", before", []byte(c.before), chunks)
		checkSliced(t, c.name+", after", []byte(c.after), chunks)
		checkSliced(t, c.name+", again", []byte(c.after), chunks)
	}
}

// TestParseSlicedInRuns: a file of many new items, some neighbours of
// stored ones, parses in runs of several items (parse cuts the new items
// into about 4 runs a core, never across a stored item), each run to the
// tree Parse gives, on any number of cores.
func TestParseSlicedInRuns(t *testing.T) {
	n := 24*runtime.GOMAXPROCS(0) + 40
	var sb strings.Builder
	sb.WriteString("version: 1\nops:\n")
	for i := range n {
		fmt.Fprintf(&sb, "  - name: Op%d\n    attrs: {k: %d, s: \"x%d\"}\n    list:\n      - %d\n", i, i, i, i)
	}
	chunks := yamldeftest.NewChunks()
	checkSliced(t, "cold", []byte(sb.String()), chunks)
	// Every third item edited: runs of two new items between stored ones.
	lines := strings.Split(sb.String(), "\n")
	for i := range lines {
		if strings.HasPrefix(lines[i], "  - name: Op") {
			var k int
			fmt.Sscanf(lines[i], "  - name: Op%d", &k)
			if k%3 != 0 {
				lines[i] += "Edited"
			}
		}
	}
	checkSliced(t, "two of three edited", []byte(strings.Join(lines, "\n")), chunks)
}

func TestItemRuns(t *testing.T) {
	for _, c := range []struct {
		indexes []int
		size    int
		want    string
	}{
		{nil, 3, "[]"},
		{[]int{4}, 3, "[[4]]"},
		{[]int{0, 1, 2, 3, 4, 5, 6}, 3, "[[0 1 2] [3 4 5] [6]]"},
		{[]int{0, 1, 3, 4, 5, 9}, 8, "[[0 1] [3 4 5] [9]]"},
		{[]int{1, 2, 4, 5}, 1, "[[1] [2] [4] [5]]"},
	} {
		if got := fmt.Sprint(itemRuns(c.indexes, c.size)); got != c.want {
			t.Errorf("itemRuns(%v, %d) = %s, want %s", c.indexes, c.size, got, c.want)
		}
	}
}
