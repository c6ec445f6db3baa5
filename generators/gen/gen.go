package gen

import (
	"hash/maphash"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/reference"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/selection"
	"github.com/opforge/opforge/generators/stageclock"
	"github.com/opforge/opforge/generators/target"
	"github.com/opforge/opforge/generators/workpool"
	"github.com/opforge/opforge/generators/writer"
)

// Files generates the files of the targets ts (nil: every target,
// registry.All) for pkgs, and each package's reference module, keyed by
// paths relative to the output root (<target>/<...>), headers included.
func Files(pkgs []*ir.Package, ts []target.Target, l *diag.List) *fileset.Set {
	return generate(pkgs, ts, nil, l)
}

// generate is Files leaving unrendered the files keys vouches for (nil:
// none).
func generate(pkgs []*ir.Package, ts []target.Target, keys *opKeys, l *diag.List) *fileset.Set {
	if ts == nil {
		ts = registry.All()
	}
	// Every package also gets its reference module (out/reference/), the
	// one place the user writes each op in PyTorch.
	ts = append(slices.Clip(ts), reference.Generator{})
	// Every (target, package) pair generates in parallel into its own set
	// and diagnostics; merging in a fixed order keeps the output and the
	// diagnostics deterministic.
	type job struct {
		t   target.Target
		pkg *ir.Package
		set *fileset.Set
		l   diag.List
	}
	var jobs []*job
	for _, t := range ts {
		for _, pkg := range pkgs {
			jobs = append(jobs, &job{t: t, pkg: pkg})
		}
	}
	workpool.Parallel(len(jobs), func(i int) {
		j := jobs[i]
		// Each target generates the ops as narrowed for it (ir.Op.For).
		pkg := j.pkg.For(j.t.Name())
		if r := keys.reuse(j.t, pkg); r != nil {
			// A copy: For may return the package every target shares.
			c := *pkg
			c.Reuse = r
			pkg = &c
		}
		j.set = j.t.Generate(pkg, j.l.ForTarget(j.t.Name()))
	})
	for _, j := range jobs {
		l.Merge(&j.l)
	}
	// The files join in path order (.gitignore, then the targets by name,
	// each with its packages in name order), so the set keeps its order
	// as it fills instead of sorting thousands of paths.
	n := 1
	for _, j := range jobs {
		if j.set != nil {
			n += j.set.Len()
		}
	}
	all := fileset.NewSized(n)
	// out/.gitignore keeps build and import artifacts out of git, as the
	// drift check keeps them out of its verdict.
	ignore := strings.Join(writer.ArtifactPatterns, "\n") + "\n"
	_ = all.Add(&fileset.File{Path: ".gitignore", Data: fileset.WithHeader(".gitignore", []byte(ignore), fileset.GeneratedHeader("opdefs"))})
	slices.SortStableFunc(jobs, func(a, b *job) int { return strings.Compare(a.t.Name(), b.t.Name()) })
	for _, j := range jobs {
		if j.set == nil {
			continue
		}
		if err := all.Merge(j.t.Name(), j.set); err != nil {
			l.Errorf(diag.Pos{File: j.pkg.Source}, "internal", "%s: %v", j.t.Name(), err)
		}
	}
	checkWritable(all, l)
	return all
}

// checkWritable refuses a file set no file system could hold whole: a
// name over registry.MaxNameBytes, or two paths equal but for case. The
// targets' checks refuse the names that make them, at the name, before
// generation (registry.Check); this guards the paths actually generated.
func checkWritable(set *fileset.Set, l *diag.List) {
	files := set.Files()
	// Paths are told apart by a hash of their lower-cased runes, which
	// needs no lower-cased copy of each; equal hashes are compared by
	// the lower-cased strings.
	seed := maphash.MakeSeed()
	seen := make(map[uint64][]string, len(files))
	for _, f := range files {
		if len(f.Path) > registry.MaxNameBytes { // else no part of it is longer
			for part := range strings.SplitSeq(f.Path, "/") {
				if len(part) > registry.MaxNameBytes {
					l.Errorf(diag.Pos{File: f.Source}, "name-too-long", "generated file %s has a name of %d bytes; file systems take at most %d", f.Path, len(part), registry.MaxNameBytes)
					break
				}
			}
		}
		h := foldHash(seed, f.Path)
		others := seen[h]
		for i := len(others) - 1; i >= 0; i-- { // the latest, as one map by the lowered path kept it
			if strings.ToLower(others[i]) == strings.ToLower(f.Path) {
				l.Errorf(diag.Pos{File: f.Source}, "path-collision", "generated files %s and %s differ only in case, so on macOS and Windows they are one file", others[i], f.Path)
				break
			}
		}
		seen[h] = append(others, f.Path)
	}
}

