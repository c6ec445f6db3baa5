package writer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/filestat"
	"github.com/opforge/opforge/generators/workpool"
)

// hook, when set (tests only), is called before each change Apply makes
// on disk, with the change ("create", "rename", "remove", "journal") and
// the slash path below the root; an error it returns is that change's
// error. errKilled stops Apply right there, as SIGKILL would: no roll back,
// no clean-up. It must be safe for concurrent use.
var hook func(op, path string) error

var errKilled = errors.New("killed")

func mutate(op, path string) error {
	if hook != nil {
		return hook(op, path)
	}
	return nil
}

// ApplyError is a failed Apply: the file it failed on and the files a
// roll back could not put back (none: the tree is as it was).
type ApplyError struct {
	Path        string // slash path below the root
	Err         error
	NotRestored []string
}

func (e *ApplyError) Error() string {
	msg := fmt.Sprintf("%s: %v", e.Path, e.Err)
	if len(e.NotRestored) > 0 {
		msg += fmt.Sprintf(" (could not put back: %s)", strings.Join(e.NotRestored, ", "))
	}
	return msg
}

func (e *ApplyError) Unwrap() error { return e.Err }

// Report adds an error of Apply to l, placed at the file it failed on.
func Report(root string, err error, l *diag.List) {
	var ae *ApplyError
	if !errors.As(err, &ae) {
		l.Errorf(diag.Pos{File: filepath.ToSlash(root)}, "write", "cannot write: %v", err)
		return
	}
	pos := diag.Pos{File: rel(root, ae.Path)}
	if len(ae.NotRestored) == 0 {
		l.Errorf(pos, "write", "cannot write: %v; every file opforge had changed was put back, so the tree is as before: fix the cause and regenerate", ae.Err)
		return
	}
	l.Errorf(pos, "write", "cannot write: %v, and could not put back %s; the journal %s lets the next gen finish: fix the cause and regenerate", ae.Err, strings.Join(ae.NotRestored, ", "), PendingName)
}

// Apply writes the plan. Call it only when Prepare reported no error.
//
// It is all or nothing. First every changed file is written where nobody
// looks: a hidden temporary beside it, or, below a directory that does not
// exist yet (a first generation), a hidden staging directory renamed into
// place whole. An error there removes them all: nothing changed. Then the
// journal (PendingName) records the new manifest, and the renames, the
// removal of stale files and the manifest follow; an error there puts back
// what was changed, from the bytes Prepare read. A kill leaves the journal,
// which tells the next gen that the new files are opforge's own, and
// temporaries, which the next Apply removes (removeLeftovers) before
// anything else. Files already holding their bytes are left alone, and a
// replaced file keeps its mode.
func Apply(p *Plan) (Stats, error) {
	var st Stats
	if err := os.MkdirAll(p.Root, 0o755); err != nil {
		return st, &ApplyError{Path: ".", Err: err}
	}
	if !p.noLeftovers {
		removeLeftovers(p.Root)
	}
	paths := p.paths
	if paths == nil {
		paths = newPathChecker(p.Root)
	}
	a := &applier{p: p, stages: map[string]string{}}
	var manifest *write
	for _, f := range p.Files.Files() {
		state := p.onDisk[f.Path]
		if state == diskSame {
			st.Unchanged++ // most of a tree: no path made for them
			continue
		}
		w := write{f: f, state: state, path: filepath.Join(p.Root, filepath.FromSlash(f.Path))}
		switch {
		case f.Path == ManifestName:
			manifest = &w
			continue
		case w.state == diskAbsent:
			if top := paths.topMissing(path.Dir(f.Path)); top != "" {
				full := filepath.Join(p.Root, filepath.FromSlash(top))
				w.top = full
				if _, ok := a.stages[full]; !ok {
					a.stages[full] = ""
					a.tops = append(a.tops, full)
				}
			}
		}
		a.writes = append(a.writes, w)
	}
	if manifest != nil {
		a.writes = append(a.writes, *manifest) // last: it names the work done
	}
	defer func() {
		for _, s := range append(p.gone, p.Stale...) {
			removeEmptyParents(p.Root, filepath.Dir(filepath.Join(p.Root, filepath.FromSlash(s))))
		}
	}()
	if len(a.writes) == 0 && len(p.Stale) == 0 {
		// A journal left by a killed gen whose work this plan found done.
		if err := removePending(p.Root); err != nil {
			return st, &ApplyError{Path: PendingName, Err: err}
		}
		return st, nil
	}
	done := holdLive(p.Root)
	if err := a.stage(); err != nil {
		done(isKilled(err))
		return st, err
	}
	if err := a.commit(); err != nil {
		done(isKilled(err))
		return st, err
	}
	done(false)
	for _, w := range a.writes {
		st.Written++
		st.BytesWritten += int64(len(w.f.Data))
	}
	st.Removed = len(p.Stale)
	return st, nil
}

