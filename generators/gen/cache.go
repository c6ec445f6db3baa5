package gen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/filestat"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/writer"
	"github.com/opforge/opforge/generators/yamldef"
)

// Cache makes regeneration cheap, the way make and ninja do.
//
// A no-op: when the opdefs, the toolchain descriptors and the opforge
// binary are what the last successful gen saw, and every file it left in
// out/ still has the size, mtime and inode it had then, there is nothing to
// do. Any doubt — an edited user region, a deleted file, a rebuilt opforge —
// means a full run.
//
// A full run after a small change: Unchanged vouches for each file whose
// freshly generated skeleton hashes as it did last time and that still has
// the stat it had then, so the writer neither reads nor rewrites it.
//
// The cache lives in the build directory, never in out/; the drift check
// never uses it.
type Cache struct {
	path   string
	key    string
	Out    string
	absOut string
	prev   cacheFile // what the last gen left (empty when unusable)

	// generator hashes the opforge binary and the toolchain descriptors:
	// the key's inputs besides the opdefs (Reuser.Generator).
	generator string

	mu       sync.Mutex
	hashes   map[string]string // path -> hash of the skeleton generated now
	ops      map[string]string // path -> key of the op that generates it alone, or of a shared file (Shared)
	framed   map[string]bool   // shared files whose key is their skeleton's hash (Shared)
	sections *sectionStore
	items    *sectionStore // the opdefs' parsed items (Reuser.Items)
	// manifestOK caches whether the manifest is as the last gen left it,
	// without which no file is reusable.
	manifestOK func() bool
	// leftovers caches whether a writer, killed or running, has anything
	// below out/ (writer.Unsettled): one walk of the tree per gen.
	leftovers func() bool
	// storing is the writing of the stores StoreAhead started.
	storing *sync.WaitGroup
	// look is the writer's look at the files the last gen recorded, which
	// Prefetch starts and Reusable vouches by (nil: no Prefetch).
	look *writer.LookAhead
}

// cacheVersion changes whenever cacheFile's meaning does.
const cacheVersion = 6

// cacheFile is the record, in a binary form of its own (codec.go): every
// gen decodes it first, in 2 ms for the 4,000 records of a 1,000-op
// package where JSON took 18.
type cacheFile struct {
	Version int
	Key     string
	Out     string // absolute
	Files   map[string]fileRecord
}

type fileRecord struct {
	Stat  filestat.Stat
	Fresh string // hash of the skeleton that made the file
	Op    string // key of the op that made it alone (Reuser)
}

// OpenCache computes the input key of o and reads what the last gen left;
// cachePath is the cache file.
func OpenCache(o Options, cachePath string) (*Cache, error) {
	h := sha256.New()
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	st, ok := filestat.Of(exe)
	if !ok {
		return nil, fmt.Errorf("cannot stat %s", exe)
	}
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, err
	}
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	fmt.Fprintf(h, "v%d\x00%s\x00%+v\x00%s\x00%s\x00%s\x00", cacheVersion, exe, st, abs(o.OpDefs), abs(o.Toolchains), out)
	files, err := load.Files(o.OpDefs)
	if err != nil {
		return nil, err
	}
	tcs, _ := filepath.Glob(filepath.Join(o.Toolchains, "*.yaml"))
	sort.Strings(tcs)
	// Each input is read once: the opdefs go into the key, the toolchain
	// descriptors into it and into the generator's identity, beside the
	// binary (Reuser.Generator).
	g := sha256.New()
	fmt.Fprintf(g, "v%d\x00%s\x00%+v\x00", cacheVersion, exe, st)
	for i, f := range append(files, tcs...) {
		if !load.Regular(f) {
			// Never open a FIFO or device; gen's loader reports it.
			return nil, fmt.Errorf("%s is not a regular file", f)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(data))
		h.Write(data)
		if i >= len(files) {
			fmt.Fprintf(g, "%s\x00%d\x00", filepath.Base(f), len(data))
			g.Write(data)
		}
	}
	generator := hex.EncodeToString(g.Sum(nil))
	c := &Cache{path: cachePath, key: hex.EncodeToString(h.Sum(nil)), Out: o.Out, absOut: out, generator: generator, hashes: map[string]string{}, ops: map[string]string{}, framed: map[string]bool{}, sections: newSectionStore(cachePath), items: newItemStore(cachePath)}
	c.leftovers = sync.OnceValue(func() bool { return writer.Unsettled(c.Out) })
	c.manifestOK = sync.OnceValue(func() bool {
		want, ok := c.prev.Files[writer.ManifestName]
		return ok && c.untouched(writer.ManifestName, want) && !c.leftovers()
	})
	if data, err := atomicfile.ReadRegular(cachePath); err == nil {
		var prev cacheFile
		if prev.decode(data) && prev.Version == cacheVersion && prev.Out == out {
			c.prev = prev
			// A gen records about the files the last one did: the maps
			// are made once at that size, not grown through it.
			c.hashes, c.ops = make(map[string]string, len(prev.Files)), make(map[string]string, len(prev.Files))
		}
	}
	return c, nil
}

