package writer

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// marshalManifest is json.MarshalIndent(m, "", "  ") written out for the
// manifest's own shape: reflection over its thousands of entries (maps of
// region hashes among them) was a fifth of a small gen's writer time. A
// manifest with a rename falls back to the library. TestMarshalManifest
// and FuzzMarshalManifest hold the two to the same bytes.
func marshalManifest(m *Manifest) []byte { return marshalManifestWith(m, nil) }

// marshalManifestWith is marshalManifest taking entry i's bytes from
// raw(i) where it gives them ("": write them).
func marshalManifestWith(m *Manifest, raw func(i int) string) []byte {
	return appendManifest(nil, m, raw)
}

// appendManifest is marshalManifestWith appending to b.
func appendManifest(b []byte, m *Manifest, raw func(i int) string) []byte {
	if m.Move != nil {
		c := *m
		c.Files = slices.Clone(m.Files)
		c.decodeRegions()
		data, _ := json.MarshalIndent(&c, "", "  ")
		return append(b, data...)
	}
	size := 64
	for i := range m.Files {
		f := &m.Files[i]
		size += 64 + len(f.Path) + len(f.Hash) + len(f.regionsText)
		for k, v := range f.Regions {
			size += 16 + len(k) + len(v)
		}
	}
	b = slices.Grow(b, size)
	b = append(b, "{\n  \"version\": "...)
	b = strconv.AppendInt(b, int64(m.Version), 10)
	b = append(b, ",\n  \"files\": "...)
	switch {
	case m.Files == nil:
		b = append(b, "null"...)
	case len(m.Files) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		var keys []string
		for i, f := range m.Files {
			if i > 0 {
				b = append(b, ',')
			}
			if raw != nil {
				if r := raw(i); r != "" {
					b = append(b, r...)
					continue
				}
			}
			regions := f.regions()
			b = append(b, "\n    {\n      \"path\": "...)
			b = appendJSONString(b, f.Path)
			if f.Owned {
				b = append(b, ",\n      \"owned\": true"...)
			}
			if f.Hash != "" {
				b = append(b, ",\n      \"hash\": "...)
				b = appendJSONString(b, f.Hash)
			}
			if len(regions) > 0 {
				b = append(b, ",\n      \"regions\": {"...)
				keys = keys[:0]
				for k := range regions {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for j, k := range keys {
					if j > 0 {
						b = append(b, ',')
					}
					b = append(b, "\n        "...)
					b = appendJSONString(b, k)
					b = append(b, ": "...)
					b = appendJSONString(b, regions[k])
				}
				b = append(b, "\n      }"...)
			}
			b = append(b, "\n    }"...)
		}
		b = append(b, "\n  ]"...)
	}
	return append(b, "\n}"...)
}

// appendJSONString appends s as encoding/json writes it: as is in quotes
// when it is printable ASCII that needs no escape (paths and hashes
// are), through the library otherwise (its HTML-safe escapes, invalid
// UTF-8 replaced).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// unmarshalManifest is json.Unmarshal of a manifest. What marshalManifest
// writes is read by hand, byte by byte against that layout: the library's
// reflective decoding of a 1,000-op package's manifest (4,000 files, a
// region map for each owned one) took 30 ms of every gen. Anything else (a
// hand-edited manifest, a journal's rename, escapes) goes to the library,
// which also words the errors. FuzzUnmarshalManifest holds the two to the
// same result.
func unmarshalManifest(data []byte) (*Manifest, error) {
	m, _, err := unmarshalManifestRaw(data, false)
	return m, err
}

// unmarshalManifestRaw is unmarshalManifest that also gives the entries'
// bytes where parseCanonical does (nil for a manifest it did not read),
// leaving region maps to be made on demand when lazy.
func unmarshalManifestRaw(data []byte, lazy bool) (*Manifest, []string, error) {
	if m, raws, ok := parseCanonical(data, lazy); ok {
		return m, raws, nil
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, err
	}
	return &m, nil, nil
}

// rawEntry is an entry of the manifest read and its bytes.
type rawEntry struct {
	f   ManifestFile
	raw string
}

// sameEntry reports whether f is e's entry unchanged: the same strings
// and the same region text, or the very same region map (read entries'
// maps are never changed), so e's bytes are f's.
func (e rawEntry) sameEntry(f *ManifestFile) bool {
	return f.Path == e.f.Path && f.Owned == e.f.Owned && f.Hash == e.f.Hash && f.regionsText == e.f.regionsText &&
		(f.Regions == nil) == (e.f.Regions == nil) &&
		(f.Regions == nil || reflect.ValueOf(f.Regions).UnsafePointer() == reflect.ValueOf(e.f.Regions).UnsafePointer())
}

// parseCanonicalManifest reads marshalManifest's layout (a newline at the
// end allowed); ok is false at the first byte that departs from it.
func parseCanonicalManifest(data []byte) (*Manifest, bool) {
	m, _, ok := parseCanonical(data, false)
	return m, ok
}

// parseCanonical is parseCanonicalManifest that also gives each entry's
// bytes (raws[i], "\n    {" to "}") where marshalManifest writes the
// entry read so with the same bytes, "" where it would not (a string it
// escapes, an empty hash or region map, region keys out of order or
// repeated): a plan writes an entry it takes over unchanged by copying
// them (Plan.addManifest). lazy leaves each entry's region map to be made
// when it is asked for (ManifestFile.regions): a plan asks for few of the
// thousands, and making them was most of the reading. The strings are
// views of data, which must not change after.
func parseCanonical(data []byte, lazy bool) (m *Manifest, raws []string, ok bool) {
	p := manifestParser{data: view(data)}
	m = &Manifest{}
	if !p.lit("{\n  \"version\": ") || !p.int(&m.Version) || !p.lit(",\n  \"files\": [") {
		return nil, nil, false
	}
	for i := 0; ; i++ {
		if i > 0 && p.lit("\n  ]\n}") {
			break
		}
		if i > 0 && !p.lit(",") {
			return nil, nil, false
		}
		start := p.i
		p.escaped = false
		var f ManifestFile
		if !p.lit("\n    {\n      \"path\": ") || !p.str(&f.Path) {
			return nil, nil, false
		}
		f.Owned = p.lit(",\n      \"owned\": true")
		same := true
		if p.lit(",\n      \"hash\": ") {
			if !p.str(&f.Hash) {
				return nil, nil, false
			}
			same = f.Hash != ""
		}
		if p.lit(",\n      \"regions\": ") {
			at := p.i
			regions, sorted, ok := p.regions(!lazy)
			if !ok {
				return nil, nil, false
			}
			same = same && sorted
			if lazy {
				f.regionsText = p.data[at:p.i]
			} else {
				f.Regions = regions
			}
		}
		if !p.lit("\n    }") {
			return nil, nil, false
		}
		m.Files = append(m.Files, f)
		raw := ""
		if same && !p.escaped {
			raw = p.data[start:p.i]
		}
		raws = append(raws, raw)
	}
	p.lit("\n")
	if p.i != len(p.data) {
		return nil, nil, false
	}
	return m, raws, true
}

// regions reads an entry's region map, "{" to "}": made when build,
// only checked otherwise. sorted: its keys are in order, none repeated.
func (p *manifestParser) regions(build bool) (regions map[string]string, sorted, ok bool) {
	if !p.lit("{") {
		return nil, false, false
	}
	if build {
		regions = map[string]string{}
	}
	sorted = true
	last := ""
	for j := 0; ; j++ {
		if j > 0 && p.lit("\n      }") {
			break
		}
		if j > 0 && !p.lit(",") {
			return nil, false, false
		}
		var k, v string
		if !p.lit("\n        ") || !p.str(&k) || !p.lit(": ") || !p.str(&v) {
			return nil, false, false
		}
		if j > 0 && k <= last {
			sorted = false
		}
		last = k
		if build {
			regions[k] = v
		}
	}
	return regions, sorted, true
}

// regions is f's region map, made from the text it was read from when
// the manifest was read lazily (parseCanonical). Read entries are never
// changed, so it is made anew at each call: a plan asks for it once, for
// the few files it merges or removes.
func (f *ManifestFile) regions() map[string]string {
	if f.regionsText == "" {
		return f.Regions
	}
	p := manifestParser{data: f.regionsText}
	regions, _, _ := p.regions(true)
	return regions
}

// decodeRegions makes every entry's region map (a manifest read lazily,
// handed to code that reads Regions).
func (m *Manifest) decodeRegions() {
	for i := range m.Files {
		if f := &m.Files[i]; f.regionsText != "" {
			f.Regions, f.regionsText = f.regions(), ""
		}
	}
}

// view is b as a string without a copy; b must not change after.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// manifestParser is a cursor over a manifest's text.
type manifestParser struct {
	data string
	i    int
	// escaped: a string read since it was last cleared holds a byte
	// marshalManifest escapes (<, > or &, as encoding/json does).
	escaped bool
}

// lit consumes s if the data continues with it.
func (p *manifestParser) lit(s string) bool {
	if !strings.HasPrefix(p.data[p.i:], s) {
		return false
	}
	p.i += len(s)
	return true
}

// str reads a string of printable ASCII without escapes, which JSON
// decodes to its own bytes.
func (p *manifestParser) str(s *string) bool {
	if !p.lit(`"`) {
		return false
	}
	for j := p.i; j < len(p.data); j++ {
		switch c := p.data[j]; {
		case c == '"':
			*s = p.data[p.i:j]
			p.i = j + 1
			return true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return false
		case c == '<' || c == '>' || c == '&':
			p.escaped = true
		}
	}
	return false
}

// int reads a JSON integer of up to nine digits (0, or no leading zero).
func (p *manifestParser) int(n *int) bool {
	j := p.i
	for j < len(p.data) && j-p.i < 10 && '0' <= p.data[j] && p.data[j] <= '9' {
		j++
	}
	digits := p.data[p.i:j]
	if len(digits) == 0 || len(digits) > 9 || len(digits) > 1 && digits[0] == '0' {
		return false
	}
	v, _ := strconv.Atoi(digits)
	*n, p.i = v, j
	return true
}
