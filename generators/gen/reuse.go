package gen

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/opforge/opforge/generators/filestat"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/target"
	"github.com/opforge/opforge/generators/workpool"
	"github.com/opforge/opforge/generators/writer"
	"github.com/opforge/opforge/generators/yamldef"
)

// Reuser lets gen leave unrendered the files an op generates alone when
// nothing that reaches them changed (Cache implements it).
//
// Such a file — a target.Pather path with an op — is made from its op and
// its package's facts alone. Its key hashes everything that reaches it:
// the generator and its toolchain descriptors (Reuser.Generator), every
// target's template bytes, the target, the opdef's name, and the digests
// the loader took of the op's definition and of the package's outside its
// ops (ir.Package.Digest). Other ops, and where in the file the op stands,
// are not in it. TestIncrementalMatchesCold holds incremental gens to
// cold ones over random edits.
//
// Reusable and Keyed are called concurrently.
type Reuser interface {
	// Generator identifies the generator and its inputs besides the
	// opdefs.
	Generator() string
	// Reusable reports that the file at rel (below out/) was made from
	// key by the last gen and is on disk as that gen left it.
	Reusable(rel, key string) bool
	// Vouched is the stat the file at rel (or the manifest,
	// writer.ManifestName) had when the last gen recorded it: what
	// Reusable checked, which the writer checks again when it plans
	// (writer.Options.Vouched).
	Vouched(rel string) (filestat.Stat, bool)
	// Keyed records rel's key for the next gen.
	Keyed(rel, key string)
	// Shared is Keyed and Reusable for a file the ops share, whose key
	// stands for its bytes (ir.Reuse.Shared): when the file is not
	// reusable, the key is also its skeleton's hash for the next gen, and
	// Known, which would hash the skeleton's megabytes only to find it
	// changed, answers no.
	Shared(rel, key string) bool
	// Leftovers reports whether a writer, killed or running, has a
	// temporary or a journal below out/ (writer.Unsettled), as found once
	// under the gen lock: with none, Apply does not look for a killed
	// one's again (writer.Options.NoLeftovers).
	Leftovers() bool
	// Sections keeps the ops' sections of shared files (nil: none).
	Sections() ir.SectionStore
	// Items keeps the parsed items of the YAML opdefs' ops lists, so a
	// file with one op changed parses that op (nil: none).
	Items() yamldef.Chunks
	// LookAhead is the writer's look at the files the last gen recorded,
	// taken ahead, which Reusable vouched by and the plan then keeps files
	// by (nil: none; gen takes one at the files kept).
	LookAhead() *writer.LookAhead
}

// opKeys is what a Plan's reuse needs of its generation.
type opKeys struct {
	reuser    Reuser
	generator string
	// look, when set, takes the writer's look at the files kept, on a
	// goroutine of its own, as soon as they are known (the reuser's own,
	// which already walks every file, needs none).
	look *writer.LookAhead
}

func newOpKeys(r Reuser) *opKeys {
	if r == nil {
		return nil
	}
	return &opKeys{reuser: r, generator: r.Generator() + "\x00" + render.Digest()}
}

// key of the files op generates alone for target t ("": none, the loader
// gave no digest).
func (k *opKeys) key(t string, pkg *ir.Package, op *ir.Op) string {
	if pkg.Digest == "" || op.Digest == "" {
		return ""
	}
	return keyOf(k.generator, t, pkg.Source, pkg.Digest, op.Digest)
}

// keyOf hashes parts, each ended by a NUL, into a key.
func keyOf(parts ...string) string {
	h := sha256.New()
	for _, s := range parts {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// shared is ir.Reuse.Shared for target t's files. A shared file's key
// (its frame and its sections' sums, render.Package) stands for its
// bytes; the generator joins it because a file may hold no section (an
// op list left empty), and the generator's code, not only its templates,
// makes a file's bytes.
func (k *opKeys) shared(t string) func(path, key string) bool {
	return func(path, key string) bool {
		return k.reuser.Shared(t+"/"+path, keyOf(k.generator, t, path, key))
	}
}

// reuse records the key of every file an op of pkg generates alone for t
// and returns what Generate may reuse: those files the reuser vouches
// for (below the target's directory), the ops' keys and the section
// store.
func (k *opKeys) reuse(t target.Target, pkg *ir.Package) *ir.Reuse {
	if k == nil {
		return nil
	}
	ops := pkg.Ops
	if sel, ok := t.(target.OpSelector); ok {
		// A target that generates for few of the ops (or none) keys few.
		ops = sel.Ops(pkg)
	}
	r := &ir.Reuse{Keys: make(map[*ir.Op]string, len(ops)), Sections: k.reuser.Sections(), Shared: k.shared(t.Name())}
	// A key is a hash: the thousand of an op-heavy package are made on
	// every core, and only then put in the map.
	keys := make([]string, len(ops))
	workpool.Parallel(len(ops), func(i int) { keys[i] = k.key(t.Name(), pkg, ops[i]) })
	for i, op := range ops {
		if keys[i] != "" {
			r.Keys[op] = keys[i]
		}
	}
	p, ok := t.(target.Pather)
	if !ok {
		return r
	}
	// Whether a file is reusable is a stat of it: the thousands of an
	// op-heavy package's files are looked at on every core.
	paths := p.Paths(pkg)
	kept := make([]bool, len(paths))
	workpool.Parallel(len(paths), func(i int) {
		f := paths[i]
		key := r.Keys[f.Op]
		if f.Op == nil || key == "" {
			return
		}
		rel := t.Name() + "/" + pkg.Name + "/" + f.Path
		k.reuser.Keyed(rel, key)
		kept[i] = k.reuser.Reusable(rel, key)
	})
	n := 0
	for _, ok := range kept {
		if ok {
			n++
		}
	}
	if n == 0 {
		return r
	}
	r.Kept = make(map[string]bool, n)
	looks := make([]string, 0, n)
	for i, f := range paths {
		if kept[i] {
			r.Kept[pkg.Name+"/"+f.Path] = true
			looks = append(looks, t.Name()+"/"+pkg.Name+"/"+f.Path)
		}
	}
	if k.look != nil && len(looks) > 0 {
		// After every Reusable above: the writer's look follows the
		// cache's, as when the plan takes it.
		go k.look.Look(looks)
	}
	return r
}