// Fresh reports whether the last gen saw the same inputs and left out/ as
// it still is; it returns the number of files then.
func (c *Cache) Fresh() (int, bool) {
	if c.prev.Key != c.key || len(c.prev.Files) == 0 {
		return 0, false
	}
	for rel, want := range c.prev.Files {
		if !c.untouched(rel, want) {
			return 0, false
		}
	}
	// A file added under out/ by someone else is drift that gen would not
	// remove (only check reports it), so it does not invalidate the cache;
	// a killed writer's temporary is gen's to remove (check says so), and
	// one of a writer running now leaves nothing settled to trust.
	if c.leftovers() {
		return 0, false
	}
	return len(c.prev.Files), true
}

// Prefetch starts, each on a goroutine of its own, what a gen that is not
// fresh waits for later and that needs nothing it computes: reading the
// item and section stores, the walk for a killed writer's leftovers, and
// the writer's look at every file the last gen recorded (LookAhead),
// which Reusable vouches by. Loading the opdefs leaves a core idle much
// of the time (reading, the edited op's parse, the serial parts of
// validating); these fill it. Every answer still comes from this process,
// under the gen lock.
func (c *Cache) Prefetch() {
	go c.items.load.Do(c.items.read)
	go c.sections.load.Do(c.sections.read)
	if len(c.prev.Files) == 0 {
		return
	}
	go c.leftovers()
	order := make([]string, 0, len(c.prev.Files))
	for rel := range c.prev.Files {
		order = append(order, rel)
	}
	c.look = writer.NewLookAhead(filepath.Clean(c.Out))
	go c.look.Look(order)
}

// LookAhead implements Reuser.
func (c *Cache) LookAhead() *writer.LookAhead { return c.look }

func (c *Cache) untouched(rel string, want fileRecord) bool {
	got, ok := filestat.Of(filepath.Join(c.Out, filepath.FromSlash(rel)))
	return ok && got == want.Stat
}

// seenUntouched is untouched from the writer's look Prefetch's walk took,
// or takes for it: for Reusable, whose file the plan then keeps by the
// same look. Known (Unchanged) is asked about files the writer does not
// keep, which it reads, so that one takes a stat of its own.
func (c *Cache) seenUntouched(rel string, want fileRecord) bool {
	if c.look == nil {
		return c.untouched(rel, want)
	}
	fi, err := c.look.Stat(rel)
	return err == nil && fi != nil && fi.Mode().IsRegular() && filestat.FromInfo(fi) == want.Stat
}

// Unchanged is a writer.Known: the file at rel was made from exactly this
// skeleton by the last gen and has not been touched since. It records the
// skeleton's hash for Store whatever it answers.
func (c *Cache) Unchanged(rel string, fresh []byte) bool {
	c.mu.Lock()
	framed := c.framed[rel]
	c.mu.Unlock()
	if framed {
		// Shared recorded its key and found it not reusable (another
		// key, or a file touched since): the writer reads it.
		return false
	}
	sum := sha256.Sum256(fresh)
	hash := hex.EncodeToString(sum[:16])
	c.mu.Lock()
	c.hashes[rel] = hash
	c.mu.Unlock()
	want, ok := c.prev.Files[rel]
	return ok && want.Fresh == hash && c.untouched(rel, want)
}

