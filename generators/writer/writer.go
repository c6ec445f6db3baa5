package writer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/filestat"
	"github.com/opforge/opforge/generators/regions"
	"github.com/opforge/opforge/generators/workpool"
)

// ManifestName is the manifest's file name in the output root.
const ManifestName = "opforge.manifest.json"

// PendingName is the journal of a gen under way, in the output root: the
// manifests of every Apply begun since the last one that finished. A gen
// killed between its first rename and its manifest leaves files holding
// bytes no manifest names; the journal lets the next gen recognise them as
// opforge's own, not as hand edits.
const PendingName = ".opforge.pending.json"

// manifestVersion 2 added Hash; version 1 manifests are still read (their
// files are trusted as before, but none is deleted as stale: nothing says
// what opforge wrote there).
const manifestVersion = 2

// Manifest lists every file opforge generated under the root, with the
// default-body hashes of the user regions of owned files.
type Manifest struct {
	Version int            `json:"version"`
	Files   []ManifestFile `json:"files"`
	// Move, in the journal only, is the rename (opforge mv) this Apply
	// makes: what Recover needs to finish or roll it back.
	Move *Move `json:"move,omitempty"`
}

// ManifestFile is one generated file.
type ManifestFile struct {
	Path  string `json:"path"`
	Owned bool   `json:"owned,omitempty"`
	// Hash fingerprints what opforge wrote: the whole file, or for an
	// owned file everything outside its user regions (Fingerprint).
	Hash    string            `json:"hash,omitempty"`
	Regions map[string]string `json:"regions,omitempty"`
	// regionsText, when set, is the region map as the manifest was read
	// (parseCanonical, lazy), Regions being nil: regions makes the map.
	regionsText string
}

// Fingerprint is the hash the manifest records of a file's bytes: of the
// whole file, or of an owned file's frame (user region bodies left out,
// since they are the user's to change). Trailing whitespace is ignored,
// like region bodies, so an editor's clean-up is no hand edit.
func Fingerprint(data []byte, owned bool) (string, error) {
	if !owned {
		return regions.HashBytes(data), nil
	}
	return regions.FrameHash(data)
}

// Plan is what regeneration would do.
type Plan struct {
	Root string
	// Files is the complete new tree (user regions merged, manifest
	// included), path order.
	Files *fileset.Set
	// Stale are paths of files generated earlier that are no longer produced.
	Stale []string
	// manifestStat is the manifest's stat taken before reading it (nil:
	// none), which a kept file's vouching needs unchanged; manifestVouched
	// says the gen cache vouches for the manifest at that stat, with no
	// journal pending (Options.Vouched), once for every file it asks.
	manifestStat    *filestat.Stat
	manifestVouched bool
	// Unvouched are files the generator kept unrendered (fileset.File.Kept)
	// that the writer cannot take as they are: changed since the gen cache
	// looked, missing, or without the
	// manifest entry the last gen wrote. Such a plan must not be applied;
	// the caller plans again with them rendered.
	Unvouched []string
	// gone are stale paths already missing (a killed gen removed them):
	// Apply removes their directories when empty, as it would have.
	gone []string
	// onDisk is what Prepare found at each path of Files, so that Apply
	// neither reads the tree again nor writes what is already there.
	onDisk map[string]diskState
	// old holds what Prepare read of each file Apply replaces or removes
	// (bytes and mode), so a failed Apply can put it back.
	old map[string]oldFile
	// stats is the stat of each file of Files as this process last saw it
	// holding its planned bytes (Prepare's lstat before reading, or
	// Apply's after writing); Stat hands it to the gen cache.
	stats map[string]filestat.Stat
	// pending are the journal's manifests (PendingName) found by Prepare,
	// pendingData its bytes (nil: none); manifest is the new manifest.
	pending     []Manifest
	pendingData []byte
	manifest    *Manifest
	// journalBuf is the journal of the manifest alone, whose bytes past
	// its "[" are the manifest file's (addManifest).
	journalBuf []byte
	// paths is what Prepare learnt of the directories, which tells Apply
	// the new ones it stages.
	paths *pathChecker
	// ahead is Options.LookAhead when this plan took it.
	ahead *LookAhead
	// scope limits Diff to the paths the plan covers (nil: all).
	scope func(path string) bool
	// noLeftovers: Options.NoLeftovers.
	noLeftovers bool
	// A rename's: the text read at each path whose user code is carried
	// (Options.Carry), the files outside the root it changes, and its name.
	carried map[string][]byte
	outside []outsideFile
	move    *Move
	// oldRaw are the entries of the manifest read, with their bytes, by
	// path: an entry the new manifest takes over unchanged is written by
	// copying them (addManifest).
	oldRaw map[string]rawEntry
	// oldManifest is the manifest's bytes before (nil: none), for a
	// rename's journal.
	oldManifest []byte
}

type oldFile struct {
	data []byte
	mode fs.FileMode
	stat filestat.Stat // lstat before reading data: Apply checks it is unchanged
}

// Stat returns the stat of the file at path as this process last saw it
// holding the plan's bytes (false when it never did): the only stat the
// gen cache may record, since a stat taken later could be another
// process's file.
func (p *Plan) Stat(path string) (filestat.Stat, bool) {
	st, ok := p.stats[path]
	return st, ok
}

// diskState is what the output root holds at a planned path.
type diskState uint8

const (
	diskAbsent  diskState = iota // nothing there: create
	diskSame                     // the planned bytes: leave alone
	diskDiffers                  // other bytes: replace
)

// Stats reports what Apply did.
type Stats struct {
	Written, Unchanged, Removed int
	BytesWritten                int64
}

func rel(root, p string) string { return filepath.ToSlash(filepath.Join(root, filepath.FromSlash(p))) }

