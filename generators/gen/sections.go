package gen

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/binrec"
)

// sectionStore keeps the per-op sections of shared files (README, Python
// module) that gen rendered, by key (render.KeyedSections), in one file
// beside the gen cache. Its keys are content addresses (the op's key and
// the section's name), so a record is never stale, only unused. A gen
// appends the records it rendered, and rewrites the file with only the
// records it used once the unused ones pass a quarter of it. Every
// record carries a CRC-32C of its key and bytes: reading stops at the
// first one that does not check out (a cut-short append, a flipped
// byte), keeping those before it, and a file of another version is
// dropped whole. A bad record costs renders, never a wrong byte.
type sectionStore struct {
	path string
	load sync.Once

	// What the file held, read-only once read: record i's key indexes
	// texts[i] (a view of the file's bytes) and took[i], which says
	// this gen took it. Section is asked thousands of times a gen on
	// every core, and takes no lock.
	stored map[string]int32
	texts  []string
	took   []atomic.Bool
	intact bool // every byte of the file was a good record

	mu         sync.Mutex
	remembered map[string]string // what this gen rendered
}

// sectionsMagic starts the file; it changes whenever the format does.
const sectionsMagic = "opforge-sections 1\n"

// castagnoli is CRC-32C's table, made on first use: at package
// initialization it cost every opforge command, a no-op build's included.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

func newSectionStore(cachePath string) *sectionStore {
	return &sectionStore{path: cachePath + ".sections", remembered: map[string]string{}}
}

// newItemStore is the same store for the parsed items of the opdefs' ops
// lists (yamldef.Chunks), in a file of its own beside the gen cache: its
// records are the items' trees by the hash of their text.
func newItemStore(cachePath string) *sectionStore {
	return &sectionStore{path: cachePath + ".items", remembered: map[string]string{}}
}

// itemStore serves a sectionStore as yamldef.Chunks. A vetted item's
// record is keyed by the item's key and the generator's identity
// (Reuser.Generator), as Chunks.Vet asks: another opforge binary has
// another schema and other checks.
type itemStore struct {
	s         *sectionStore
	generator string
}

func (i itemStore) Chunk(key string) (string, bool) { return i.s.Section(key) }

func (i itemStore) Keep(key string, tree []byte) { i.s.Remember(key, string(tree)) }

func (i itemStore) Vetted(key string) (string, bool) { return i.s.Section(i.vetKey(key)) }

func (i itemStore) Vet(key, digest string) { i.s.Remember(i.vetKey(key), digest) }

// vetKey keeps vetted items' records apart from the trees (a tree starts
// with its magic; this key with "vet ").
func (i itemStore) vetKey(key string) string { return "vet " + i.generator + " " + key }

// Section implements ir.SectionStore.
func (s *sectionStore) Section(key string) (string, bool) {
	s.load.Do(s.read)
	i, ok := s.stored[key]
	if !ok {
		return "", false
	}
	if !s.took[i].Load() {
		s.took[i].Store(true)
	}
	return s.texts[i], true
}

// Remember implements ir.SectionStore.
func (s *sectionStore) Remember(key, text string) {
	s.mu.Lock()
	s.remembered[key] = text
	s.mu.Unlock()
}

// used is what this gen took or rendered, by key: what a rewritten file
// keeps. Call it once no gen work asks the store anything.
func (s *sectionStore) used() map[string]string {
	used := make(map[string]string, len(s.stored)+len(s.remembered))
	for k, i := range s.stored {
		if s.took[i].Load() {
			used[k] = s.texts[i]
		}
	}
	for k, v := range s.remembered {
		used[k] = v
	}
	return used
}

