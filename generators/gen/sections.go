package gen

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/opforge/opforge/generators/atomicfile"
)

// sectionStore keeps the per-op sections of shared files (README, Python
// module) that gen rendered, by key (render.KeyedSections), in one file
// beside the gen cache. Its keys are content addresses (the op's key and
// the section's name), so a record is never stale, only unused: each
// gen writes back the records it used. Every record carries a CRC-32C of
// its key and bytes; a file that is missing, cut short, corrupt or of
// another version is dropped whole, which costs renders, never a wrong
// byte.
type sectionStore struct {
	path string
	load sync.Once

	mu     sync.Mutex
	stored map[string]string // what the file held (views of its bytes)
	used   map[string]string // what this gen took or rendered
}

// sectionsMagic starts the file; it changes whenever the format does.
const sectionsMagic = "opforge-sections 1\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func newSectionStore(cachePath string) *sectionStore {
	return &sectionStore{path: strings.TrimSuffix(cachePath, filepath.Ext(cachePath)) + ".sections", used: map[string]string{}}
}

// Section implements ir.SectionStore.
func (s *sectionStore) Section(key string) (string, bool) {
	s.load.Do(s.read)
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.stored[key]
	if ok {
		s.used[key] = data
	}
	return data, ok
}

// Remember implements ir.SectionStore.
func (s *sectionStore) Remember(key, text string) {
	s.mu.Lock()
	s.used[key] = text
	s.mu.Unlock()
}

func (s *sectionStore) read() {
	data, err := os.ReadFile(s.path)
	if err != nil || !bytes.HasPrefix(data, []byte(sectionsMagic)) {
		return
	}
	stored := map[string]string{}
	for rest := data[len(sectionsMagic):]; len(rest) > 0; {
		key, r, ok := chunk(rest)
		if !ok {
			return
		}
		val, r, ok := chunk(r)
		if !ok || len(r) < 4 {
			return
		}
		sum := crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, val)
		if binary.LittleEndian.Uint32(r) != sum {
			return
		}
		// A view, not a copy: data is never written to.
		stored[string(key)] = unsafe.String(unsafe.SliceData(val), len(val))
		rest = r[4:]
	}
	s.stored = stored
}

// chunk splits a length-prefixed chunk off b.
func chunk(b []byte) (chunk, rest []byte, ok bool) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, nil, false
	}
	return b[w : w+int(n)], b[w+int(n):], true
}

// store writes back the records this gen used, when they are not what
// the file holds.
func (s *sectionStore) store() error {
	s.load.Do(s.read)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.used) == len(s.stored) {
		same := true
		for k := range s.used {
			if _, ok := s.stored[k]; !ok {
				same = false
				break
			}
		}
		if same {
			return nil
		}
	}
	keys := make([]string, 0, len(s.used))
	size := len(sectionsMagic)
	for k, v := range s.used {
		keys = append(keys, k)
		size += len(k) + len(v) + 24
	}
	sort.Strings(keys)
	out := make([]byte, 0, size)
	out = append(out, sectionsMagic...)
	for _, k := range keys {
		v := s.used[k]
		out = binary.AppendUvarint(out, uint64(len(k)))
		out = append(out, k...)
		out = binary.AppendUvarint(out, uint64(len(v)))
		out = append(out, v...)
		out = binary.LittleEndian.AppendUint32(out, crc32.Update(crc32.Checksum([]byte(k), castagnoli), castagnoli, unsafe.Slice(unsafe.StringData(v), len(v))))
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	_, err := atomicfile.Write(s.path, out, 0o644)
	return err
}
