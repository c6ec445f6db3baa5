package buildplan

import (
	"encoding/binary"
	"io/fs"
	"maps"
	"slices"

	"github.com/opforge/opforge/generators/binrec"
	"github.com/opforge/opforge/generators/buildengine"
	"github.com/opforge/opforge/generators/toolchain"
)

// noopMagic starts a no-op record. The record is binrec's, not JSON: a
// no-op build does little else than read it, and decoding its hundreds
// of stats by reflection was a fifth of that build's time.
const noopMagic = "opforge-noop-record\n"

// encode writes r, every map in key order so equal records are equal
// bytes.
func (r *noopRecord) encode() []byte {
	b := make([]byte, 0, len(noopMagic)+64*(len(r.Files)+len(r.Probes.Paths)))
	b = append(b, noopMagic...)
	b = binary.AppendUvarint(b, uint64(r.Version))
	b = binrec.AppendString(b, r.Key)
	b = binary.AppendUvarint(b, uint64(r.Units))
	b = binrec.AppendString(b, r.Preface)
	b = binrec.AppendString(b, r.Notes)
	b = binary.AppendUvarint(b, uint64(len(r.Files)))
	for _, path := range slices.Sorted(maps.Keys(r.Files)) {
		f := r.Files[path]
		b = binrec.AppendString(b, path)
		b = binrec.AppendBool(b, f.Exists)
		b = binrec.AppendStat(b, f.Stat)
	}
	p := r.Probes
	b = binary.AppendUvarint(b, uint64(len(p.Paths)))
	for _, path := range slices.Sorted(maps.Keys(p.Paths)) {
		st := p.Paths[path]
		b = binrec.AppendString(b, path)
		b = binrec.AppendBool(b, st.Exists)
		b = binrec.AppendStat(b, st.Stat)
		b = binary.AppendUvarint(b, uint64(st.Mode))
	}
	b = binary.AppendUvarint(b, uint64(len(p.Globs)))
	for _, pattern := range slices.Sorted(maps.Keys(p.Globs)) {
		b = binrec.AppendString(b, pattern)
		b = binary.AppendUvarint(b, uint64(len(p.Globs[pattern])))
		for _, m := range p.Globs[pattern] {
			b = binrec.AppendString(b, m)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(p.Looks)))
	for _, name := range slices.Sorted(maps.Keys(p.Looks)) {
		b = binrec.AppendString(b, name)
		b = binrec.AppendString(b, p.Looks[name])
	}
	return b
}

// decode reads what encode wrote; false when data is anything else
// (another format or version, cut short, trailing bytes).
func (r *noopRecord) decode(data []byte) bool {
	d := binrec.NewReader(data, noopMagic)
	r.Version = int(d.Uvarint())
	if d.Bad() || r.Version != noopVersion {
		return false
	}
	r.Key = d.String()
	r.Units = int(d.Uint32())
	r.Preface, r.Notes = d.String(), d.String()
	n := d.Count()
	r.Files = make(map[string]buildengine.SeenFile, n)
	for range n {
		path := d.String()
		r.Files[path] = buildengine.SeenFile{Exists: d.Bool(), Stat: d.Stat()}
	}
	p := toolchain.NewProbes()
	for range d.Count() {
		path := d.String()
		p.Paths[path] = toolchain.PathState{Exists: d.Bool(), Stat: d.Stat(), Mode: fs.FileMode(d.Uint32())}
	}
	for range d.Count() {
		pattern := d.String()
		matches := make([]string, d.Count())
		for i := range matches {
			matches[i] = d.String()
		}
		p.Globs[pattern] = matches
	}
	for range d.Count() {
		name := d.String()
		p.Looks[name] = d.String()
	}
	r.Probes = p
	return d.Done()
}
