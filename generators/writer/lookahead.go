package writer

import (
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/opforge/opforge/generators/workpool"
)

// LookAhead is the writer's look at files a plan will keep (the lstat of
// each and of the directories on its path that checkTarget takes), taken
// on a goroutine of its own while the caller still generates: gen knows
// which files it keeps once its reuse step answered, long before it
// plans, and a core is often idle while the targets render. A look taken
// ahead is still the writer's own and still after the gen cache's (gen
// asks for it only after Reusable answered), so a file changed since the
// cache looked shows as before (TestKeptFileChangedMidGen); a file the
// look has not reached when the plan asks is looked at by the plan. Its
// directory checks serve those looks only: the plan checks the paths of
// the files it writes, and Apply's directories, itself
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
		l := a.looks[p]
		if l == nil {
			l = &look{}
			a.looks[p] = l
		}
		ls[i] = l
	}
	a.mu.Unlock()
	for i, l := range ls {
		l.take(a.paths, paths[i])
	}
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