// errNotRegular is a path holding a directory, FIFO, device or socket.
var errNotRegular = atomicfile.ErrNotRegular

// readFile reads a regular file (atomicfile.ReadRegular: a FIFO put there
// after the lstat cannot hang gen or check). A variable so tests can
// inject I/O errors.
var readFile = atomicfile.ReadRegular

// ReadManifest loads the manifest under root; a missing one is empty.
func ReadManifest(root string) (*Manifest, error) {
	m, _, err := readManifest(root)
	return m, err
}

// readManifest also returns the manifest's bytes (nil when missing).
func readManifest(root string) (*Manifest, []byte, error) {
	m, data, _, err := readManifestRaw(root, false)
	return m, data, err
}

// readManifestRaw is readManifest that also gives the entries' bytes
// (unmarshalManifestRaw), leaving the region maps to be made on demand
// when lazy.
func readManifestRaw(root string, lazy bool) (*Manifest, []byte, []string, error) {
	data, err := readFile(filepath.Join(root, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return &Manifest{Version: manifestVersion}, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	m, raws, err := unmarshalManifestRaw(data, lazy)
	if err != nil {
		return nil, data, nil, fmt.Errorf("%s: %v", ManifestName, err)
	}
	return m, data, raws, nil
}

// readPending loads the journal of unfinished Applies and its bytes (none
// when missing).
func readPending(root string) ([]Manifest, []byte, error) {
	data, err := readFile(filepath.Join(root, PendingName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var ms []Manifest
	if err := json.Unmarshal(data, &ms); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", PendingName, err)
	}
	return ms, data, nil
}

// Known reports, without reading the disk, that the file at path already
// holds what Prepare would make of the fresh skeleton data (user regions
// merged in): typically because the same skeleton was generated there last
// time and the file has not been touched since. It is called once for every
// file, concurrently. When it is wrong, the user's disk wins: a file it
// vouches for is neither read nor written.
type Known func(path string, fresh []byte) bool

// Options change what Prepare does.
type Options struct {
	// Known (nil: read every file) vouches for files; a file it vouches
	// for keeps its fresh skeleton bytes in the plan, which is then only
	// fit for Apply (that leaves such files alone), not for Diff.
	Known Known
	// Vouched gives the stat the gen cache vouched for a file with when it
	// let the generator keep it unrendered (fileset.File.Kept), and the
	// manifest's: a kept file is taken as it is only while both still
	// have those stats when this plan looks (nil: no kept file is).
	Vouched func(path string) (filestat.Stat, bool)
	// ReadAhead, when set, is the manifest read while the caller
	// generated (StartReadAhead); the plan takes it if the manifest has
	// not changed since.
	ReadAhead *ReadAhead
	// LookAhead, when set, holds looks at files the plan keeps
	// (fileset.File.Kept) taken while the caller generated. Only those
	// files' looks come from it; the plan checks every other path's
	// directories itself.
	LookAhead *LookAhead
	// NoLeftovers says the caller walked the tree and found nothing a
	// killed writer left (HasLeftovers), holding a lock that keeps every
	// other writer out until Apply: Apply then walks it no more.
	NoLeftovers bool
	// Force overwrites hand edits outside user regions and of generated
	// files (generated-edited) instead of stopping.
	Force bool
	// Scope, when set, limits the plan to the paths it accepts (gen
	// --package): a path outside it is neither written, nor removed, nor
	// reported by Diff, and keeps its manifest entry.
	Scope func(path string) bool
	// Carry, Outside and Move make the plan a rename (opforge mv): user
	// code carried from old paths to new ones (the old files then removed
	// as stale though they hold user code: it moved), files outside the
	// root changed in the same all-or-nothing Apply, and the rename's name
	// for the journal. Move is required with the other two.
	Carry   map[string]Carry
	Outside []Outside
	Move    *Move
}

// Prepare computes the new tree: fresh skeletons with the user regions of
// the files on disk merged in, the new manifest, and the stale files.
// Every problem goes to l; the plan must not be applied when l has errors.
func Prepare(root string, fresh *fileset.Set, l *diag.List) *Plan {
	return PrepareWith(root, fresh, Options{}, l)
}

// record is what the manifest and the journal know of one path: the
// entries opforge wrote there, the current manifest's first.
type record []ManifestFile

// match returns the entry whose fingerprint data has, and whether any
// entry has a fingerprint at all (version 1 manifests have none).
func (r record) match(data []byte) (m *ManifestFile, hashed bool) {
	var got [2]string // fingerprint as generated, as owned (computed once each)
	for i := range r {
		if r[i].Hash == "" {
			continue
		}
		hashed = true
		k := 0
		if r[i].Owned {
			k = 1
		}
		if got[k] == "" {
			h, err := Fingerprint(data, r[i].Owned)
			if err != nil {
				h = "!" // unreadable regions: matches no entry
			}
			got[k] = h
		}
		if r[i].Hash == got[k] {
			return &r[i], true
		}
	}
	return nil, hashed
}

// regions returns the default-body hashes to merge with: those of the
// entry that wrote the file, else the manifest's.
func (r record) regions(m *ManifestFile) map[string]string {
	if m != nil {
		return m.regions()
	}
	if len(r) > 0 {
		return r[0].regions()
	}
	return nil
}

// PrepareWith is Prepare with Options.
func PrepareWith(root string, fresh *fileset.Set, o Options, l *diag.List) *Plan {
	n := fresh.Len() + 1 // the manifest's entry besides
	p := &Plan{Root: root, Files: fileset.NewSized(n), onDisk: make(map[string]diskState, n), old: map[string]oldFile{}, stats: make(map[string]filestat.Stat, n), paths: newPathChecker(root), noLeftovers: o.NoLeftovers}
	if a := o.LookAhead; a != nil && a.paths.root == root && a.taken.CompareAndSwap(false, true) {
		// Only the kept files' looks: the directories every other file
		// (and Apply) goes through are checked by this plan, as late as
		// before. A directory swapped for a symlink while the targets
		// rendered must not be trusted from the look ahead.
		p.ahead = a
	}
	if !rootIsDirectory(root, l) {
		return p
	}
	// The manifest's stat before reading it, for the gen cache (as for
	// every file: a change after this lstat shows as a different stat).
	manifestInfo, _ := p.paths.check(ManifestName)
	if manifestInfo != nil {
		st := filestat.FromInfo(manifestInfo)
		p.manifestStat = &st
	}
	old, oldData, ok := p.readManifests(o.ReadAhead, l)
	if !ok {
		return p
	}
	p.oldManifest = oldData
	p.move = o.Move
	records, order := collectRecords(old, p.pending)
	if o.Move != nil {
		p.prepareOutside(o.Outside, l)
		p.prepareCarry(o.Carry, records, o.Force, l)
	}
	manifest := &Manifest{Version: manifestVersion, Files: make([]ManifestFile, 0, n)}
	if o.Vouched != nil && p.manifestStat != nil && len(p.pending) == 0 {
		want, ok := o.Vouched(ManifestName)
		p.manifestVouched = ok && want == *p.manifestStat
	}
	p.prepareFiles(fresh, o, records, manifest, l)
	p.prepareStale(fresh, old, order, records, o.Scope, manifest, l)
	p.addManifest(manifest, oldData, manifestInfo)
	return p
}

// rootIsDirectory refuses the root as a symlink like every path below it:
// writing through it would put the tree wherever the link points.
func rootIsDirectory(root string, l *diag.List) bool {
	if fi, err := os.Lstat(root); err == nil && (fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir()) {
		l.Errorf(diag.Pos{File: filepath.ToSlash(root)}, "unsafe-path", "the output directory %s is a symlink or not a directory; opforge does not write through links: make it a real directory (nothing was written)", root)
		return false
	}
	return true
}

// readManifests reads the manifest (an empty one when unreadable) and the
// journal of an interrupted gen into p; false: an interrupted rename,
// which only Recover may finish.
func (p *Plan) readManifests(ahead *ReadAhead, l *diag.List) (old *Manifest, oldData []byte, ok bool) {
	root := p.Root
	old, oldData, raws, read := ahead.take(p.manifestStat)
	var err error
	if !read {
		old, oldData, raws, err = readManifestRaw(root, true)
	}
	if err == nil && len(raws) == len(old.Files) {
		p.oldRaw = make(map[string]rawEntry, len(raws))
		for i, raw := range raws {
			if raw != "" {
				p.oldRaw[old.Files[i].Path] = rawEntry{old.Files[i], raw}
			}
		}
	}
	if err != nil {
		l.Errorf(diag.Pos{File: rel(root, ManifestName)}, "manifest", "cannot read the manifest: %v; restore it from git", err)
		old = &Manifest{Version: manifestVersion}
	}
	pending, pendingData, err := readPending(root)
	if err != nil {
		l.Errorf(diag.Pos{File: rel(root, PendingName)}, "manifest", "cannot read the journal of an interrupted gen: %v; delete it and check your user regions with `git diff`", err)
	}
	p.pending, p.pendingData = pending, pendingData
	for _, m := range pending {
		if m.Move != nil {
			// Recover, not Prepare, decides where an interrupted rename goes.
			l.Errorf(diag.Pos{File: rel(root, PendingName)}, "interrupted-mv", "`%s` was interrupted; run `opforge gen` (or the same mv again), which finishes or rolls it back; delete no file by hand: until then, some user code may be only in the old or only in the new name's files", m.Move)
			return old, oldData, false
		}
	}
	return old, oldData, true
}

// collectRecords gathers what the manifest old and the journal's manifests
// pending know of each path; order lists the paths, first seen first.
func collectRecords(old *Manifest, pending []Manifest) (records map[string]record, order []string) {
	// The manifest's entries start their records as one-entry slices of
	// one array (a record a journal adds to grows out of it): a 4,000-file
	// manifest made 4,000 allocations here, and the map grew as often.
	records = make(map[string]record, len(old.Files))
	order = make([]string, 0, len(old.Files))
	first := slices.Clone(old.Files)
	for i := range first {
		f := &first[i]
		if r, ok := records[f.Path]; ok {
			records[f.Path] = append(r, *f)
			continue
		}
		order = append(order, f.Path)
		records[f.Path] = first[i : i+1 : i+1]
	}
	for _, m := range pending {
		for _, f := range m.Files {
			if _, ok := records[f.Path]; !ok {
				order = append(order, f.Path)
			}
			records[f.Path] = append(records[f.Path], f)
		}
	}
	return records, order
}

// prepareFiles puts fresh's files in the plan and their entries in
// manifest. Each file is checked and merged with its copy on disk in
// parallel (reading and scanning the old tree is most of a regeneration's
// work); results and diagnostics are then taken in path order.
func (p *Plan) prepareFiles(fresh *fileset.Set, o Options, records map[string]record, manifest *Manifest, l *diag.List) {
	files := fresh.Files()
	results := make([]fileResult, len(files))
	// Written through once here, before the workers take them: a fresh
	// megabyte of results is first read by each worker (the nil check of
	// its pointer), which maps the zero page, and the write after it then
	// copies the page and stops the other core to flush its TLB, a few
	// milliseconds of a one-op gen on a two-core virtual machine.
	clear(results)
	// The largest files start first: hashing and merging a package's
	// megabyte-sized shared files while the thousands of small ones were
	// shared out left one core working alone at the end.
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(files[b].Data), len(files[a].Data)) })
	workpool.Parallel(len(files), func(j int) {
		i := order[j]
		p.prepareFile(files[i], o, records, &results[i])
	})
	for i := range results {
		l.Merge(&results[i].l)
		r := results[i]
		if r.unvouched {
			p.Unvouched = append(p.Unvouched, r.file.Path)
		}
		if !r.ok {
			continue
		}
		f := r.file
		manifest.Files = append(manifest.Files, r.entry)
		p.onDisk[f.Path] = r.disk
		if r.old != nil {
			p.old[f.Path] = *r.old
		}
		if r.stat != nil {
			p.stats[f.Path] = *r.stat
		}
		_ = p.Files.Add(f)
	}
}

