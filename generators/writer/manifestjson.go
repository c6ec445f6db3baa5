package writer

import (
	"encoding/json"
	"sort"
	"strconv"
)

// marshalManifest is json.MarshalIndent(m, "", "  ") written out for the
// manifest's own shape: reflection over its thousands of entries (maps of
// region hashes among them) was a fifth of a small gen's writer time. A
// manifest with a rename falls back to the library. TestMarshalManifest
// and FuzzMarshalManifest hold the two to the same bytes.
func marshalManifest(m *Manifest) []byte {
	if m.Move != nil {
		data, _ := json.MarshalIndent(m, "", "  ")
		return data
	}
	size := 64
	for _, f := range m.Files {
		size += 64 + len(f.Path) + len(f.Hash)
		for k, v := range f.Regions {
			size += 16 + len(k) + len(v)
		}
	}
	b := make([]byte, 0, size)
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
			b = append(b, "\n    {\n      \"path\": "...)
			b = appendJSONString(b, f.Path)
			if f.Owned {
				b = append(b, ",\n      \"owned\": true"...)
			}
			if f.Hash != "" {
				b = append(b, ",\n      \"hash\": "...)
				b = appendJSONString(b, f.Hash)
			}
			if len(f.Regions) > 0 {
				b = append(b, ",\n      \"regions\": {"...)
				keys = keys[:0]
				for k := range f.Regions {
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
					b = appendJSONString(b, f.Regions[k])
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
	if m, ok := parseCanonicalManifest(data); ok {
		return m, nil
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// parseCanonicalManifest reads marshalManifest's layout (a newline at the
// end allowed); ok is false at the first byte that departs from it.
func parseCanonicalManifest(data []byte) (*Manifest, bool) {
	p := manifestParser{data: data}
	m := &Manifest{}
	if !p.lit("{\n  \"version\": ") || !p.int(&m.Version) || !p.lit(",\n  \"files\": [") {
		return nil, false
	}
	for i := 0; ; i++ {
		if i > 0 && p.lit("\n  ]\n}") {
			break
		}
		if i > 0 && !p.lit(",") {
			return nil, false
		}
		var f ManifestFile
		if !p.lit("\n    {\n      \"path\": ") || !p.str(&f.Path) {
			return nil, false
		}
		f.Owned = p.lit(",\n      \"owned\": true")
		if p.lit(",\n      \"hash\": ") && !p.str(&f.Hash) {
			return nil, false
		}
		if p.lit(",\n      \"regions\": {") {
			f.Regions = map[string]string{}
			for j := 0; ; j++ {
				if j > 0 && p.lit("\n      }") {
					break
				}
				if j > 0 && !p.lit(",") {
					return nil, false
				}
				var k, v string
				if !p.lit("\n        ") || !p.str(&k) || !p.lit(": ") || !p.str(&v) {
					return nil, false
				}
				f.Regions[k] = v
			}
		}
		if !p.lit("\n    }") {
			return nil, false
		}
		m.Files = append(m.Files, f)
	}
	p.lit("\n")
	return m, p.i == len(p.data)
}

// manifestParser is a cursor over a manifest's bytes.
type manifestParser struct {
	data []byte
	i    int
}

// lit consumes s if the data continues with it.
func (p *manifestParser) lit(s string) bool {
	if len(p.data)-p.i < len(s) || string(p.data[p.i:p.i+len(s)]) != s {
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
			*s = string(p.data[p.i:j])
			p.i = j + 1
			return true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return false
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
	v, _ := strconv.Atoi(string(digits))
	*n, p.i = v, j
	return true
}
