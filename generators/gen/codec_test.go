package gen

import (
	"reflect"
	"testing"

	"github.com/opforge/opforge/generators/filestat"
)

// TestCacheCodec: a record reads back as written, and anything else —
// cut short anywhere, trailing bytes, another format — reads as no record.
func TestCacheCodec(t *testing.T) {
	cf := cacheFile{Version: cacheVersion, Key: "k", Out: "/o", Files: map[string]fileRecord{
		"trt/P/README.md":              {Stat: filestat.Stat{Size: 10, MTime: -3, Ino: 1 << 40}, Fresh: "f1"},
		"trt/P/src/ops/OpPlugin.cpp":   {Stat: filestat.Stat{Size: 0, MTime: 1764300000123456789, Ino: 7}, Fresh: "f2", Op: "op"},
		"a path with spaces/and é.txt": {},
	}}
	data := cf.encode()
	var got cacheFile
	if !got.decode(data) || !reflect.DeepEqual(got, cf) {
		t.Fatalf("round trip: %+v", got)
	}
	for n := 0; n < len(data); n++ {
		var cut cacheFile
		if cut.decode(data[:n]) {
			t.Fatalf("cut to %d of %d bytes: read as a record", n, len(data))
		}
	}
	var extra cacheFile
	if extra.decode(append(append([]byte(nil), data...), 0)) {
		t.Fatal("a trailing byte: read as a record")
	}
	var other cacheFile
	if other.decode([]byte(`{"version": 3}`)) {
		t.Fatal("JSON read as a record")
	}
}