// fileResult is what prepareFile makes of one fresh file: the plan's
// file and its manifest entry, taken only when ok; the state of its copy
// on disk, the copy itself when replaced and its stat; its diagnostics.
type fileResult struct {
	file  *fileset.File
	entry ManifestFile
	ok    bool
	disk  diskState
	old   *oldFile
	stat  *filestat.Stat
	l     diag.List
	// unvouched: a kept file this plan cannot take as it is (Plan.Unvouched).
	unvouched bool
}

// prepareFile checks the fresh file src and merges the user code of its
// copy on disk (or carried by a rename) into a copy of it, in r.
func (p *Plan) prepareFile(src *fileset.File, o Options, records map[string]record, r *fileResult) {
	// The plan's files are new values: fresh (the generator's) is never
	// changed, whatever is merged into the plan.
	f := new(fileset.File)
	*f = *src
	r.file = f
	fi, ok := p.checkTarget(f, &r.l)
	if !ok {
		return
	}
	if f.Kept {
		p.prepareKept(f, fi, o, records[f.Path], r)
		return
	}
	c, carried := o.Carry[f.Path]
	// Known is asked about every file not carried: the gen cache records
	// each skeleton's hash as it answers.
	known := !carried && o.Known != nil && o.Known(f.Path, f.Data) && fi != nil
	if known {
		// The last gen made this file from this skeleton; while the
		// manifest is the one it wrote, its entry is this skeleton's, and
		// hashing the skeleton's regions again (megabytes for a package's
		// Python module) is saved.
		if st, vouched := p.vouchedEntry(f, fi, o, records[f.Path]); vouched {
			r.entry, r.stat, r.disk, r.ok = records[f.Path][0], &st, diskSame, true
			return
		}
	}
	if r.entry, ok = p.newEntry(f, &r.l); !ok {
		return
	}
	if fi != nil {
		st := filestat.FromInfo(fi) // taken before reading: a later change shows
		r.stat = &st
	}
	if carried {
		p.prepareCarried(f, fi, c, records, r)
		return
	}
	if known {
		r.disk, r.ok = diskSame, true
		return
	}
	disk, read := p.readTarget(f, fi, r)
	if !read {
		return
	}
	p.mergeDisk(f, fi, disk, records[f.Path], o.Force, r)
}

