package gen

import (
	"encoding/binary"
	"sort"

	"github.com/opforge/opforge/generators/binrec"
)

// cacheMagic starts the gen cache's file. The format is this file's own
// rather than gob's: encoding/gob's package initialization ran in every
// opforge command, a no-op build's included.
const cacheMagic = "opforge-gen-cache\n"

// encode writes cf: the magic, the version, key and out, then each file
// (in path order, so equal records are equal bytes) as its path, stat,
// skeleton hash and op key.
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
	b = binrec.AppendString(b, cf.Key)
	b = binrec.AppendString(b, cf.Out)
	b = binary.AppendUvarint(b, uint64(len(paths)))
	for _, p := range paths {
		r := cf.Files[p]
		b = binrec.AppendString(b, p)
		b = binrec.AppendStat(b, r.Stat)
		b = binrec.AppendString(b, r.Fresh)
		b = binrec.AppendString(b, r.Op)
	}
	return b
}

// decode reads what encode wrote into cf; false, and cf unusable, when
// data is anything else (another format, cut short, trailing bytes).
func (cf *cacheFile) decode(data []byte) bool {
	d := binrec.NewReader(data, cacheMagic)
	cf.Version = int(d.Uvarint())
	cf.Key, cf.Out = d.String(), d.String()
	n := d.Count()
	if d.Bad() {
		return false
	}
	cf.Files = make(map[string]fileRecord, n)
	for i := 0; i < n && !d.Bad(); i++ {
		p := d.String()
		var r fileRecord
		r.Stat = d.Stat()
		r.Fresh, r.Op = d.String(), d.String()
		cf.Files[p] = r
	}
	return d.Done()
}
