package writer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/filestat"
)

// A rename (`opforge mv`) is one Apply, like a gen: its plan carries the
// user code of the old name's files into the new name's (Carry), removes
// the old files as stale, and changes the opdef, a file outside the output
// root (Outside). Its journal records, besides the new manifest, the old
// bytes of every file it replaces or removes, the opdef included, and the
// hash of every file it writes (Move), so that after a kill the next gen
// or mv can finish it or roll it back (Recover) whatever point it reached.
// The opdef is renamed after every out/ file is in place and before any
// old file is removed: that rename is the commit point.

// Carry is the user code a rename carries to a path of the new tree: the
// user regions are taken from the file at From (below the root) instead of
// the file at the path itself.
type Carry struct {
	From string
	// Rekey renames the region keys that carry the old name in the text
	// read at From (nil: none); Key does the same to one key.
	Rekey func(text []byte) []byte
	Key   func(key string) string
}

// Outside is a file of the repository outside the output root that the
// Apply changes too (the opdef a rename edits). The repository is the
// output root's parent directory: nothing outside it is ever touched.
type Outside struct {
	Path string // as the file system names it (relative to the working directory or absolute)
	Data []byte
	// Base, when set, is the text Data was made from: a file that holds
	// anything else now was changed since, and the plan stops.
	Base []byte
}

// Move names a rename for its journal and its messages.
type Move struct {
	What     string `json:"what"` // "op" or "package"
	From, To string
	// Files are every file the rename changes, with what it found there
	// and the hash of what it writes: what Recover needs.
	Files []MoveFile `json:"files,omitempty"`
}

// MoveFile is one file a rename changes.
type MoveFile struct {
	Path    string      `json:"path"`              // slash path below the root, or below the repository when Outside
	Outside bool        `json:"outside,omitempty"` // the opdef
	Old     []byte      `json:"old,omitempty"`     // its bytes before (nil: absent)
	Had     bool        `json:"had,omitempty"`     // it existed before
	Mode    fs.FileMode `json:"mode,omitempty"`
	New     string      `json:"new,omitempty"` // sha256 of what the rename writes ("": it removes the file)
}

func (m *Move) String() string {
	kind := ""
	if m.What == "package" {
		kind = "package "
	}
	return fmt.Sprintf("opforge mv %s%s %s", kind, m.From, m.To)
}

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// outsideFile is an Outside file as Prepare found it.
type outsideFile struct {
	rel  string // slash path below the repository
	full string
	data []byte
	old  oldFile
	tmp  string
}

// repository is the directory that holds the output root: the only place
// outside the root a plan may touch.
func repository(root string) string { return filepath.Dir(filepath.Clean(root)) }

// prepareOutside checks and reads the files outside the root.
func (p *Plan) prepareOutside(files []Outside, l *diag.List) {
	repo := repository(p.Root)
	checker := newPathChecker(repo)
	for _, f := range files {
		pos := diag.Pos{File: filepath.ToSlash(f.Path)}
		absRepo, err1 := filepath.Abs(repo)
		abs, err2 := filepath.Abs(f.Path)
		r, err3 := filepath.Rel(absRepo, abs)
		if err := errors.Join(err1, err2, err3); err != nil || !filepath.IsLocal(r) {
			l.Errorf(pos, "unsafe-path", "this file is outside the repository %s (the output directory's parent); opforge changes nothing there (nothing was written)", repo)
			continue
		}
		rel := filepath.ToSlash(r)
		if rel == filepath.Base(p.Root) || strings.HasPrefix(rel, filepath.Base(p.Root)+"/") {
			l.Errorf(pos, "internal", "an outside file lies in the output directory")
			continue
		}
		fi, err := checker.check(rel)
		if err == nil && (fi == nil || !fi.Mode().IsRegular()) {
			err = fmt.Errorf("not a regular file")
		}
		var data []byte
		if err == nil {
			data, err = readFile(filepath.Join(repo, filepath.FromSlash(rel)))
		}
		if err != nil {
			l.Errorf(pos, "read", "cannot read this file (%v) (nothing was written)", err)
			continue
		}
		if f.Base != nil && !bytes.Equal(data, f.Base) {
			l.Errorf(pos, "rename", "this file changed while opforge ran; nothing was written: run the command again")
			continue
		}
		p.outside = append(p.outside, outsideFile{rel: rel, full: filepath.Join(repo, filepath.FromSlash(rel)), data: f.Data,
			old: oldFile{data: data, mode: fi.Mode().Perm(), stat: filestat.FromInfo(fi)}})
	}
}