// prepareKept takes a file the generator left unrendered as it is on disk
// (fi), with the manifest entry the last gen wrote for it (rec's first,
// the current manifest's when no journal is pending): the gen cache
// vouched that both are what this generation would make, and this plan
// took both stats after it did, so a change made since shows here.
// Anything else — the file or the manifest changed since the cache looked
// (o.Vouched), no file, no entry, a journal, a rename carrying code here —
// leaves it unvouched.
func (p *Plan) prepareKept(f *fileset.File, fi fs.FileInfo, o Options, rec record, r *fileResult) {
	if _, carried := o.Carry[f.Path]; carried {
		r.unvouched = true
		return
	}
	st, ok := p.vouchedEntry(f, fi, o, rec)
	if !ok {
		r.unvouched = true
		return
	}
	r.entry, r.stat, r.disk, r.ok = rec[0], &st, diskSame, true
}

// vouchedEntry reports whether the manifest entry the last gen wrote for
// f (rec's first, with no journal pending) may stand as this plan's: the
// gen cache vouches (o.Vouched) for the file at its stat now (fi) and for
// the manifest at the stat this plan took before reading it. st is fi's.
func (p *Plan) vouchedEntry(f *fileset.File, fi fs.FileInfo, o Options, rec record) (st filestat.Stat, ok bool) {
	if fi == nil || !p.manifestVouched || len(rec) == 0 || rec[0].Path != f.Path || rec[0].Owned != f.Owned || rec[0].Hash == "" {
		return st, false
	}
	st = filestat.FromInfo(fi)
	want, ok := o.Vouched(f.Path)
	if !ok || want != st {
		return st, false
	}
	return st, true
}

// checkTarget refuses to write f where the manifest lies, through a link
// or over what is not a regular file; fi is the file there (nil: none).
func (p *Plan) checkTarget(f *fileset.File, l *diag.List) (fi fs.FileInfo, ok bool) {
	pos := diag.Pos{File: rel(p.Root, f.Path)}
	if f.Path == ManifestName || f.Path == PendingName {
		l.Errorf(pos, "internal", "a target generated the manifest's path")
		return nil, false
	}
	var err error
	if f.Kept && p.ahead != nil {
		fi, err = p.ahead.check(f.Path)
	} else {
		fi, err = p.paths.check(f.Path)
	}
	if err != nil {
		l.Errorf(pos, "unsafe-path", "%v", err)
		return nil, false
	}
	if fi != nil && !fi.Mode().IsRegular() {
		l.Errorf(pos, "unsafe-path", "%s is a %s, not a regular file; opforge neither opens nor replaces it: move it away, then regenerate (nothing was written)", rel(p.Root, f.Path), kind(fi.Mode()))
		return nil, false
	}
	return fi, true
}

