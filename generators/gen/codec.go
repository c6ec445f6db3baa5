package gen

import (
	"encoding/binary"
	"sort"

	"github.com/opforge/opforge/generators/filestat"
)

// cacheMagic starts the gen cache's file. The format is this file's own
// rather than gob's: encoding/gob's package initialization ran in every
// opforge command, a no-op build's included.
const cacheMagic = "opforge-gen-cache\n"

// encode writes cf: the magic, the version, key and out, then each file
// (in path order, so equal records are equal bytes) as its path, stat,
// skeleton hash and op key. Strings and numbers are length-prefixed
// and varint-encoded.
func (cf *cacheFile) encode() []byte {
	paths := make([]string, 0, len(cf.Files))
	size := len(cacheMagic) + 32 + len(cf.Key) + len(cf.Out)
	for p, r := range cf.Files {
		paths = append(paths, p)
		size += len(p) + len(r.Fresh) + len(r.Op) + 40
	}
	sort.Strings(paths)
	b := make([]byte, 0, size)
	b = append(b, cacheMagic...)
	b = binary.AppendUvarint(b, uint64(cf.Version))
	b = appendString(b, cf.Key)
	b = appendString(b, cf.Out)
	b = binary.AppendUvarint(b, uint64(len(paths)))
	for _, p := range paths {
		r := cf.Files[p]
		b = appendString(b, p)
		b = binary.AppendVarint(b, r.Stat.Size)
		b = binary.AppendVarint(b, r.Stat.MTime)
		b = binary.AppendUvarint(b, r.Stat.Ino)
		b = appendString(b, r.Fresh)
		b = appendString(b, r.Op)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decode reads what encode wrote into cf; false, and cf unusable, when
// data is anything else (another format, cut short, trailing bytes).
func (cf *cacheFile) decode(data []byte) bool {
	if len(data) < len(cacheMagic) || string(data[:len(cacheMagic)]) != cacheMagic {
		return false
	}
	d := decoder{b: data[len(cacheMagic):]}
	cf.Version = int(d.uvarint())
	cf.Key, cf.Out = d.string(), d.string()
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		return false
	}
	cf.Files = make(map[string]fileRecord, n)
	for i := uint64(0); i < n && !d.bad; i++ {
		p := d.string()
		var r fileRecord
		r.Stat = filestat.Stat{Size: d.varint(), MTime: d.varint(), Ino: d.uvarint()}
		r.Fresh, r.Op = d.string(), d.string()
		cf.Files[p] = r
	}
	return !d.bad && len(d.b) == 0
}

// decoder reads varints and strings off b; bad says it ran out or met a
// malformed number, after which it reads nothing more.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if d.bad || n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if d.bad || n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
