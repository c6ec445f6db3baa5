package toolchain

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/opforge/opforge/generators/filestat"
)

// Probes records what resolving a toolchain and planning a build looked
// at on disk: each path stated or read (with what was there), each glob
// (with its matches) and each PATH lookup (with its answer). Asking every
// question again and getting the same answers means the resolution, and
// so the plan, would come out the same: that is how a no-op build knows,
// without resolving anything, that its plan still holds.
type Probes struct {
	mu    sync.Mutex
	Paths map[string]PathState `json:"paths"`
	Globs map[string][]string  `json:"globs"`
	Looks map[string]string    `json:"looks"`
}

// PathState is what a path held when it was probed: absent, or a file or
// directory with its stat (a directory's mtime changes when an entry is
// added, removed or renamed).
type PathState struct {
	Exists bool          `json:"exists"`
	Stat   filestat.Stat `json:"stat"`
	Mode   fs.FileMode   `json:"mode"`
}

// NewProbes is an empty recorder.
func NewProbes() *Probes {
	return &Probes{Paths: map[string]PathState{}, Globs: map[string][]string{}, Looks: map[string]string{}}
}

func stateOf(fi fs.FileInfo, err error) PathState {
	if err != nil {
		return PathState{}
	}
	return PathState{Exists: true, Stat: filestat.FromInfo(fi), Mode: fi.Mode()}
}

// Path records path's state as st says (for callers that stated it
// themselves).
func (p *Probes) Path(path string, st PathState) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, seen := p.Paths[path]; !seen { // the first look is what decided
		p.Paths[path] = st
	}
}

func (p *Probes) glob(pattern string, matches []string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, seen := p.Globs[pattern]; !seen {
		p.Globs[pattern] = slices.Clone(matches)
	}
}

func (p *Probes) look(name, found string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, seen := p.Looks[name]; !seen {
		p.Looks[name] = found
	}
}

// Unchanged asks every recorded question again and reports whether every
// answer is the same, with the first that differs.
func (p *Probes) Unchanged(lookPath func(string) (string, error)) (bool, string) {
	for _, path := range sortedKeys(p.Paths) {
		if stateOf(os.Stat(path)) != p.Paths[path] {
			return false, path
		}
	}
	for _, pattern := range sortedKeys(p.Globs) {
		m, _ := filepath.Glob(pattern)
		if !slices.Equal(m, p.Globs[pattern]) {
			return false, pattern
		}
	}
	for _, name := range sortedKeys(p.Looks) {
		found, _ := lookPath(name)
		if found != p.Looks[name] {
			return false, "PATH: " + name
		}
	}
	return true, ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Stat is os.Stat, recorded in e.Probes when set. Planning code stats
// through it, so what it looked at decides whether a no-op build may
// trust its last plan.
func (e Env) Stat(path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	e.Probes.Path(path, stateOf(fi, err))
	return fi, err
}

// ReadFile is os.ReadFile, the file's state recorded in e.Probes when set.
func (e Env) ReadFile(path string) ([]byte, error) {
	e.Stat(path)
	return os.ReadFile(path)
}

// Glob is filepath.Glob (a bad pattern matches nothing), recorded in
// e.Probes when set.
func (e Env) Glob(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	e.Probes.glob(pattern, m)
	return m
}

// Newest is the package's Newest through e.Glob.
func (e Env) Newest(pattern string) string {
	newest := ""
	for _, m := range e.Glob(pattern) {
		if newest == "" || versionLess(newest, m) {
			newest = m
		}
	}
	return newest
}

func (e Env) lookPath(name string) (string, error) {
	p, err := e.LookPath(name)
	found := p
	if err != nil {
		found = ""
	}
	e.Probes.look(name, found)
	return p, err
}