// newEntry is f's manifest entry: its regions' default bodies when owned
// and its fingerprint.
func (p *Plan) newEntry(f *fileset.File, l *diag.List) (ManifestFile, bool) {
	pos := diag.Pos{File: rel(p.Root, f.Path)}
	entry := ManifestFile{Path: f.Path, Owned: f.Owned}
	// The frame of the merged file is the skeleton's: merging changes
	// region bodies only.
	var err error
	if f.Owned {
		entry.Regions, entry.Hash, err = regions.SkeletonHashes(f.Data)
	} else {
		entry.Hash, err = Fingerprint(f.Data, false)
	}
	if err != nil {
		l.Errorf(pos, "internal", "generated skeleton has malformed regions: %v", err)
		return entry, false
	}
	return entry, true
}

// prepareCarried merges into f the user code a rename carries to it (c):
// from another path, to which nothing may be in the way (fi), or from f's
// own path, its region keys renamed.
func (p *Plan) prepareCarried(f *fileset.File, fi fs.FileInfo, c Carry, records map[string]record, r *fileResult) {
	if c.From != f.Path {
		if fi != nil {
			r.l.Errorf(diag.Pos{File: rel(p.Root, f.Path)}, "rename", "exists already; a rename would put the code of %s here: move it away (nothing was renamed)", rel(p.Root, c.From))
			return
		}
		r.disk, r.ok, r.stat = diskAbsent, true, nil
		r.ok = p.carryInto(f, c, records[c.From], &r.l)
		return
	}
	disk, read := p.carried[f.Path] // read once, by prepareCarry
	if !read {
		r.disk, r.ok, r.stat = diskAbsent, fi == nil, nil
		return
	}
	if r.ok = p.carryInto(f, c, records[f.Path], &r.l); !r.ok {
		return
	}
	r.disk, r.stat = diskDiffers, nil
	if bytes.Equal(disk, f.Data) {
		r.disk = diskSame
		return
	}
	old := p.old[f.Path]
	r.old = &old
}

