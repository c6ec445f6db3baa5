package buildengine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/filestat"
)

// state is what the last successful runs left: per output, the key that
// produced it and the headers its depfile named; per file, a stat cache of
// content hashes (size+mtime+inode unchanged means the recorded hash still
// holds — the content hash stays the truth, stat only saves re-reading).
type state struct {
	mu      sync.Mutex
	Outputs map[string]outputState `json:"outputs"`
	Files   map[string]fileState   `json:"files"`
	// hashed holds this run's hashes, so each file is read at most once.
	hashed map[string]string
}

type outputState struct {
	Key  string   `json:"key"`
	Deps []string `json:"deps,omitempty"`
}

type fileState struct {
	filestat.Stat
	Hash string `json:"hash"`
}

func loadState(path string) *state {
	st := &state{Outputs: map[string]outputState{}, Files: map[string]fileState{}, hashed: map[string]string{}}
	// Never a FIFO's read, which would wait forever: no state, a full build.
	if data, err := atomicfile.ReadRegular(path); err == nil {
		_ = json.Unmarshal(data, st)
		if st.Outputs == nil {
			st.Outputs = map[string]outputState{}
		}
		if st.Files == nil {
			st.Files = map[string]fileState{}
		}
	}
	return st
}

func (s *state) save(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Forget stat entries of files no run looked at this time, so the
	// state does not grow without bound.
	for p := range s.Files {
		if _, seen := s.hashed[p]; !seen {
			delete(s.Files, p)
		}
	}
	data, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	_, err = atomicfile.Write(path, data, 0o644)
	return err
}

// seen is what this run's hashes were taken of (Result.Seen).
func (s *state) seen() map[string]SeenFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]SeenFile, len(s.hashed))
	for p, h := range s.hashed {
		f, ok := s.Files[p]
		out[p] = SeenFile{Exists: ok && h != "-", Stat: f.Stat}
	}
	return out
}

// fileHash returns the content hash of path ("-" when it does not exist).
func (s *state) fileHash(path string) string {
	s.mu.Lock()
	if h, ok := s.hashed[path]; ok {
		s.mu.Unlock()
		return h
	}
	cached, haveCache := s.Files[path]
	s.mu.Unlock()
	h := "-"
	if st, err := os.Stat(path); err == nil {
		fs := fileState{Stat: filestat.FromInfo(st)}
		if haveCache && cached.Stat == fs.Stat && cached.Hash != "" {
			h = cached.Hash
		} else if f, _, err := atomicfile.OpenRegular(path); err == nil {
			// Never a FIFO's read, which would wait forever: its hash
			// stays unknown.
			sum := sha256.New()
			_, _ = io.Copy(sum, f)
			f.Close()
			h = hex.EncodeToString(sum.Sum(nil))
		}
		fs.Hash = h
		s.mu.Lock()
		s.Files[path] = fs
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.hashed[path] = h
	s.mu.Unlock()
	return h
}

// key is the hash of everything that decides a unit's output: the tool's
// identity (its binary's contents), the launcher's (path and contents:
// its version, without running it) when there is one, the arguments, and
// the contents of the inputs and of deps, the headers a run depended on.
// A unit without a launcher keeps the key it always had.
func (s *state) key(u *Unit, deps []string) string {
	parts := [][]byte{[]byte("v1"), []byte(s.fileHash(u.Tool)), []byte(u.Tool), []byte(strings.Join(u.Args, "\x1f")), []byte(u.Dir)}
	if u.Launcher != "" {
		parts = append(parts, []byte("launcher"), []byte(u.Launcher), []byte(s.fileHash(u.Launcher)))
	}
	inputs := append(append([]string{}, u.Inputs...), deps...)
	sort.Strings(inputs)
	for _, in := range inputs {
		p := in
		if !filepath.IsAbs(p) && u.Dir != "" {
			p = filepath.Join(u.Dir, p)
		}
		parts = append(parts, []byte(in), []byte(s.fileHash(p)))
	}
	return hashBytes(parts...)
}

// prevDeps are the headers the unit's last successful run depended on.
func (s *state) prevDeps(u *Unit) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Outputs[u.Output].Deps
}

func (s *state) upToDate(u *Unit, key string) bool {
	s.mu.Lock()
	prev, ok := s.Outputs[u.Output]
	s.mu.Unlock()
	if !ok || prev.Key != key {
		return false
	}
	_, err := os.Stat(u.Output)
	return err == nil
}

// record stores the key of a successful run. The key is recomputed with
// the new depfile so the next run compares like with like; the output's
// own hash is refreshed because it changed.
func (s *state) record(u *Unit, deps []string) {
	s.mu.Lock()
	delete(s.hashed, u.Output)
	s.mu.Unlock()
	key := s.key(u, deps)
	s.mu.Lock()
	s.Outputs[u.Output] = outputState{Key: key, Deps: deps}
	s.mu.Unlock()
}