// Leftovers reports whether a writer's temporary, a killed one's or one
// running now, or a journal lies below out/ (writer.Unsettled), walking
// the tree once per Cache: gen holds its lock from before the walk until
// Apply, so a no stands until Apply, which then needs no walk of its own
// (writer.Options.NoLeftovers).
func (c *Cache) Leftovers() bool { return c.leftovers() }

// Generator implements Reuser.
func (c *Cache) Generator() string { return c.generator }

// Reusable implements Reuser: the last gen made the file at rel from key,
// recorded it, and it and the manifest still have the stat they had then
// (so the manifest's entry for it is the one that gen wrote). It records
// the file's skeleton hash for Store, as Unchanged does.
func (c *Cache) Reusable(rel, key string) bool {
	want, ok := c.prev.Files[rel]
	if !ok || want.Op != key || want.Fresh == "" || !c.manifestOK() || !c.seenUntouched(rel, want) {
		return false
	}
	c.mu.Lock()
	c.hashes[rel] = want.Fresh
	c.mu.Unlock()
	return true
}

// Items implements Reuser.
func (c *Cache) Items() yamldef.Chunks { return itemStore{c.items, c.generator} }

// Sections implements Reuser.
func (c *Cache) Sections() ir.SectionStore { return c.sections }

// Vouched implements Reuser.
func (c *Cache) Vouched(rel string) (filestat.Stat, bool) {
	r, ok := c.prev.Files[rel]
	return r.Stat, ok
}

// Shared implements Reuser.
func (c *Cache) Shared(rel, key string) bool {
	c.Keyed(rel, key)
	if c.Reusable(rel, key) {
		return true
	}
	c.mu.Lock()
	c.hashes[rel] = key
	c.framed[rel] = true
	c.mu.Unlock()
	return false
}

// Keyed implements Reuser.
func (c *Cache) Keyed(rel, key string) {
	c.mu.Lock()
	c.ops[rel] = key
	c.mu.Unlock()
}

// Invalidate forgets the last gen's record; gen calls it before changing
// out/, so that a gen that dies half way leaves no record to vouch for a
// tree it did not finish.
func (c *Cache) Invalidate() error {
	if err := os.Remove(c.path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// Store records the tree a successful gen left: for each file, the stat
// this process saw it with while it held the planned bytes (written by
// this gen, or read and found right), never a stat taken afterwards, which
// could be another process's file.
func (c *Cache) Store(p *writer.Plan) error {
	if c.storing == nil {
		c.StoreAhead()
	}
	defer c.storing.Wait()
	paths := p.Files.Paths()
	cf := cacheFile{Version: cacheVersion, Key: c.key, Out: c.absOut, Files: make(map[string]fileRecord, len(paths))}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rel := range paths {
		st, ok := p.Stat(rel)
		if !ok {
			return c.Invalidate() // not seen holding its bytes: no record is always safe
		}
		cf.Files[rel] = fileRecord{Stat: st, Fresh: c.hashes[rel], Op: c.ops[rel]}
	}
	data := cf.encode()
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	if _, err := atomicfile.Write(c.path, data, 0o644); err != nil {
		return err
	}
	if filepath.Base(c.path) == legacyCacheBase {
		// The JSON record gens wrote before the binary one, under the
		// same name plus .json: opforge's own file, read by no one now.
		_ = os.Remove(c.path + ".json")
	}
	return nil
}

// StoreAhead starts writing the item and section stores, which a plan
// made has filled: files of their own, written while Apply writes out/ and
// the record is made (Store waits for them). Their records are content
// addressed, so a gen that fails after this leaves none wrong, and a
// failed store only costs the next gen renders or parses. The returned
// func waits for them: a command that ends must not cut a store short.
func (c *Cache) StoreAhead() (wait func()) {
	c.storing = new(sync.WaitGroup)
	c.storing.Add(2)
	go func() { _ = c.sections.store(); c.storing.Done() }()
	go func() { _ = c.items.store(); c.storing.Done() }()
	return c.storing.Wait
}

// legacyCacheBase is the default cache's name; before the record became
// binary, gens kept it as this name plus ".json".
const legacyCacheBase = ".opforge-gen-cache"