// readTarget reads the file at f's path (fi: its stat, nil when missing);
// read false: nothing to merge, r says why (absent, or unreadable).
func (p *Plan) readTarget(f *fileset.File, fi fs.FileInfo, r *fileResult) (disk []byte, read bool) {
	if fi == nil { // below a missing directory, or missing: nothing to read
		r.disk, r.ok, r.stat = diskAbsent, true, nil
		return nil, false
	}
	disk, err := readFile(filepath.Join(p.Root, filepath.FromSlash(f.Path)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.disk, r.ok, r.stat = diskAbsent, true, nil
		return nil, false
	case err != nil:
		// Replacing what cannot be read would drop its user regions.
		r.l.Errorf(diag.Pos{File: rel(p.Root, f.Path)}, "read", "cannot read this file (%v); gen never replaces a file it cannot read: fix its permissions or the disk, then regenerate (nothing was written)", err)
		return nil, false
	}
	return disk, true
}

// mergeDisk merges the user regions of disk, f's copy on disk (fi its
// stat, rec what gens wrote there), into f, and refuses (unless force) to
// replace hand edits or a file no gen wrote.
func (p *Plan) mergeDisk(f *fileset.File, fi fs.FileInfo, disk []byte, rec record, force bool, r *fileResult) {
	// Which earlier gen wrote the file matters for the defaults to
	// merge with only when the journal names it too; otherwise the
	// fingerprint of the disk is needed only when the bytes change. It is
	// then always taken of the bytes read, never trusted to a stat: it is
	// what keeps a hand edit from being overwritten, and an edit can keep
	// a file's size, mtime and inode (touch -r, cp -p, a coarse clock).
	var wrote *ManifestFile
	hashed, matched := false, false
	if len(rec) > 1 {
		wrote, hashed = rec.match(disk)
		matched = true
	}
	if f.Owned {
		merged, ok := mergeOwned(p.Root, f, disk, rec.regions(wrote), &r.l)
		if !ok {
			return
		}
		f.Data = merged
	}
	if bytes.Equal(disk, f.Data) {
		r.disk, r.ok = diskSame, true
		return
	}
	if !matched {
		wrote, hashed = rec.match(disk)
	}
	if hashed && wrote == nil && !force {
		editedError(p.Root, f, disk, &r.l)
		return
	}
	// No gen recorded writing this path: the file there is someone's
	// (or the manifest that knew it is gone), and its bytes cannot be
	// told from opforge's. Replacing it could drop them.
	// The file stays in the plan (so the drift check says how it
	// differs); the error keeps gen from applying it.
	if len(rec) == 0 && !force {
		unknownFileError(p.Root, f, disk, p.oldManifest == nil, &r.l)
	}
	r.disk, r.ok, r.stat = diskDiffers, true, nil
	r.old = &oldFile{data: disk, mode: fi.Mode().Perm(), stat: filestat.FromInfo(fi)}
}

// prepareStale plans the removal of the stale files: those written
// earlier (order, records; old the manifest) that the opdefs no longer
// generate. Fresh, not the plan, decides, so a still generated file that
// failed above is never called stale. A path outside scope keeps its
// manifest entry.
func (p *Plan) prepareStale(fresh *fileset.Set, old *Manifest, order []string, records map[string]record, scope func(string) bool, manifest *Manifest, l *diag.List) {
	// Only a scoped plan keeps old entries (a whole gen's is 4,000 of them).
	var oldEntry map[string]ManifestFile
	if scope != nil {
		oldEntry = make(map[string]ManifestFile, len(old.Files))
		for _, f := range old.Files {
			oldEntry[f.Path] = f
		}
	}
	p.scope = scope
	for _, path := range order {
		switch {
		case fresh.Get(path) != nil:
		case scope != nil && !scope(path):
			if e, ok := oldEntry[path]; ok {
				manifest.Files = append(manifest.Files, e)
			}
		default:
			p.stale(path, records[path], l)
		}
	}
}

// addManifest puts the new manifest in the plan, in path order; it is the
// same on disk when it equals oldData (then its stat, manifestInfo, goes to
// the gen cache).
func (p *Plan) addManifest(manifest *Manifest, oldData []byte, manifestInfo fs.FileInfo) {
	sort.Slice(manifest.Files, func(i, j int) bool { return manifest.Files[i].Path < manifest.Files[j].Path })
	// Encoded once, inside the journal Apply writes first when no other
	// is pending: "[" + the manifest + "\n]\n", whose middle is the
	// manifest's own bytes (applier.journal). Copying a 4,000-file manifest into
	// the journal was a megabyte of fresh memory per gen.
	buf := appendManifest([]byte{'['}, manifest, func(i int) string {
		f := &manifest.Files[i]
		if e, ok := p.oldRaw[f.Path]; ok && e.sameEntry(f) {
			return e.raw
		}
		return ""
	})
	buf = append(buf, "\n]\n"...)
	data := buf[1 : len(buf)-2 : len(buf)-2]
	p.journalBuf = buf
	p.manifest = manifest
	_ = p.Files.Add(&fileset.File{Path: ManifestName, Data: data})
	p.onDisk[ManifestName] = diskAbsent
	if oldData != nil {
		p.onDisk[ManifestName] = diskDiffers
		if bytes.Equal(oldData, data) {
			p.onDisk[ManifestName] = diskSame
			if manifestInfo != nil {
				p.stats[ManifestName] = filestat.FromInfo(manifestInfo)
			}
		}
	}
}

// stale decides whether the stale file at path may be removed: only when
// it holds exactly what opforge wrote there (and, when owned, no user code).
func (p *Plan) stale(path string, rec record, l *diag.List) {
	pos := diag.Pos{File: rel(p.Root, path)}
	fi, err := p.paths.check(path)
	switch {
	case err != nil:
		l.Errorf(pos, "unsafe-path", "the manifest names %s: %v", path, err)
		return
	case fi == nil:
		p.gone = append(p.gone, path)
		return
	case !fi.Mode().IsRegular():
		l.Errorf(pos, "unsafe-path", "opforge generated this file earlier, and a %s is there now; opforge removes only regular files it wrote: move it away (nothing was written)", kind(fi.Mode()))
		return
	}
	if _, ok := p.carried[path]; ok {
		// A rename carried its user code to the new name's file (and
		// checked it holds no hand edit): removing it loses nothing.
		p.Stale = append(p.Stale, path)
		return
	}
	disk, err := readFile(filepath.Join(p.Root, filepath.FromSlash(path)))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		l.Errorf(pos, "read", "opforge generated this file earlier and no longer does, but cannot read it (%v); nothing was written", err)
		return
	}
	wrote, hashed := rec.match(disk)
	if !hashed {
		l.Warnf(pos, "stale-unverified", "opforge generated this file earlier and no longer does, but its manifest entry does not say what opforge wrote there (an older or edited manifest), so it was left in place: delete it yourself if it holds nothing of yours")
		return
	}
	if wrote == nil {
		l.Errorf(pos, "user-code-stale", "this file is no longer generated (its op or package was removed or renamed) and was edited by hand since opforge wrote it; move what you need elsewhere, then delete this file (nothing was written)")
		return
	}
	if wrote.Owned && !pristine(p.Root, *wrote, disk, l) {
		return
	}
	p.Stale = append(p.Stale, path)
	p.old[path] = oldFile{data: disk, mode: fi.Mode().Perm(), stat: filestat.FromInfo(fi)}
}

// kind names a non-regular file's type for a diagnostic.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "special file"
}

// unknownFileError stops gen at a file it would replace but has no record
// of writing, naming where it first differs from what gen would write.
func unknownFileError(root string, f *fileset.File, disk []byte, noManifest bool, l *diag.List) {
	first, _ := diffLines(disk, f.Data)
	pos := diag.Pos{File: rel(root, f.Path), Line: first}
	why := "opforge has no record of writing this file (it is not in " + ManifestName + ")"
	if noManifest {
		why = "the manifest (" + ManifestName + ") is missing, so opforge cannot tell what it wrote here from hand edits; restore the manifest from git"
	}
	l.Errorf(pos, "unknown-file", "%s, and it differs from what gen would write here from this line on; gen would overwrite it: move your file away, or run `opforge gen --force` to replace it (user regions inside opforge markers are kept) (nothing was written)", why)
}

// editedError reports hand edits that regeneration would overwrite, naming
// the lines of disk that differ from what would be written.
func editedError(root string, f *fileset.File, disk []byte, l *diag.List) {
	first, last := diffLines(disk, f.Data)
	pos := diag.Pos{File: rel(root, f.Path), Line: first}
	lines := fmt.Sprintf("line %d", first)
	if last > first {
		lines = fmt.Sprintf("lines %d-%d", first, last)
	}
	where := "this generated file (DO NOT EDIT) was edited by hand"
	if f.Owned {
		where = "this file was edited outside its user regions (code written beside a region, a deleted opforge:begin/end marker, or an edit of generated code)"
	}
	l.Errorf(pos, "generated-edited", "%s since opforge wrote it, at %s; gen would overwrite that: %s, or run `opforge gen --force` to overwrite it deliberately (nothing was written)", where, lines, whereCodeGoes(f.Data, disk, first))
}

