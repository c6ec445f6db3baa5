// Package writer puts a generated file set on disk under one output root
// (out/), safely:
//
//   - user-owned regions of existing files are carried into the new files
//     (package regions); code that would have no place to go stops the run;
//   - only files whose bytes changed are written, each atomically;
//   - files generated earlier but no longer produced (tracked in the
//     manifest) are removed, unless they still hold user code;
//   - nothing outside the root is touched, not even through a symlink;
//   - nothing at all is written when any error was found.
//
// Diff compares the same plan with the disk for the drift check.
package writer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/regions"
	"github.com/opforge/opforge/generators/render"
)

// ManifestName is the manifest's file name in the output root.
const ManifestName = "opforge.manifest.json"

// Manifest lists every file opforge generated under the root, with the
// default-body hashes of the user regions of owned files.
type Manifest struct {
	Version int            `json:"version"`
	Files   []ManifestFile `json:"files"`
}

// ManifestFile is one generated file.
type ManifestFile struct {
	Path    string            `json:"path"`
	Owned   bool              `json:"owned,omitempty"`
	Regions map[string]string `json:"regions,omitempty"`
}

// Plan is what regeneration would do.
type Plan struct {
	Root string
	// Files is the complete new tree (user regions merged, manifest
	// included), path order.
	Files *fileset.Set
	// Stale are paths of files generated earlier that are no longer produced.
	Stale []string
	// onDisk is what Prepare found at each path of Files, so that Apply
	// neither reads the tree again nor writes what is already there.
	onDisk map[string]diskState
	// paths is what Prepare learnt of the directories, which tells Apply
	// the new ones it stages.
	paths *pathChecker
}

// diskState is what the output root holds at a planned path.
type diskState uint8

const (
	diskUnknown diskState = iota // not looked at: Apply compares
	diskAbsent                   // nothing there: create
	diskSame                     // the planned bytes: leave alone
	diskDiffers                  // other bytes (or unreadable): replace
)

func stateOf(disk []byte, err error, want []byte) diskState {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return diskAbsent
	case err == nil && bytes.Equal(disk, want):
		return diskSame
	}
	return diskDiffers
}

// Stats reports what Apply did.
type Stats struct {
	Written, Unchanged, Removed int
	BytesWritten                int64
}

func rel(root, p string) string { return filepath.ToSlash(filepath.Join(root, filepath.FromSlash(p))) }

// ReadManifest loads the manifest under root; a missing one is empty.
func ReadManifest(root string) (*Manifest, error) {
	m, _, err := readManifest(root)
	return m, err
}