func (s *sectionStore) read() {
	// Mapped, not read, when large: a 1,000-op package's sections are
	// megabytes, and its items' models are read back as views of them
	// (atomicfile.MapRegular). A FIFO here must not hang gen.
	data, err := atomicfile.MapRegular(s.path)
	if err != nil || !bytes.HasPrefix(data, []byte(sectionsMagic)) {
		return
	}
	// Sized by a first pass over the records' lengths: the thousands of
	// a package's records grew the map through a dozen rehashes.
	n := countRecords(data[len(sectionsMagic):])
	s.stored = make(map[string]int32, n)
	s.texts = make([]string, 0, n)
	defer func() {
		s.took = make([]atomic.Bool, len(s.texts))
		// Written once: Section reads a flag before it sets it, and a
		// fresh page read first is the zero page, which the write then
		// copies while the other core's TLB is flushed.
		clear(s.took)
	}()
	rest := data[len(sectionsMagic):]
	for len(rest) > 0 {
		key, r, ok := chunk(rest)
		if !ok {
			return
		}
		val, r, ok := chunk(r)
		if !ok || len(r) < 4 {
			return
		}
		sum := crc32.Update(crc32.Checksum(key, castagnoli()), castagnoli(), val)
		if binary.LittleEndian.Uint32(r) != sum {
			return
		}
		// Views, not copies, of the key and the text: data is never
		// written to.
		k := unsafe.String(unsafe.SliceData(key), len(key))
		if i, dup := s.stored[k]; dup {
			s.texts[i] = unsafe.String(unsafe.SliceData(val), len(val)) // the later record, as a map's last write
		} else {
			s.stored[k] = int32(len(s.texts))
			s.texts = append(s.texts, unsafe.String(unsafe.SliceData(val), len(val)))
		}
		rest = r[4:]
	}
	s.intact = true
}

// countRecords is how many records b holds by their lengths alone, up to
// the first that does not fit (read checks each record's sum).
func countRecords(b []byte) int {
	n := 0
	for len(b) > 0 {
		_, r, ok := chunk(b)
		if !ok {
			break
		}
		if _, r, ok = chunk(r); !ok || len(r) < 4 {
			break
		}
		b = r[4:]
		n++
	}
	return n
}

// chunk splits a length-prefixed chunk off b.
func chunk(b []byte) (chunk, rest []byte, ok bool) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, nil, false
	}
	return b[w : w+int(n)], b[w+int(n):], true
}

// store appends the records this gen rendered, or rewrites the file with
// the records it used when that one is damaged or a quarter unused.
func (s *sectionStore) store() error {
	s.load.Do(s.read)
	s.mu.Lock()
	defer s.mu.Unlock()
	// What the append needs is counted, not collected: the records this
	// gen rendered that the file lacks, and how many of the file's it
	// used. The map of every record used is made only for a rewrite.
	var added []string
	usedStored := 0
	for i := range s.took {
		if s.took[i].Load() {
			usedStored++
		}
	}
	for k := range s.remembered {
		i, ok := s.stored[k]
		switch {
		case !ok:
			added = append(added, k)
		case !s.took[i].Load():
			usedStored++ // rendered again, not taken: used all the same
		}
	}
	unused := len(s.stored) - usedStored
	sort.Strings(added)
	if s.intact && unused*4 <= len(s.stored) {
		if len(added) == 0 {
			return nil
		}
		// Without blocking and only to a regular file: a FIFO put there
		// since the read would wait for a reader forever (and is
		// replaced below instead).
		f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0)
		if err == nil {
			if fi, serr := f.Stat(); serr == nil && fi.Mode().IsRegular() {
				_, err = f.Write(records(nil, added, s.remembered))
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				return err
			}
			f.Close()
		}
	}
	used := s.used()
	keys := make([]string, 0, len(used))
	for k := range used {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := records(append([]byte(nil), sectionsMagic...), keys, used)
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	_, err := atomicfile.Write(s.path, out, 0o644)
	return err
}

// records appends the records of keys (their texts in used) to out.
func records(out []byte, keys []string, used map[string]string) []byte {
	// One allocation of the whole size: growing a buffer of megabytes by
	// doubling cost a cold gen tens of milliseconds of copies and fresh
	// pages.
	size := len(out)
	for _, k := range keys {
		size += 2*binary.MaxVarintLen64 + len(k) + len(used[k]) + 4
	}
	out = slices.Grow(out, size-len(out))
	for _, k := range keys {
		v := used[k]
		out = binrec.AppendString(binrec.AppendString(out, k), v)
		out = binary.LittleEndian.AppendUint32(out, crc32.Update(crc32.Checksum([]byte(k), castagnoli()), castagnoli(), unsafe.Slice(unsafe.StringData(v), len(v))))
	}
	return out
}