// applier carries one Apply through its two phases.
type applier struct {
	p      *Plan
	writes []write
	tops   []string          // new top directories, in order
	stages map[string]string // new top directory -> its staging directory
	done   []func() error    // how to undo each committed change, in order
	undone []string          // the path each undo restores
}

// write is one file Apply puts on disk.
type write struct {
	f     *fileset.File
	state diskState
	path  string // the file's place in the root
	top   string // the new directory it is staged for ("" : none)
	tmp   string // where it was written: a temporary or the staged copy
}

// mode is the file's mode: a replaced file keeps its own (a user who made
// a generated file read-only meant it), plus any execute bits the
// generator asks for; a new file takes the generator's, or 0644.
func (a *applier) mode(w write) (fs.FileMode, bool) {
	if old, ok := a.p.old[w.f.Path]; ok {
		return old.mode | fs.FileMode(w.f.Mode)&0o111, true
	}
	if w.f.Mode != 0 {
		return fs.FileMode(w.f.Mode), false
	}
	return 0o644, false
}

// stage writes every file where nobody looks yet; on error it removes all
// it wrote.
func (a *applier) stage() error {
	for _, top := range a.tops {
		stage, err := atomicfile.MkdirUnique(top)
		if err != nil {
			a.discard()
			return &ApplyError{Path: relTo(a.p.Root, top), Err: err}
		}
		a.stages[top] = stage
	}
	made := map[string]bool{}
	for i := range a.writes {
		w := &a.writes[i]
		if w.top == "" {
			continue
		}
		w.tmp = filepath.Join(a.stages[w.top], strings.TrimPrefix(w.path, w.top))
		if dir := filepath.Dir(w.tmp); !made[dir] {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				a.discard()
				return &ApplyError{Path: w.f.Path, Err: err}
			}
			made[dir] = true
		}
	}
	errs := make([]error, len(a.writes))
	stats := make([]filestat.Stat, len(a.writes))
	workpool.ParallelIO(len(a.writes), func(i int) {
		w := &a.writes[i]
		if errs[i] = mutate("create", w.f.Path); errs[i] != nil {
			return
		}
		mode, exact := a.mode(*w)
		if w.top != "" {
			errs[i] = atomicfile.Create(w.tmp, w.f.Data, mode)
		} else if w.tmp, errs[i] = atomicfile.Temp(w.path, w.f.Data, mode); errs[i] == nil && exact {
			errs[i] = os.Chmod(w.tmp, mode) // exactly: the umask must not narrow a kept mode
		}
		if errs[i] != nil {
			return
		}
		// The stat of the bytes this process wrote, before anyone else can
		// see them: all the gen cache may vouch for.
		fi, err := os.Lstat(w.tmp)
		if errs[i] = err; err == nil {
			stats[i] = filestat.FromInfo(fi)
		}
	})
	for i, err := range errs {
		if errors.Is(err, errKilled) {
			return err
		}
		if err != nil {
			a.discard()
			return &ApplyError{Path: a.writes[i].f.Path, Err: err}
		}
	}
	for i, w := range a.writes {
		a.p.stats[w.f.Path] = stats[i]
	}
	return nil
}

// discard removes every temporary and staging directory still in place.
func (a *applier) discard() {
	a.discardOutside()
	for i := range a.writes {
		if w := a.writes[i]; w.top == "" && w.tmp != "" {
			os.Remove(w.tmp)
			a.writes[i].tmp = ""
		}
	}
	for top, stage := range a.stages {
		if stage != "" {
			os.RemoveAll(stage)
			a.stages[top] = ""
		}
	}
}