// whereCodeGoes is the advice for code found outside the user regions of a
// file: the regions it can go into, nearest the edit (line) first, as the
// file on disk numbers them; or, for a file with none, that only the opdef
// or a file of the user's own can change what it holds.
func whereCodeGoes(fresh, disk []byte, line int) string {
	// The regions the file has as generated, at their lines on disk where
	// their markers are still there (0 where they were deleted).
	rs, err := regions.Parse(string(fresh))
	if err != nil {
		return "move the code into a user region (restore deleted opforge:begin/end markers around it)"
	}
	onDisk := map[string]int{}
	if drs, err := regions.Parse(string(disk)); err == nil {
		for _, r := range drs {
			onDisk[r.Key] = r.Line
		}
	}
	for i := range rs {
		rs[i].Line = onDisk[rs[i].Key]
	}
	if len(rs) == 0 {
		return "this file has no user regions, so no edit of it survives regeneration: change the opdef (or opforge's template) that it is generated from, or keep the code in a file of your own"
	}
	slices.SortStableFunc(rs, func(a, b regions.Region) int { return linesAway(a.Line, line) - linesAway(b.Line, line) })
	const shown = 3
	var names []string
	for _, r := range rs[:min(len(rs), shown)] {
		n := strconv.Quote(r.Key)
		if r.Line > 0 {
			n += fmt.Sprintf(" (line %d)", r.Line)
		} else {
			n += " (its opforge:begin/end markers are gone: put them back around the code)"
		}
		names = append(names, n)
	}
	if len(rs) > shown {
		names = append(names, fmt.Sprintf("%d more", len(rs)-shown))
	}
	return "move the code into one of this file's user regions, " + strings.Join(names, ", ")
}

// linesAway is how far a region at line r is from line (a region whose
// markers are gone, r 0, counts as farther than any).
func linesAway(r, line int) int {
	if r == 0 {
		return math.MaxInt32
	}
	return max(r-line, line-r)
}

// diffLines returns the 1-based first and last lines of a that differ from
// b, once their common first and last lines are set aside.
func diffLines(a, b []byte) (first, last int) {
	al, bl := strings.SplitAfter(string(a), "\n"), strings.SplitAfter(string(b), "\n")
	i := 0
	for i < len(al) && i < len(bl) && al[i] == bl[i] {
		i++
	}
	j := 0
	for j < len(al)-i && j < len(bl)-i && al[len(al)-1-j] == bl[len(bl)-1-j] {
		j++
	}
	first, last = i+1, len(al)-j
	if last < first {
		last = first
	}
	return first, last
}

func mergeOwned(root string, f *fileset.File, disk []byte, oldDefaults map[string]string, l *diag.List) ([]byte, bool) {
	pos := diag.Pos{File: rel(root, f.Path)}
	merged, orphans, err := regions.Merge(f.Data, disk, oldDefaults)
	if err != nil {
		var re *regions.Error
		if errors.As(err, &re) {
			pos.Line = re.Line
			l.Errorf(pos, "user-region-markers", "cannot carry user code over: %s; this file is still generated: fix the opforge:begin/end markers, then regenerate (nothing was written)", re.Msg)
		} else {
			l.Errorf(pos, "user-region-markers", "cannot carry user code over: %v", err)
		}
		return nil, false
	}
	for _, o := range orphans {
		p := pos
		p.Line = o.Line
		if where, ok := f.Moved[o.Key]; ok {
			l.Errorf(p, "user-region-orphan", "user region %q holds code, but this file no longer has a region %q: %s; move the code there and delete the region here, then regenerate (nothing was written)", o.Key, o.Key, where)
			continue
		}
		l.Errorf(p, "user-region-orphan", "user region %q holds code, but the regenerated file has no region %q (was an input, output or op renamed? for an op, put the old name back and run `opforge mv OLD NEW`); this file is still generated: move the code into another of its regions or delete the region, then regenerate (nothing was written)", o.Key, o.Key)
	}
	return merged, len(orphans) == 0
}

// pristine reports whether a stale owned file holds only default region
// bodies, so removing it loses nothing; otherwise it reports an error.
func pristine(root string, f ManifestFile, disk []byte, l *diag.List) bool {
	pos := diag.Pos{File: rel(root, f.Path)}
	rs, err := regions.Parse(string(disk))
	if err != nil {
		l.Errorf(pos, "user-region-markers", "this file is no longer generated and its regions cannot be read (%v); move your code out of it, then delete it (nothing was written)", err)
		return false
	}
	for _, r := range rs {
		if !regions.Pristine(r, f.regions()) {
			pos.Line = r.Line
			l.Errorf(pos, "user-code-stale", "this file is no longer generated (its op or package was removed or renamed) but region %q holds user code; if you renamed an op, put the old name back in the opdef and run `opforge mv OLD NEW`, which moves this code with it; otherwise move the code to the new file and delete this one (nothing was written)", r.Key)
			return false
		}
	}
	return true
}

// pathChecker refuses paths that leave the root or pass through a symlink,
// and tells which files cannot exist because a directory on their path
// does not. It remembers directories, which many files share, so a tree of
// n files costs about n lstats, and none below a missing directory. Safe
// for concurrent use.
type pathChecker struct {
	root string
	mu   sync.Mutex
	dirs map[string]dirState // slash path below root -> state
}

type dirState struct {
	missing bool
	err     error
}

func newPathChecker(root string) *pathChecker {
	return &pathChecker{root: root, dirs: map[string]dirState{}}
}