// readManifest also returns the manifest's bytes (nil when missing).
func readManifest(root string) (*Manifest, []byte, error) {
	data, err := os.ReadFile(filepath.Join(root, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return &Manifest{Version: 1}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, data, fmt.Errorf("%s: %v", ManifestName, err)
	}
	return &m, data, nil
}

// Known reports, without reading the disk, that the file at path already
// holds what Prepare would make of the fresh skeleton data (user regions
// merged in): typically because the same skeleton was generated there last
// time and the file has not been touched since. It is called once for every
// file, concurrently. When it is wrong, the user's disk wins: a file it
// vouches for is neither read nor written.
type Known func(path string, fresh []byte) bool

// Prepare computes the new tree: fresh skeletons with the user regions of
// the files on disk merged in, the new manifest, and the stale files.
// Every problem goes to l; the plan must not be applied when l has errors.
func Prepare(root string, fresh *fileset.Set, l *diag.List) *Plan {
	return PrepareKnown(root, fresh, nil, l)
}

// PrepareKnown is Prepare with a Known (nil: read every file). A file Known
// vouches for keeps its fresh skeleton bytes in the plan, which is then
// only fit for Apply (that leaves such files alone), not for Diff.
func PrepareKnown(root string, fresh *fileset.Set, known Known, l *diag.List) *Plan {
	old, oldData, err := readManifest(root)
	if err != nil {
		l.Errorf(diag.Pos{File: rel(root, ManifestName)}, "manifest", "cannot read the manifest: %v; restore it from git", err)
		old = &Manifest{Version: 1}
	}
	oldByPath := map[string]ManifestFile{}
	for _, f := range old.Files {
		oldByPath[f.Path] = f
	}
	out := fileset.New()
	manifest := &Manifest{Version: 1}
	// Each file is checked and merged with its copy on disk in parallel
	// (reading and scanning the old tree is most of a regeneration's work);
	// results and diagnostics are then taken in path order.
	files := fresh.Files()
	type result struct {
		entry ManifestFile
		ok    bool
		disk  diskState
		l     diag.List
	}
	results := make([]result, len(files))
	paths := newPathChecker(root)
	render.Parallel(len(files), func(i int) {
		f, r := files[i], &results[i]
		if f.Path == ManifestName {
			r.l.Errorf(diag.Pos{File: rel(root, f.Path)}, "internal", "a target generated the manifest's path")
			return
		}
		mayExist, err := paths.check(f.Path)
		if err != nil {
			r.l.Errorf(diag.Pos{File: rel(root, f.Path)}, "unsafe-path", "%v", err)
			return
		}
		r.entry = ManifestFile{Path: f.Path, Owned: f.Owned}
		if f.Owned {
			defaults, err := regions.Defaults(string(f.Data))
			if err != nil {
				r.l.Errorf(diag.Pos{File: rel(root, f.Path)}, "internal", "generated skeleton has malformed regions: %v", err)
				return
			}
			r.entry.Regions = defaults
			f.Defaults = defaults
		}
		if known != nil && known(f.Path, f.Data) {
			r.disk, r.ok = diskSame, true
			return
		}
		// Below a missing directory there is nothing to read (a first
		// generation): no system call at all.
		disk, err := []byte(nil), error(fs.ErrNotExist)
		if mayExist {
			disk, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		}
		if f.Owned && err == nil {
			merged, ok := mergeOwned(root, f, disk, oldByPath[f.Path].Regions, &r.l)
			if !ok {
				return
			}
			f.Data = merged
		}
		r.disk = stateOf(disk, err, f.Data)
		r.ok = true
	})
	onDisk := make(map[string]diskState, len(files)+1)
	for i, f := range files {
		l.Merge(&results[i].l)
		if !results[i].ok {
			continue
		}
		manifest.Files = append(manifest.Files, results[i].entry)
		onDisk[f.Path] = results[i].disk
		_ = out.Add(f)
	}
	var stale []string
	for _, f := range old.Files {
		if out.Get(f.Path) != nil {
			continue
		}
		if _, err := paths.check(f.Path); err != nil {
			l.Errorf(diag.Pos{File: rel(root, f.Path)}, "unsafe-path", "manifest names %s: %v", f.Path, err)
			continue
		}
		disk, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil && f.Owned && !pristine(root, f, disk, l) {
			continue
		}
		stale = append(stale, f.Path)
	}
	sort.Slice(manifest.Files, func(i, j int) bool { return manifest.Files[i].Path < manifest.Files[j].Path })
	data, _ := json.MarshalIndent(manifest, "", "  ")
	data = append(data, '\n')
	_ = out.Add(&fileset.File{Path: ManifestName, Data: data})
	onDisk[ManifestName] = diskAbsent
	if oldData != nil {
		onDisk[ManifestName] = stateOf(oldData, nil, data)
	}
	return &Plan{Root: root, Files: out, Stale: stale, onDisk: onDisk, paths: paths}
}

func mergeOwned(root string, f *fileset.File, disk []byte, oldDefaults map[string]string, l *diag.List) ([]byte, bool) {
	pos := diag.Pos{File: rel(root, f.Path)}
	merged, orphans, err := regions.Merge(string(f.Data), string(disk), oldDefaults)
	if err != nil {
		var re *regions.Error
		if errors.As(err, &re) {
			pos.Line = re.Line
			l.Errorf(pos, "user-region-markers", "cannot carry user code over: %s; fix the opforge:begin/end markers (nothing was written)", re.Msg)
		} else {
			l.Errorf(pos, "user-region-markers", "cannot carry user code over: %v", err)
		}
		return nil, false
	}
	for _, o := range orphans {
		p := pos
		p.Line = o.Line
		l.Errorf(p, "user-region-orphan", "user region %q holds code, but the regenerated file has no region %q (was an input, output or op renamed?); move the code into another region or delete the region, then regenerate (nothing was written)", o.Key, o.Key)
	}
	return []byte(merged), len(orphans) == 0
}

// pristine reports whether a stale owned file holds only default region
// bodies, so removing it loses nothing; otherwise it reports an error.
func pristine(root string, f ManifestFile, disk []byte, l *diag.List) bool {
	pos := diag.Pos{File: rel(root, f.Path)}
	rs, err := regions.Parse(string(disk))
	if err != nil {
		l.Errorf(pos, "user-region-markers", "this file is no longer generated and its regions cannot be read (%v); remove it by hand once its code is safe", err)
		return false
	}
	for _, r := range rs {
		if !regions.Pristine(r, f.Regions) {
			pos.Line = r.Line
			l.Errorf(pos, "user-code-stale", "this file is no longer generated (its op or package was removed or renamed) but region %q holds user code; move the code to the new file and delete this one (nothing was written)", r.Key)
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

// check reports whether p may exist (false: a directory on its path is
// missing) or why p may not be written.
func (c *pathChecker) check(p string) (mayExist bool, err error) {
	clean := path.Clean(p)
	if clean != p || path.IsAbs(p) || clean == ".." || strings.HasPrefix(clean, "../") {
		return false, fmt.Errorf("path %q leaves the output directory", p)
	}
	for i := 0; i < len(clean); i++ {
		if clean[i] != '/' {
			continue
		}
		st := c.dir(clean[:i])
		if st.err != nil || st.missing {
			return false, st.err
		}
	}
	st, err := c.lstat(clean)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, symlinkError(c.root, clean, st)
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
		if c.dir(dir[:i]).missing {
			return dir[:i]
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

// Apply writes the plan. Call it only when Prepare reported no error.
//
// Files already holding their bytes are left alone. A file whose directory
// exists is replaced atomically (temporary file + rename). Files below a
// directory that does not exist yet, as in a first generation, are staged
// in a hidden sibling directory renamed into place once complete: the
// whole new directory appears at once, and each file costs what copying it
// costs (one create, one write), not a create, a write and a rename.
// The manifest is written last, so that it never names work not yet done.
func Apply(p *Plan) (Stats, error) {
	var st Stats
	if err := os.MkdirAll(p.Root, 0o755); err != nil {
		return st, err
	}
	paths := p.paths
	if paths == nil {
		paths = newPathChecker(p.Root)
	}
	var manifest *write
	var writes []write
	stages := map[string]string{} // new directory -> its staging directory
	defer func() {
		for _, stage := range stages {
			os.RemoveAll(stage) // only left when a write failed
		}
	}()
	for _, f := range p.Files.Files() {
		w := write{f: f, state: p.onDisk[f.Path], path: filepath.Join(p.Root, filepath.FromSlash(f.Path))}
		switch {
		case w.state == diskSame:
			st.Unchanged++
			continue
		case f.Path == ManifestName:
			manifest = &w
			continue
		case w.state == diskAbsent:
			if top := paths.topMissing(path.Dir(f.Path)); top != "" {
				full := filepath.Join(p.Root, filepath.FromSlash(top))
				stage, ok := stages[full]
				if !ok {
					var err error
					if stage, err = atomicfile.MkdirUnique(full); err != nil {
						return st, err
					}
					stages[full] = stage
				}
				w.path = filepath.Join(stage, strings.TrimPrefix(w.path, full))
				w.staged = true
			}
		}
		writes = append(writes, w)
	}
	if err := makeStagedDirs(writes); err != nil {
		return st, err
	}
	changed := make([]bool, len(writes))
	errs := make([]error, len(writes))
	render.ParallelIO(len(writes), func(i int) { changed[i], errs[i] = writes[i].do() })
	for i, w := range writes {
		if errs[i] != nil {
			return st, errs[i]
		}
		st.count(changed[i], w.f)
	}
	// Staged directories are disjoint (each is the topmost missing one on
	// its paths), so the order of the renames does not matter.
	for top, stage := range stages {
		if err := os.Rename(stage, top); err != nil {
			return st, err
		}
		delete(stages, top)
	}
	if manifest != nil {
		changed, err := manifest.do()
		if err != nil {
			return st, err
		}
		st.count(changed, manifest.f)
	}
	for _, s := range p.Stale {
		full := filepath.Join(p.Root, filepath.FromSlash(s))
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return st, err
		}
		st.Removed++
		removeEmptyParents(p.Root, filepath.Dir(full))
	}
	return st, nil
}

func (st *Stats) count(changed bool, f *fileset.File) {
	if changed {
		st.Written++
		st.BytesWritten += int64(len(f.Data))
	} else {
		st.Unchanged++
	}
}

// write is one file Apply puts on disk.
type write struct {
	f      *fileset.File
	state  diskState
	path   string // where to write: in a staging directory when staged
	staged bool
}

func (w write) do() (bool, error) {
	mode := os.FileMode(0o644)
	if w.f.Mode != 0 {
		mode = os.FileMode(w.f.Mode)
	}
	switch {
	case w.staged:
		return true, atomicfile.Create(w.path, w.f.Data, mode)
	case w.state == diskAbsent || w.state == diskDiffers:
		return true, atomicfile.Replace(w.path, w.f.Data, mode)
	}
	return atomicfile.Write(w.path, w.f.Data, mode)
}

// makeStagedDirs creates the subdirectories staged files need, each once.
func makeStagedDirs(writes []write) error {
	made := map[string]bool{}
	for _, w := range writes {
		if dir := filepath.Dir(w.path); w.staged && !made[dir] {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			made[dir] = true
		}
	}
	return nil
}

func removeEmptyParents(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root) {
		if err := os.Remove(dir); err != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// Diff reports every difference between the plan and the disk: changed,
// missing and extra files (untracked ones included).
func Diff(p *Plan, l *diag.List) {
	for _, f := range p.Files.Files() {
		disk, err := os.ReadFile(filepath.Join(p.Root, filepath.FromSlash(f.Path)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			l.Errorf(diag.Pos{File: rel(p.Root, f.Path)}, "drift-missing", "missing: opdefs generate this file; run `go tool mage gen`")
		case err != nil:
			l.Errorf(diag.Pos{File: rel(p.Root, f.Path)}, "read", "cannot read: %v", err)
		case !bytes.Equal(disk, f.Data):
			l.Errorf(diag.Pos{File: rel(p.Root, f.Path), Line: firstDiffLine(disk, f.Data)}, "drift-changed", "out of date: differs from what opdefs generate (first difference on this line); run `go tool mage gen`")
		}
	}
	_ = filepath.WalkDir(p.Root, func(full string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		r, _ := filepath.Rel(p.Root, full)
		r = filepath.ToSlash(r)
		if p.Files.Get(r) == nil && !IsArtifact(r) {
			l.Errorf(diag.Pos{File: rel(p.Root, r)}, "drift-extra", "extra file: opdefs do not generate it; delete it (or regenerate with `go tool mage gen`, which removes files it generated earlier)")
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
