package writer

import (
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/opforge/opforge/generators/workpool"
)

// LookAhead is the writer's look at files a plan will keep (the lstat of
// each and of the directories on its path that checkTarget takes), taken
// on a goroutine of its own while the caller still loads and generates:
// the gen cache walks every file the last gen recorded through it, and
// vouches for a file by the same look (Stat). A look is still the
// writer's own: the plan compares its stat with the one the cache
// recorded (Options.Vouched) whatever the cache answered, so a file gone
// or changed before the look is never kept on the cache's word
// (TestUnvouchedKeptFilesRender); one changed after it is a change after
// the plan's look, which the next gen finds (TestKeptFileChangedMidGen).
// A file the look has not reached when the plan asks is looked at by the
// plan. Its directory checks serve those looks only: the plan checks the
// paths of the files it writes, and Apply's directories, itself
// (TestLookAheadDirSwappedForSymlink).
type LookAhead struct {
	taken atomic.Bool // by a plan: only the first plan may take it
	paths *pathChecker
	mu    sync.Mutex
	looks map[string]*look
}

// look is one file's look, taken once by whichever asks first.
type look struct {
	claim workpool.Claim
	fi    fs.FileInfo
	err   error
}

// NewLookAhead is a LookAhead for the tree under root, for the first
// PrepareWith of that root given it (Options.LookAhead); a later plan (gen
// planning again with nothing kept) looks for itself.
func NewLookAhead(root string) *LookAhead {
	return &LookAhead{paths: newPathChecker(root), looks: map[string]*look{}}
}

// Look takes the look at each of paths (slash paths below the root), in
// order, skipping any another caller took.
func (a *LookAhead) Look(paths []string) {
	ls := make([]*look, len(paths))
	a.mu.Lock()
	for i, p := range paths {
		ls[i] = a.lookLocked(p)
	}
	a.mu.Unlock()
	for i, l := range ls {
		l.take(a.paths, paths[i])
	}
}

// Stat is the look at p (a slash path below the root): what lstat says
// of it (nil: it or a directory on its path is missing), or why it may
// not be written. It takes the look, or waits for the caller taking it
// (one lstat), so the look is published: the plan then keeps a file by
// the very look the gen cache vouched for it by, one lstat per file and
// none taken between the two.
func (a *LookAhead) Stat(p string) (fs.FileInfo, error) {
	a.mu.Lock()
	l := a.lookLocked(p)
	a.mu.Unlock()
	for !l.take(a.paths, p) {
		runtime.Gosched() // the walk is taking it
	}
	return l.fi, l.err
}

// lookLocked is p's look, made when p has none; a.mu is held.
func (a *LookAhead) lookLocked(p string) *look {
	l := a.looks[p]
	if l == nil {
		l = &look{}
		a.looks[p] = l
	}
	return l
}

// check is pathChecker.check of p from the look taken ahead, or taken
// now when none is (or one is being taken: a second lstat then, rather
// than a wait).
func (a *LookAhead) check(p string) (fs.FileInfo, error) {
	a.mu.Lock()
	l := a.looks[p]
	a.mu.Unlock()
	if l != nil && l.take(a.paths, p) {
		return l.fi, l.err
	}
	return a.paths.check(p)
}

// take looks at p unless another caller has, or is; it reports whether fi
// and err are published.
func (l *look) take(c *pathChecker, p string) bool {
	return l.claim.Do(func() { l.fi, l.err = c.check(p) })
}