// check returns what lstat says of p (nil when p or a directory on its
// path is missing), or why p may not be written.
func (c *pathChecker) check(p string) (fs.FileInfo, error) {
	clean := path.Clean(p)
	if clean != p || path.IsAbs(p) || clean == ".." || strings.HasPrefix(clean, "../") {
		return nil, fmt.Errorf("path %q leaves the output directory", p)
	}
	if !c.parentOK(clean) {
		for i := 0; i < len(clean); i++ {
			if clean[i] != '/' {
				continue
			}
			st := c.dir(clean[:i])
			if st.err != nil || st.missing {
				return nil, st.err
			}
		}
	}
	fi, err := c.lstat(clean)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := symlinkError(c.root, clean, fi); err != nil {
		return nil, err
	}
	return fi, nil
}

// parentOK reports that p's directory was found a directory already: the
// directories on a path are looked at from the top, and none below a
// missing one or an error is looked at (check, topMissing), so every one
// above a remembered directory was found one too.
// One look for most files, whose directories their siblings checked.
func (c *pathChecker) parentOK(p string) bool {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return true // at the root, which Prepare checked
	}
	c.mu.Lock()
	st, ok := c.dirs[p[:i]]
	c.mu.Unlock()
	return ok && st.err == nil && !st.missing
}

// topMissing returns the topmost directory on the slash path dir (itself
// included) that does not exist, or "" when dir exists.
func (c *pathChecker) topMissing(dir string) string {
	if dir == "." {
		return ""
	}
	for i := 0; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		st := c.dir(dir[:i])
		if st.missing {
			return dir[:i]
		}
		if st.err != nil {
			// Nothing below a directory refused is looked at (parentOK
			// trusts what is remembered); Prepare refused the file.
			return ""
		}
	}
	return ""
}

func (c *pathChecker) dir(p string) dirState {
	c.mu.Lock()
	st, ok := c.dirs[p]
	c.mu.Unlock()
	if ok {
		return st
	}
	fi, err := c.lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		st.missing = true
	case err != nil:
		st.err = err
	default:
		st.err = symlinkError(c.root, p, fi)
	}
	c.mu.Lock()
	c.dirs[p] = st
	c.mu.Unlock()
	return st
}

func (c *pathChecker) lstat(p string) (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(c.root, filepath.FromSlash(p)))
}

func symlinkError(root, p string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink; opforge does not write through links", rel(root, p))
	}
	return nil
}

// Diff reports every difference between the plan and the disk: changed,
// missing and extra files (untracked ones included).
func Diff(p *Plan, l *diag.List) {
	for _, f := range p.Files.Files() {
		disk, err := readFile(filepath.Join(p.Root, filepath.FromSlash(f.Path)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			l.Errorf(diag.Pos{File: rel(p.Root, f.Path)}, "drift-missing", "missing: opdefs generate this file; run `opforge gen`")
		case err != nil:
			l.Errorf(diag.Pos{File: rel(p.Root, f.Path)}, "read", "cannot read: %v", err)
		case !bytes.Equal(disk, f.Data):
			l.Errorf(diag.Pos{File: rel(p.Root, f.Path), Line: firstDiffLine(disk, f.Data)}, "drift-changed", "out of date: differs from what opdefs generate (first difference on this line); run `opforge gen`")
		}
	}
	live := newLiveness(p.Root)
	_ = filepath.WalkDir(p.Root, func(full string, d fs.DirEntry, err error) error {
		if err != nil || full == p.Root {
			return nil
		}
		r, _ := filepath.Rel(p.Root, full)
		r = filepath.ToSlash(r)
		if p.scope != nil && r != PendingName {
			// A directory is out of scope when what lies in it is.
			switch {
			case d.IsDir() && !p.scope(r+"/-"):
				return filepath.SkipDir
			case !d.IsDir() && !p.scope(r):
				return nil
			}
		}
		if atomicfile.IsTemp(d.Name()) && live.live(d.Name()) {
			l.Errorf(diag.Pos{File: rel(p.Root, r)}, "drift-extra", "being written by an opforge that runs now; run check again when it is done")
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if atomicfile.IsTemp(d.Name()) || r == PendingName {
			l.Errorf(diag.Pos{File: rel(p.Root, r)}, "drift-extra", "left by an interrupted gen; run `opforge gen`, which removes it and finishes the work")
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if p.Files.Get(r) == nil && !IsArtifact(r) && !IsUserSource(r) {
			l.Errorf(diag.Pos{File: rel(p.Root, r)}, "drift-extra", "extra file: opdefs do not generate it; run `opforge gen`, which removes it if opforge generated it and it holds nothing of yours, or tells what of yours it holds; a file of your own: move it out of the output directory")
		}
		return nil
	})
}

// Artifacts are what building or importing a generated package leaves
// beside its sources: they are not drift. ArtifactPatterns lists them in
// .gitignore syntax for out/.gitignore.
var ArtifactPatterns = []string{"build/", "__pycache__/", "*.pyc", "*.o", "*.d", "*.so"}

// IsArtifact reports whether a path below the output root is a build or
// import artifact.
func IsArtifact(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, dir := range parts[:len(parts)-1] {
		if dir == "build" || dir == "__pycache__" {
			return true
		}
	}
	switch path.Ext(rel) {
	case ".pyc", ".o", ".d", ".so":
		return true
	}
	return false
}

func firstDiffLine(a, b []byte) int {
	line := 1
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return line
		}
		if a[i] == '\n' {
			line++
		}
	}
	return line
}

// IsUserSource reports whether a path below the output root is a source
// the user adds beside the generated ones and the generated build picks
// up: assembly in a `<arch>_asm/` directory (a generated Makefile may
// take src/ops/<arch>_asm/*.S, as a vendor's own does). It is the user's,
// never drift.
func IsUserSource(rel string) bool {
	dir, file := path.Split(rel)
	return strings.HasSuffix(file, ".S") && strings.HasSuffix(strings.TrimSuffix(dir, "/"), "_asm")
}
