package ircodec_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/ir/ircodec"
	"github.com/opforge/opforge/generators/yamldef"
)

// lastLine is the last line of op's item for the codec: its LastLine, or
// any line when the front end gave none.
func lastLine(op *ir.Op) int {
	if op.LastLine > 0 {
		return op.LastLine
	}
	return 1 << 30
}

// testdataOps are the ops of every YAML opdef under testdata as the front
// end builds them (not validated: what the item store keeps).
func testdataOps(t testing.TB) (ops []*ir.Op, files []string) {
	t.Helper()
	_ = filepath.WalkDir("../../../testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		var l diag.List
		if pkg := yamldef.Load(path, data, &l); pkg != nil {
			for _, op := range pkg.Ops {
				ops = append(ops, op)
				files = append(files, path)
			}
		}
		return nil
	})
	if len(ops) < 100 {
		t.Fatalf("only %d ops under testdata", len(ops))
	}
	return ops, files
}

// TestRoundTrip: every op of every testdata opdef reads back as itself,
// and read back for another file and lower lines it is the same model
// moved there (written again there, the same bytes).
func TestRoundTrip(t *testing.T) {
	ops, files := testdataOps(t)
	carried := 0
	for i, op := range ops {
		first := op.Pos.Line
		data, ok := ircodec.Encode(op, files[i], first, lastLine(op))
		if !ok {
			continue
		}
		carried++
		got, ok := ircodec.Decode(string(data), files[i], first)
		if !ok {
			t.Fatalf("%s: op %s does not read back", files[i], op.Name)
		}
		if !reflect.DeepEqual(got, op) {
			t.Fatalf("%s: op %s reads back as\n%+v\nnot\n%+v", files[i], op.Name, got, op)
		}
		moved, ok := ircodec.Decode(string(data), "moved.yaml", first+7)
		if !ok {
			t.Fatalf("%s: op %s does not read back moved", files[i], op.Name)
		}
		if moved.Pos.Line != op.Pos.Line+7 || op.Pos.File != "" && moved.Pos.File != "moved.yaml" {
			t.Fatalf("%s: op %s moved to %v, want line %d of moved.yaml", files[i], op.Name, moved.Pos, op.Pos.Line+7)
		}
		again, ok := ircodec.Encode(moved, "moved.yaml", first+7, lastLine(op)+7)
		if !ok || !bytes.Equal(again, data) {
			t.Fatalf("%s: op %s moved does not write the same bytes", files[i], op.Name)
		}
	}
	t.Logf("%d of %d ops carried", carried, len(ops))
	// Every op the front end builds from an item holds positions in its
	// file within its own lines, and nothing else the codec refuses.
	if carried != len(ops) {
		t.Fatalf("only %d of %d ops carried", carried, len(ops))
	}
}

// TestRefuses: what a read-back model could not hold as the built one
// does is refused, not written wrong.
func TestRefuses(t *testing.T) {
	dim := &ir.Dim{Pos: diag.Pos{File: "f.yaml", Line: 5, Col: 3}}
	shared := &ir.Op{Name: "A", Pos: diag.Pos{File: "f.yaml", Line: 4}, Inputs: []*ir.Tensor{{Name: "x", Shape: []*ir.Dim{dim, dim}}}}
	for _, c := range []struct {
		name string
		op   *ir.Op
	}{
		{"a pointer reached twice", shared},
		{"a position in another file", &ir.Op{Name: "A", Pos: diag.Pos{File: "g.yaml", Line: 4}}},
		{"a position above the item", &ir.Op{Name: "A", Pos: diag.Pos{File: "f.yaml", Line: 3}}},
		{"a last line above the item", &ir.Op{Name: "A", Pos: diag.Pos{File: "f.yaml", Line: 4}, LastLine: 2}},
		{"a position below the item", &ir.Op{Name: "A", Pos: diag.Pos{File: "f.yaml", Line: 4}, Where: ir.WhereOf("x", diag.Pos{File: "f.yaml", Line: 12})}},
		{"a value behind an interface", &ir.Op{Name: "A", Pos: diag.Pos{File: "f.yaml", Line: 4}, Sections: ir.Sections{{Target: "trt", Options: 1}}}},
	} {
		if _, ok := ircodec.Encode(c.op, "f.yaml", 4, 10); ok {
			t.Errorf("%s: written", c.name)
		}
	}
	if _, ok := ircodec.Encode(&ir.Op{Name: "A", Pos: diag.Pos{File: "f.yaml", Line: 4}, LastLine: 9}, "f.yaml", 4, 10); !ok {
		t.Error("a plain op is refused")
	}
}