// prepareCarry reads the files whose user code a rename carries, before
// anything else reads the tree, so that what is carried and what is
// removed are the same bytes (Apply removes a file only unchanged).
func (p *Plan) prepareCarry(carry map[string]Carry, records map[string]record, force bool, l *diag.List) {
	p.carried = map[string][]byte{}
	for _, c := range carry {
		if _, ok := p.carried[c.From]; ok {
			continue
		}
		pos := diag.Pos{File: rel(p.Root, c.From)}
		fi, err := p.paths.check(c.From)
		if err != nil {
			l.Errorf(pos, "unsafe-path", "%v", err)
			continue
		}
		if fi == nil {
			continue // never generated: nothing to carry
		}
		if !fi.Mode().IsRegular() {
			l.Errorf(pos, "unsafe-path", "%s is a %s, not a regular file (nothing was written)", rel(p.Root, c.From), kind(fi.Mode()))
			continue
		}
		data, err := readFile(filepath.Join(p.Root, filepath.FromSlash(c.From)))
		if err != nil {
			l.Errorf(pos, "read", "cannot read this file (%v); nothing was renamed", err)
			continue
		}
		// Only user regions move: a hand edit of the frame would be lost.
		if wrote, hashed := records[c.From].match(data); hashed && wrote == nil && !force {
			l.Errorf(pos, "generated-edited", "this file was edited outside its user regions since opforge wrote it; a rename carries user regions only: %s, or run `opforge gen --force` first (nothing was renamed)", whereCodeGoes(data, data, 0))
			continue
		}
		p.carried[c.From] = data
		p.old[c.From] = oldFile{data: data, mode: fi.Mode().Perm(), stat: filestat.FromInfo(fi)}
	}
}

// carryInto merges the user code carried to f from c.From: the text read
// there with its keys renamed, and the default-body hashes recorded for it
// (renamed likewise).
func (p *Plan) carryInto(f *fileset.File, c Carry, rec record, l *diag.List) bool {
	text, ok := p.carried[c.From]
	if !ok {
		return true // nothing there: the fresh skeleton as it is
	}
	wrote, _ := rec.match(text)
	defaults := rec.regions(wrote)
	if c.Key != nil && defaults != nil {
		renamed := make(map[string]string, len(defaults))
		for k, v := range defaults {
			renamed[c.Key(k)] = v
		}
		defaults = renamed
	}
	if c.Rekey != nil {
		text = c.Rekey(text)
	}
	if !f.Owned {
		return true
	}
	merged, ok := mergeOwned(p.Root, f, text, defaults, l)
	if ok {
		f.Data = merged
	}
	return ok
}

// moveRecord is the journal's record of this plan's rename: every file it
// changes, with its old bytes and the hash of its new ones.
func (a *applier) moveRecord() *Move {
	p := a.p
	if p.move == nil {
		return nil
	}
	m := &Move{What: p.move.What, From: p.move.From, To: p.move.To}
	for _, w := range a.writes {
		mf := MoveFile{Path: w.f.Path, New: sum(w.f.Data)}
		if w.f.Path == ManifestName {
			mf.Old, mf.Had = p.oldManifest, p.oldManifest != nil
		} else if old, ok := p.old[w.f.Path]; ok && w.state == diskDiffers {
			mf.Old, mf.Had, mf.Mode = old.data, true, old.mode
		}
		m.Files = append(m.Files, mf)
	}
	for _, s := range p.Stale {
		old := p.old[s]
		m.Files = append(m.Files, MoveFile{Path: s, Old: old.data, Had: true, Mode: old.mode})
	}
	for _, o := range p.outside {
		m.Files = append(m.Files, MoveFile{Path: o.rel, Outside: true, Old: o.old.data, Had: true, Mode: o.old.mode, New: sum(o.data)})
	}
	return m
}

