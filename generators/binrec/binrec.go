package binrec

import (
	"encoding/binary"
	"math"

	"github.com/opforge/opforge/generators/filestat"
)

// AppendString appends s with its length.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendBool appends v as one byte.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// AppendStat appends a file's stat.
func AppendStat(b []byte, st filestat.Stat) []byte {
	b = binary.AppendVarint(b, st.Size)
	b = binary.AppendVarint(b, st.MTime)
	return binary.AppendUvarint(b, st.Ino)
}

// Reader reads what the Append functions wrote. Once it runs out or meets
// a malformed value it is Bad and reads only zero values, so a caller
// checks once, at the end.
type Reader struct {
	b       []byte
	bad     bool
	scratch [binary.MaxVarintLen64]byte
}

// NewReader reads b after magic; it is Bad when b does not start with it.
func NewReader(b []byte, magic string) *Reader {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return &Reader{bad: true}
	}
	return &Reader{b: b[len(magic):]}
}

// Bad reports whether a read ran out or met a malformed value.
func (r *Reader) Bad() bool { return r.bad }

// Done reports whether every byte was read and each read was good.
func (r *Reader) Done() bool { return !r.bad && len(r.b) == 0 }

// Uvarint reads an unsigned varint, in the one encoding Append writes (a
// longer one for the same number is malformed).
func (r *Reader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if r.bad || n <= 0 || n != len(binary.AppendUvarint(r.scratch[:0], v)) {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Varint reads a signed varint, in its shortest encoding.
func (r *Reader) Varint() int64 {
	v, n := binary.Varint(r.b)
	if r.bad || n <= 0 || n != len(binary.AppendVarint(r.scratch[:0], v)) {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Uint32 reads an unsigned varint that must fit 32 bits.
func (r *Reader) Uint32() uint32 {
	v := r.Uvarint()
	if v > math.MaxUint32 {
		r.bad = true
		return 0
	}
	return uint32(v)
}

// Count reads a number of entries to follow, each at least a byte: one
// larger than what is left is malformed (and would size a map wrongly).
func (r *Reader) Count() int {
	n := r.Uvarint()
	if n > uint64(len(r.b)) {
		r.bad = true
		return 0
	}
	return int(n)
}

// String reads a string.
func (r *Reader) String() string {
	n := r.Uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// Bool reads a byte that must be 0 or 1.
func (r *Reader) Bool() bool {
	if r.bad || len(r.b) == 0 || r.b[0] > 1 {
		r.bad = true
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

// Stat reads a file's stat.
func (r *Reader) Stat() filestat.Stat {
	return filestat.Stat{Size: r.Varint(), MTime: r.Varint(), Ino: r.Uvarint()}
}
