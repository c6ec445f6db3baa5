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
}

// Stats reports what Apply did.
type Stats struct {
	Written, Unchanged, Removed int
	BytesWritten                int64
}

func rel(root, p string) string { return filepath.ToSlash(filepath.Join(root, filepath.FromSlash(p))) }

// ReadManifest loads the manifest under root; a missing one is empty.
func ReadManifest(root string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(root, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return &Manifest{Version: 1}, nil
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", ManifestName, err)
	}
	return &m, nil
}

// Prepare computes the new tree: fresh skeletons with the user regions of
// the files on disk merged in, the new manifest, and the stale files.
// Every problem goes to l; the plan must not be applied when l has errors.
func Prepare(root string, fresh *fileset.Set, l *diag.List) *Plan {
	old, err := ReadManifest(root)
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
		l     diag.List
	}
	results := make([]result, len(files))
	render.Parallel(len(files), func(i int) {
		f, r := files[i], &results[i]
		if f.Path == ManifestName {
			r.l.Errorf(diag.Pos{File: rel(root, f.Path)}, "internal", "a target generated the manifest's path")
			return
		}
		if err := checkPath(root, f.Path); err != nil {
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
			if disk, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path))); err == nil {
				merged, ok := mergeOwned(root, f, disk, oldByPath[f.Path].Regions, &r.l)
				if !ok {
					return
				}
				f.Data = merged
			}
		}
		r.ok = true
	})
	for i, f := range files {
		l.Merge(&results[i].l)
		if !results[i].ok {
			continue
		}
		manifest.Files = append(manifest.Files, results[i].entry)
		_ = out.Add(f)
	}
	var stale []string
	for _, f := range old.Files {
		if out.Get(f.Path) != nil {
			continue
		}
		if err := checkPath(root, f.Path); err != nil {
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
	_ = out.Add(&fileset.File{Path: ManifestName, Data: append(data, '\n')})
	return &Plan{Root: root, Files: out, Stale: stale}
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

// checkPath refuses paths that leave the root or pass through a symlink.
func checkPath(root, p string) error {
	clean := path.Clean(p)
	if clean != p || path.IsAbs(p) || clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("path %q leaves the output directory", p)
	}
	cur := root
	for _, part := range strings.Split(clean, "/") {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink; opforge does not write through links", filepath.ToSlash(cur))
		}
	}
	return nil
}

// Apply writes the plan. Call it only when Prepare reported no error.
// Files are compared and written in parallel: the work is system calls.
func Apply(p *Plan) (Stats, error) {
	var st Stats
	files := p.Files.Files()
	changed := make([]bool, len(files))
	errs := make([]error, len(files))
	render.ParallelIO(len(files), func(i int) {
		f := files[i]
		mode := os.FileMode(0o644)
		if f.Mode != 0 {
			mode = os.FileMode(f.Mode)
		}
		changed[i], errs[i] = atomicfile.Write(filepath.Join(p.Root, filepath.FromSlash(f.Path)), f.Data, mode)
	})
	for i, f := range files {
		if errs[i] != nil {
			return st, errs[i]
		}
		if changed[i] {
			st.Written++
			st.BytesWritten += int64(len(f.Data))
		} else {
			st.Unchanged++
		}
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