// commit makes the staged change visible: journal, renames, stale
// removals, manifest, in that order. On error it undoes what it did.
func (a *applier) commit() error {
	p := a.p
	if err := a.writePending(); err != nil {
		if !errors.Is(err, errKilled) {
			a.discard()
		}
		return a.fail(PendingName, err)
	}
	if err := a.stageOutside(); err != nil {
		return a.fail(a.p.outside[0].rel, err)
	}
	for i := range a.writes {
		w := &a.writes[i]
		if w.top != "" {
			continue
		}
		if w.f.Path == ManifestName {
			break // last, below
		}
		if err := a.rename(w.f.Path, w.tmp, w.path); err != nil {
			return a.fail(w.f.Path, err)
		}
		w.tmp = ""
		path := w.path
		if old, ok := p.old[w.f.Path]; ok {
			a.undo(w.f.Path, func() error { return restore(path, old) })
		} else {
			a.undo(w.f.Path, func() error { return os.Remove(path) })
		}
	}
	for _, top := range a.tops {
		if err := a.rename(relTo(p.Root, top), a.stages[top], top); err != nil {
			return a.fail(relTo(p.Root, top), err)
		}
		a.stages[top] = ""
		a.undo(relTo(p.Root, top), func() error { return os.RemoveAll(top) })
	}
	// A rename's commit point: every new file is in place, no old one gone.
	if err := a.commitOutside(); err != nil {
		return err
	}
	for _, s := range p.Stale {
		full := filepath.Join(p.Root, filepath.FromSlash(s))
		err := mutate("remove", s)
		if err == nil {
			if err = a.unchanged(s, full); err == nil {
				if err = os.Remove(full); errors.Is(err, fs.ErrNotExist) {
					err = nil
				}
			}
		}
		if err != nil {
			return a.fail(s, err)
		}
		old := p.old[s]
		a.undo(s, func() error { return restore(full, old) })
	}
	// The manifest is unchanged when the only work is removing what a
	// killed gen added (named by the journal alone): no writes at all then.
	if n := len(a.writes); n > 0 && a.writes[n-1].f.Path == ManifestName {
		w := &a.writes[n-1]
		if err := a.rename(ManifestName, w.tmp, w.path); err != nil {
			return a.fail(ManifestName, err)
		}
		w.tmp = ""
	}
	// Done: the journal has nothing left to tell. Should removing it fail,
	// it only names what the manifest now names too.
	if err := mutate("remove", PendingName); errors.Is(err, errKilled) {
		return err
	}
	_ = removePending(p.Root)
	return nil
}

// rename moves from over to, unless to changed since Prepare looked at it
// (an editor saved it, another tool created it): that is someone's work,
// and Apply backs out rather than overwrite it.
func (a *applier) rename(rel, from, to string) error {
	if err := mutate("rename", rel); err != nil {
		return err
	}
	if err := a.unchanged(rel, to); err != nil {
		return err
	}
	return os.Rename(from, to)
}

// errChanged is a file changed by someone else while gen ran.
var errChanged = errors.New("changed by another process while gen ran; nothing of it was overwritten")

// unchanged checks that full holds what Prepare saw at rel: the same
// stat, or nothing when it saw nothing (a missing file, a new directory);
// a file removed meanwhile is no loss. The manifest is exempt: it is
// opforge's alone.
func (a *applier) unchanged(rel, full string) error {
	if rel == ManifestName {
		return nil
	}
	fi, err := os.Lstat(full)
	old, had := a.p.old[rel]
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // removed meanwhile: nothing there to lose
	case err != nil:
		return err
	case !had || filestat.FromInfo(fi) != old.stat:
		return errChanged
	}
	return nil
}

func (a *applier) undo(path string, f func() error) {
	a.done = append(a.done, f)
	a.undone = append(a.undone, path)
}