// foldHash hashes strings.ToLower(s), the UTF-8 of each rune lowered,
// without making it.
func foldHash(seed maphash.Seed, s string) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var buf [utf8.UTFMax]byte
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			h.WriteByte(byte(r))
			continue
		}
		h.Write(utf8.AppendRune(buf[:0], unicode.ToLower(r)))
	}
	return h.Sum64()
}

// Options locate the inputs and the output of generation.
type Options struct {
	OpDefs     string // opdefs/
	Toolchains string // toolchains/
	// ToolchainsGiven says the user named Toolchains (--toolchains): a
	// folder that is not there is then probably a typo, and is warned of;
	// the repository's own toolchains/ may be absent.
	ToolchainsGiven bool
	Out             string // out/
	// Known, when set, vouches for files the writer then neither reads
	// nor writes (Cache.Unchanged); the drift check never sets it.
	Known writer.Known
	// Reuse, when set, vouches for files an op generates alone, which are
	// then not even rendered (Cache); the drift check never sets it.
	Reuse Reuser
	// Force overwrites hand edits outside user regions and of generated
	// files instead of stopping (gen --force).
	Force bool
	// Packages, when set, limits generation (and the drift check) to these
	// packages: every opdef is still loaded and checked, but only their
	// files are written, removed or compared.
	Packages []string
	// Ops, when set, limits them further to these ops' packages, less the
	// files another op of those packages generates alone.
	Ops []string
	// Rename, when set, makes the plan a rename (opforge mv) in one
	// all-or-nothing Apply with the opdef it edits.
	Rename *Rename
	// Clock, when set, times Plan's stages (OPFORGE_STAGES).
	Clock *stageclock.Clock
}

// Rename is a rename computed in memory: Package, the opdef as renamed
// (not on disk yet), replaces the loaded package of the same Source, and
// the writer carries the user code and writes the opdef (writer.Options).
type Rename struct {
	Package *ir.Package
	Carry   map[string]writer.Carry
	Outside []writer.Outside
	Move    *writer.Move
}

// DefaultOptions are the repository layout.
var DefaultOptions = Options{OpDefs: "opdefs", Toolchains: "toolchains", Out: "out"}