// TestDecodeDamaged: bytes cut short or changed read back as nothing or
// as some op, never as a panic or a huge allocation.
func TestDecodeDamaged(t *testing.T) {
	ops, files := testdataOps(t)
	for i, op := range ops[:min(len(ops), 40)] {
		data, ok := ircodec.Encode(op, files[i], op.Pos.Line, lastLine(op))
		if !ok {
			continue
		}
		for n := range len(data) {
			if _, ok := ircodec.Decode(string(data[:n]), files[i], op.Pos.Line); ok {
				t.Fatalf("%s: op %s cut to %d of %d bytes reads back", files[i], op.Name, n, len(data))
			}
		}
		for j := range data {
			b := bytes.Clone(data)
			b[j] ^= 0xff
			ircodec.Decode(string(b), files[i], op.Pos.Line)
		}
	}
}

func FuzzDecode(f *testing.F) {
	ops, files := testdataOps(f)
	for i, op := range ops[:min(len(ops), 20)] {
		if data, ok := ircodec.Encode(op, files[i], op.Pos.Line, lastLine(op)); ok {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		op, ok := ircodec.Decode(string(data), "f.yaml", 3)
		if !ok {
			return
		}
		// What reads back writes back as it read.
		again, ok := ircodec.Encode(op, "f.yaml", 3, 1<<30)
		if ok && !bytes.Equal(again, data) {
			op2, _ := ircodec.Decode(string(again), "f.yaml", 3)
			if !reflect.DeepEqual(op, op2) {
				t.Fatalf("%q reads back as a model that writes back as another", data)
			}
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	ops, files := testdataOps(b)
	var data [][]byte
	for i, op := range ops {
		if d, ok := ircodec.Encode(op, files[i], op.Pos.Line, lastLine(op)); ok {
			data = append(data, d)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, d := range data {
			ircodec.Decode(string(d), "f.yaml", 10)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(data)), "ns/op-model")
}

// TestDecodeBoundsAllocation: found by an independent review. A record
// damaged past its checksum that claims a long list (here a megabyte's
// worth of an op's first list, its references) is refused before the
// list is made, and nesting deeper than any model is refused too.
func TestDecodeBoundsAllocation(t *testing.T) {
	const n = 1 << 20
	rec := []byte("opir1\x00")
	rec = append(rec, 0, 0, 0) // name, digest, description: empty
	rec = binary.AppendUvarint(rec, n+1)
	rec = append(rec, make([]byte, n)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, ok := ircodec.Decode(string(rec), "f.yaml", 1); ok {
		t.Fatal("a list longer than the budget read back")
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Fatalf("reading the damaged record allocated %d MiB", grew>>20)
	}
}

// TestDecodeBoundsNesting: a model nested deeper than any opdef's is
// refused rather than read on an ever deeper stack; a shallow one reads.
func TestDecodeBoundsNesting(t *testing.T) {
	nested := func(depth int) *ir.Op {
		n := &ir.Node{Value: "leaf"}
		for range depth {
			n = &ir.Node{Items: []*ir.Node{n}}
		}
		return &ir.Op{Name: "A", Sections: ir.Sections{{Target: "t", Node: n}}}
	}
	for _, c := range []struct {
		depth int
		reads bool
	}{{10, true}, {2000, false}} {
		data, ok := ircodec.Encode(nested(c.depth), "f.yaml", 1, 1)
		if !ok {
			t.Fatalf("depth %d: not written", c.depth)
		}
		if _, ok := ircodec.Decode(string(data), "f.yaml", 1); ok != c.reads {
			t.Errorf("depth %d: read back %v, want %v", c.depth, ok, c.reads)
		}
	}
}