// fail undoes every committed change, newest first, and removes what is
// left staged. The journal stays when something could not be put back, so
// the next gen still knows those files as opforge's.
func (a *applier) fail(path string, err error) error {
	if errors.Is(err, errKilled) {
		return err
	}
	e := &ApplyError{Path: path, Err: err}
	for i := len(a.done) - 1; i >= 0; i-- {
		if err := a.done[i](); err != nil {
			e.NotRestored = append(e.NotRestored, a.undone[i])
		}
	}
	a.discard()
	if len(e.NotRestored) == 0 {
		if a.p.pendingData != nil {
			_ = atomicfile.Replace(filepath.Join(a.p.Root, PendingName), a.p.pendingData, 0o644)
		} else {
			_ = removePending(a.p.Root)
		}
	}
	return e
}

// writePending records, before the first visible change, the manifest this
// Apply is about to make true, after those of earlier unfinished ones.
func (a *applier) writePending() error {
	if err := mutate("journal", PendingName); err != nil {
		return err
	}
	m := *a.p.manifest
	m.Move = a.moveRecord()
	return atomicfile.Replace(filepath.Join(a.p.Root, PendingName), a.journal(m), 0o644)
}

// journal is the journal's bytes: the pending manifests, then m. Without a
// rename m is the manifest the plan already encoded (addManifest), whose
// bytes are taken as they are: encoding a 4,000-file manifest a second
// time was half of a one-op gen's writing.
func (a *applier) journal(m Manifest) []byte {
	ms := append(append([]Manifest(nil), a.p.pending...), m)
	f := a.p.Files.Get(ManifestName)
	if m.Move != nil || f == nil {
		return marshalJournal(ms, nil)
	}
	if j := a.p.journalBuf; len(a.p.pending) == 0 && len(f.Data) > 0 && len(j) == len(f.Data)+3 && &j[1] == &f.Data[0] {
		return j // the plan's manifest, framed as a list when it was encoded
	}
	return marshalJournal(ms[:len(ms)-1], bytes.TrimSuffix(f.Data, []byte{'\n'}))
}

// marshalJournal writes the journal: a JSON list of manifests, each as
// marshalManifest writes one (readPending reads it with encoding/json,
// which reflection made a tenth of a gen's writing), and last, one
// already so encoded (nil: none).
func marshalJournal(ms []Manifest, last []byte) []byte {
	b := make([]byte, 0, len(last)+3)
	b = append(b, '[')
	for i := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, marshalManifest(&ms[i])...)
	}
	if last != nil {
		if len(ms) > 0 {
			b = append(b, ',')
		}
		b = append(b, last...)
	}
	return append(b, ']', '\n')
}

func removePending(root string) error {
	err := os.Remove(filepath.Join(root, PendingName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// restore puts a file's old bytes and mode back (atomically, and making
// its directory again when removing a stale file emptied it).
func restore(path string, old oldFile) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := atomicfile.Temp(path, old.data, old.mode)
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, old.mode); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// removeLeftovers removes what killed writers left in the tree: only names
// of atomicfile's temporaries and staging directories (IsTemp) whose
// writer holds no live mark (holdLive), never a build or import artifact
// directory's content. Failures are left for the drift check to name.
func removeLeftovers(root string) {
	live := newLiveness(root)
	_ = filepath.WalkDir(root, func(full string, d fs.DirEntry, err error) error {
		if err != nil || full == root {
			return nil
		}
		switch {
		case atomicfile.IsTemp(d.Name()) && !live.live(d.Name()):
			os.RemoveAll(full)
			if d.IsDir() {
				return filepath.SkipDir
			}
		case d.IsDir() && (d.Name() == "build" || d.Name() == "__pycache__"):
			return filepath.SkipDir
		}
		return nil
	})
}

func relTo(root, full string) string {
	r, err := filepath.Rel(root, full)
	if err != nil {
		return filepath.ToSlash(full)
	}
	return filepath.ToSlash(r)
}

func removeEmptyParents(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root) {
		if err := os.Remove(dir); err != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// RemoveLeftovers removes what killed writers (gen or mv) left in the
// tree under root: their temporaries and staging directories. Call it
// only holding the gen lock (mv does, before its drift check).
func RemoveLeftovers(root string) { removeLeftovers(root) }