// Plan loads and checks every op definition, generates every target and
// merges with the tree under o.Out. The plan must not be applied when l
// has errors; it is nil when loading failed.
func Plan(o Options, l *diag.List) *writer.Plan {
	var ld load.Loader
	if o.Reuse != nil {
		ld.Chunks = o.Reuse.Items()
	}
	pkgs := ld.Tree(o.OpDefs, l)
	o.Clock.Mark("load")
	// The templates parse while the targets check, mostly on one core.
	defer render.Warm()()
	registry.Check(l, pkgs...)
	o.Clock.Mark("check")
	if l.HasErrors() {
		return nil
	}
	if o.Rename != nil {
		for i, pkg := range pkgs {
			if pkg.Source == o.Rename.Package.Source {
				pkgs[i] = o.Rename.Package
			}
		}
	}
	// Headers name the definition relative to the repository root, not to
	// the working directory, so every machine generates the same bytes.
	for _, pkg := range pkgs {
		pkg.Source = SourceName(o.OpDefs, pkg.Source)
	}
	// A toolchains directory that was asked for but is not there is
	// probably a typo: the built-in descriptors serve, and say so.
	if o.ToolchainsGiven {
		if _, err := os.Stat(o.Toolchains); err != nil {
			l.Warnf(diag.Pos{File: filepath.ToSlash(o.Toolchains)}, "toolchain", "no toolchains directory here (%v); the descriptors built into opforge serve", err)
		}
	}
	ts := registry.WithToolchains(o.Toolchains)
	var scope func(string) bool
	if len(o.Packages) > 0 || len(o.Ops) > 0 {
		sel := selection.Flags{Packages: o.Packages, Ops: o.Ops}
		if pkgs = sel.Resolve(pkgs, filepath.ToSlash(o.OpDefs), l); pkgs == nil {
			return nil
		}
	}
	keys := newOpKeys(o.Reuse)
	if o.Rename != nil || len(o.Packages) > 0 || len(o.Ops) > 0 {
		// A rename carries code into files, and a partial gen keeps no
		// record: every file renders.
		keys = nil
	}
	// The manifest is read while the targets generate (a core is often
	// idle then); the writer takes it if it is unchanged when it plans.
	ahead := writer.StartReadAhead(filepath.Clean(o.Out))
	var look *writer.LookAhead
	if keys != nil {
		// The reuser's look, which it vouched by, is the plan's; without
		// one, the plan's look at the kept files starts once they are known.
		if look = o.Reuse.LookAhead(); look == nil {
			look = writer.NewLookAhead(filepath.Clean(o.Out))
			keys.look = look
		}
	}
	files := generate(pkgs, ts, keys, l)
	o.Clock.Mark("generate")
	if l.HasErrors() {
		return nil
	}
	switch {
	case len(o.Ops) > 0:
		// The plan holds only the named ops' own files and their packages'
		// shared ones: another op's own files are neither merged, nor
		// written, nor compared.
		others := othersOwnFiles(pkgs, o.Ops, ts)
		kept := fileset.New()
		for _, f := range files.Files() {
			if !others[f.Path] {
				_ = kept.Add(f)
			}
		}
		files = kept
		// Nor is any file those ops do not generate now: a stale file may
		// be another (removed) op's, which only a wider gen removes.
		scope = func(path string) bool {
			return files.Get(path) != nil || strings.Count(path, "/") < 2
		}
	case len(o.Packages) > 0:
		scope = packageScope(files)
	}
	wo := writer.Options{Known: o.Known, Force: o.Force, Scope: scope, ReadAhead: ahead}
	if r := o.Rename; r != nil {
		wo.Carry, wo.Outside, wo.Move = r.Carry, r.Outside, r.Move
	}
	defer o.Clock.Mark("plan")
	if keys == nil {
		return writer.PrepareWith(filepath.Clean(o.Out), files, wo, l)
	}
	wo.Vouched = o.Reuse.Vouched
	wo.NoLeftovers = !o.Reuse.Leftovers()
	wo.LookAhead = look
	var pl diag.List
	plan := writer.PrepareWith(filepath.Clean(o.Out), files, wo, &pl)
	if len(plan.Unvouched) > 0 {
		// A kept file the writer cannot take as it is (it or the manifest
		// changed since the cache vouched for it, or it is gone): render
		// everything. The targets' warnings were merged the first time;
		// an error only this rendering meets stops the plan.
		var again diag.List
		files = Files(pkgs, ts, &again)
		if again.HasErrors() {
			l.Merge(&again)
			return nil
		}
		pl = diag.List{}
		wo.Vouched = nil
		plan = writer.PrepareWith(filepath.Clean(o.Out), files, wo, &pl)
	}
	l.Merge(&pl)
	return plan
}

// packageScope accepts the paths of the package directories the files
// lie in (<target>/<package dir>/...) and the files at the top of out/:
// a filtered gen touches nothing of another package.
func packageScope(files *fileset.Set) func(string) bool {
	dirs := map[string]bool{}
	for _, f := range files.Files() {
		if parts := strings.SplitN(f.Path, "/", 3); len(parts) == 3 {
			dirs[parts[0]+"/"+parts[1]] = true
		}
	}
	return func(path string) bool {
		parts := strings.SplitN(path, "/", 3)
		return len(parts) < 3 || dirs[parts[0]+"/"+parts[1]]
	}
}

// SourceName is how a definition file is named in headers: its path below
// the parent of the opdefs directory ("opdefs/vision/vision_ops.yaml").
func SourceName(opdefs, path string) string {
	rel, err := filepath.Rel(filepath.Dir(filepath.Clean(opdefs)), path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// othersOwnFiles are the files each op not named generates alone: what
// disappears from its package's files when that op is left out. Which
// files are an op's own is the targets' business, so they are asked.
func othersOwnFiles(pkgs []*ir.Package, ops []string, ts []target.Target) map[string]bool {
	own := map[string]bool{}
	for _, pkg := range pkgs {
		var discard diag.List
		all := Files([]*ir.Package{pkg}, ts, &discard)
		for _, op := range pkg.Ops {
			if slices.Contains(ops, op.Name) {
				continue
			}
			without := *pkg
			without.Ops = slices.DeleteFunc(slices.Clone(pkg.Ops), func(x *ir.Op) bool { return x == op })
			rest := Files([]*ir.Package{&without}, ts, &discard)
			for _, p := range all.Paths() {
				if rest.Get(p) == nil {
					own[p] = true
				}
			}
		}
	}
	return own
}