// stageOutside writes the new outside files' temporaries (after the
// journal, which names them, so a kill leaves none that nothing cleans).
func (a *applier) stageOutside() error {
	for i := range a.p.outside {
		o := &a.p.outside[i]
		err := mutate("create", o.rel)
		if err == nil {
			o.tmp, err = atomicfile.Temp(o.full, o.data, o.old.mode)
			if err == nil {
				err = os.Chmod(o.tmp, o.old.mode)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// commitOutside renames the outside files into place: the commit point of
// a rename.
func (a *applier) commitOutside() error {
	for i := range a.p.outside {
		o := &a.p.outside[i]
		if err := mutate("rename", o.rel); err != nil {
			return a.fail(o.rel, err)
		}
		fi, err := os.Lstat(o.full)
		if err == nil && filestat.FromInfo(fi) != o.old.stat {
			err = errChanged
		}
		if err == nil {
			err = os.Rename(o.tmp, o.full)
		}
		if err != nil {
			return a.fail(o.rel, err)
		}
		o.tmp = ""
		full, old := o.full, o.old
		a.undo(o.rel, func() error { return restore(full, old) })
	}
	return nil
}

func (a *applier) discardOutside() {
	for i := range a.p.outside {
		if o := &a.p.outside[i]; o.tmp != "" {
			os.Remove(o.tmp)
			o.tmp = ""
		}
	}
}

// fileState is what a file of a move record holds now.
type fileState int

const (
	stateOther fileState = iota // neither its old nor its new bytes
	stateOld                    // its old bytes (or absent, when it was)
	stateNew                    // its new bytes (or absent, when removed)
)

func (f MoveFile) full(root string) string {
	if f.Outside {
		return filepath.Join(repository(root), filepath.FromSlash(f.Path))
	}
	return filepath.Join(root, filepath.FromSlash(f.Path))
}

func (f MoveFile) state(root string) (fileState, error) {
	data, err := readFile(f.full(root))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !f.Had {
			return stateOld, nil
		}
		if f.New == "" {
			return stateNew, nil
		}
		return stateOther, nil
	case err != nil:
		return stateOther, err
	case f.New != "" && sum(data) == f.New:
		return stateNew, nil
	case f.Had && bytes.Equal(data, f.Old):
		return stateOld, nil
	}
	return stateOther, nil
}

// safeRel refuses journal paths that would leave the root or the
// repository (a corrupt or hostile journal).
func safeRel(p string) bool {
	return p != "" && filepath.IsLocal(filepath.FromSlash(p)) && !strings.Contains(p, "\\")
}

// Recover finishes or rolls back a rename that a kill (or a failure that
// could not put everything back) interrupted, from its journal. It runs,
// under the gen lock, before a gen or mv reads the tree. The rename is
// finished when its opdef holds the new text and every file it wrote is in
// place: only removing the old files and the manifest are left. Otherwise
// it is rolled back: the opdef first (from then on the outcome is decided),
// then every file it wrote or removed, from the old bytes in the journal.
// A file that holds neither its old nor its new bytes (edited since) is
// never overwritten or removed: Recover stops and says where the tree is.
// It returns what it did ("" when there was no rename to recover).
func Recover(root string, l *diag.List) string {
	pending, _, err := readPending(root)
	if err != nil || len(pending) == 0 {
		return "" // Prepare reports an unreadable journal
	}
	var mv *Move
	var manifest Manifest
	for _, m := range pending {
		if m.Move != nil {
			mv, manifest = m.Move, m
		}
	}
	if mv == nil {
		return ""
	}
	pos := diag.Pos{File: rel(root, PendingName)}
	repoPaths, rootPaths := newPathChecker(repository(root)), newPathChecker(root)
	for _, f := range mv.Files {
		paths := rootPaths
		if f.Outside {
			paths = repoPaths
		}
		var err error
		if safeRel(f.Path) {
			_, err = paths.check(f.Path)
		}
		if !safeRel(f.Path) || err != nil {
			l.Errorf(pos, "manifest", "the journal of an interrupted `%s` names the path %q, which leaves the repository; nothing was changed: check the tree with `git status`, then delete %s", mv, f.Path, PendingName)
			return ""
		}
	}
	forward, err := mv.finished(root, manifest)
	if err != nil {
		l.Errorf(pos, "read", "cannot read a file of the interrupted `%s` (%v); nothing was changed: fix the cause and run `opforge gen` again", mv, err)
		return ""
	}
	// The killed run's temporaries, in out/ and beside the opdef, go first
	// (before the journal that names the opdef does), unless the opdef was
	// edited since: then nothing at all changes.
	decided := true
	for _, f := range mv.Files {
		if !f.Outside {
			continue
		}
		if st, err := f.state(root); err != nil || st == stateOther {
			decided = false
		}
	}
	if decided {
		removeLeftovers(root)
		removeOutsideTemps(root, mv)
	}
	if forward {
		return mv.finish(root, manifest, l)
	}
	return mv.rollBack(root, l)
}

// finished reports whether the rename got past its commit point: the
// opdef renamed and every new file in place (a user region edited since
// counts: the file is still the rename's).
func (m *Move) finished(root string, manifest Manifest) (bool, error) {
	entries := map[string]ManifestFile{}
	for _, f := range manifest.Files {
		entries[f.Path] = f
	}
	for _, f := range m.Files {
		switch {
		case f.Outside:
			st, err := f.state(root)
			if err != nil || st != stateNew {
				return false, err
			}
		case f.New != "" && f.Path != ManifestName:
			data, err := readFile(f.full(root))
			if errors.Is(err, fs.ErrNotExist) {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			if sum(data) == f.New {
				continue
			}
			if e, ok := entries[f.Path]; !ok {
				return false, nil
			} else if w, _ := (record{e}).match(data); w == nil {
				return false, nil
			}
		}
	}
	return true, nil
}

// finish removes the old files still holding their old bytes and writes
// the new manifest: what the killed rename had left to do.
func (m *Move) finish(root string, manifest Manifest, l *diag.List) string {
	var kept []string
	for _, f := range m.Files {
		if f.New != "" || f.Outside {
			continue
		}
		st, err := f.state(root)
		if err == nil && st == stateOld {
			if err = mutate("remove", f.Path); errors.Is(err, errKilled) {
				return ""
			}
			if err == nil {
				err = os.Remove(f.full(root))
			}
			if err == nil {
				removeEmptyParents(root, filepath.Dir(f.full(root)))
				continue
			}
		}
		if st != stateNew {
			kept = append(kept, f.Path) // edited since: the gen that follows decides
		}
	}
	manifest.Move = nil
	data := marshalManifest(&manifest)
	data = append(data, '\n')
	err := mutate("rename", ManifestName)
	if errors.Is(err, errKilled) {
		return ""
	}
	if err == nil {
		err = atomicfile.Replace(filepath.Join(root, ManifestName), data, 0o644)
	}
	if err == nil {
		if err = mutate("remove", PendingName); errors.Is(err, errKilled) {
			return ""
		}
		err = removePending(root)
	}
	if err != nil {
		l.Errorf(diag.Pos{File: rel(root, ManifestName)}, "write", "finishing the interrupted `%s`: cannot write (%v); the opdef and every file already have their new names, and the journal %s still records the rest: fix the cause and run `opforge gen` again", m, err, PendingName)
		return ""
	}
	msg := fmt.Sprintf("finished the interrupted `%s`", m)
	if len(kept) > 0 {
		msg += fmt.Sprintf(" (left in place, edited since: %s)", strings.Join(kept, ", "))
	}
	return msg
}

// rollBack puts every file of the rename back as it was: the opdef first,
// then out/ files, the manifest last.
func (m *Move) rollBack(root string, l *diag.List) string {
	files := append([]MoveFile(nil), m.Files...)
	sort.SliceStable(files, func(i, j int) bool {
		rank := func(f MoveFile) int {
			switch {
			case f.Outside:
				return 0
			case f.Path == ManifestName:
				return 2
			}
			return 1
		}
		return rank(files[i]) < rank(files[j])
	})
	var conflicts []string
	for _, f := range files {
		st, err := f.state(root)
		if err != nil {
			l.Errorf(diag.Pos{File: filepath.ToSlash(f.full(root))}, "read", "rolling back the interrupted `%s`: cannot read this file (%v); the journal %s still records the rename: fix the cause and run `opforge gen` again", m, err, PendingName)
			return ""
		}
		switch st {
		case stateOld:
			continue
		case stateOther:
			if f.Outside {
				l.Errorf(diag.Pos{File: filepath.ToSlash(f.full(root))}, "interrupted-mv", "`%s` was interrupted, and this opdef was edited since, so opforge cannot tell whether to finish or roll back the rename; nothing was changed: put the opdef back to the old or the new name (`git diff` shows it), then run `opforge gen`; the journal %s keeps the old bytes of every file it changed", m, PendingName)
				return ""
			}
			conflicts = append(conflicts, f.Path)
			continue
		}
		if err := mutate("rename", f.Path); errors.Is(err, errKilled) {
			return ""
		} else if err == nil {
			if f.Had {
				err = restore(f.full(root), oldFile{data: f.Old, mode: f.Mode | modeDefault(f.Mode)})
			} else {
				err = os.Remove(f.full(root))
				removeEmptyParents(root, filepath.Dir(f.full(root)))
			}
		}
		if err != nil {
			l.Errorf(diag.Pos{File: filepath.ToSlash(f.full(root))}, "write", "rolling back the interrupted `%s`: cannot put this file back (%v); the journal %s still records the rename and the old bytes: fix the cause and run `opforge gen` again", m, err, PendingName)
			return ""
		}
	}
	if err := mutate("remove", PendingName); errors.Is(err, errKilled) {
		return ""
	}
	if err := removePending(root); err != nil {
		l.Errorf(diag.Pos{File: rel(root, PendingName)}, "write", "rolled back the interrupted `%s`, but cannot remove its journal (%v): remove it", m, err)
	}
	msg := fmt.Sprintf("rolled back the interrupted `%s`: the opdef and out/ are as before it", m)
	if len(conflicts) > 0 {
		msg += fmt.Sprintf(" (except these files, edited since, which were left as they are: %s)", strings.Join(conflicts, ", "))
	}
	return msg
}

func modeDefault(m fs.FileMode) fs.FileMode {
	if m == 0 {
		return 0o644
	}
	return 0
}

// removeOutsideTemps removes the temporaries a killed rename left beside
// its outside files (the opdef's directory is not below the root, where
// removeLeftovers looks).
func removeOutsideTemps(root string, m *Move) {
	for _, f := range m.Files {
		if !f.Outside {
			continue
		}
		full := f.full(root)
		entries, err := os.ReadDir(filepath.Dir(full))
		if err != nil {
			continue
		}
		prefix := "." + filepath.Base(full) + ".tmp-"
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), prefix) && atomicfile.IsTemp(e.Name()) && e.Type().IsRegular() {
				os.Remove(filepath.Join(filepath.Dir(full), e.Name()))
			}
		}
	}
}

// MoveRecorded reports whether the journal under root records an
// interrupted rename (which only Recover may resolve).
func MoveRecorded(root string) *Move {
	pending, _, _ := readPending(root)
	for _, m := range pending {
		if m.Move != nil {
			return m.Move
		}
	}
	return nil
}
