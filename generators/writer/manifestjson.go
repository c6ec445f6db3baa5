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
