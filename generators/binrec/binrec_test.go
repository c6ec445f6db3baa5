package binrec

import (
	"testing"

	"github.com/opforge/opforge/generators/filestat"
)

// TestRoundTrip reads back every kind of value, and refuses the record
// cut at every length, a wrong magic, a count past the end and a bool
// that is neither 0 nor 1.
func TestRoundTrip(t *testing.T) {
	st := filestat.Stat{Size: -1, MTime: 1 << 62, Ino: 1<<64 - 1}
	b := []byte("magic\n")
	b = AppendString(b, "héllo")
	b = AppendBool(b, true)
	b = AppendStat(b, st)
	b = AppendString(b, "")
	read := func(data []byte) (*Reader, string, bool, filestat.Stat, string) {
		r := NewReader(data, "magic\n")
		return r, r.String(), r.Bool(), r.Stat(), r.String()
	}
	r, s, v, gotSt, empty := read(b)
	if !r.Done() || s != "héllo" || !v || gotSt != st || empty != "" {
		t.Fatalf("read %q %v %+v %q (done %v)", s, v, gotSt, empty, r.Done())
	}
	for n := range len(b) {
		if r, _, _, _, _ := read(b[:n]); r.Done() {
			t.Errorf("cut at %d of %d bytes: read as whole", n, len(b))
		}
	}
	if r := NewReader([]byte("magiC\n"), "magic\n"); !r.Bad() {
		t.Error("a wrong magic was read")
	}
	if r := NewReader([]byte{9, 1}, ""); r.Count() != 0 || !r.Bad() {
		t.Error("a count past the end was read")
	}
	if r := NewReader([]byte{2}, ""); r.Bool() || !r.Bad() {
		t.Error("a bool of 2 was read")
	}
}

// TestMalformedNumbers: a varint in a longer encoding than the shortest,
// and a number past 32 bits where 32 are asked for, are malformed.
func TestMalformedNumbers(t *testing.T) {
	if r := NewReader([]byte{0x85, 0x00}, ""); r.Uvarint() != 0 || !r.Bad() {
		t.Error("an over-long unsigned varint was read")
	}
	if r := NewReader([]byte{0x80, 0x80, 0x00}, ""); r.Varint() != 0 || !r.Bad() {
		t.Error("an over-long signed varint was read")
	}
	if r := NewReader([]byte{0x80, 0x80, 0x80, 0x80, 0x10}, ""); r.Uint32() != 0 || !r.Bad() {
		t.Error("1<<32 was read as 32 bits")
	}
	if r := NewReader([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, ""); r.Uint32() != 1<<32-1 || !r.Done() {
		t.Error("the largest 32-bit number was refused")
	}
}
