package writer

import (
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/opforge/opforge/generators/filestat"
)

// ReadAhead is the manifest under a root read on a goroutine of its own
// while the caller does other work (gen starts it as its targets
// generate), for the PrepareWith given it (Options.ReadAhead): reading and
// parsing a large tree's manifest is a few ms that would otherwise wait
// for the generation. A plan takes what it read only when the manifest
// has, when the plan looks, the stat it had both before and after the
// reading; otherwise, and for any plan after the first, the plan reads
// the manifest itself.
type ReadAhead struct {
	done  chan struct{}
	taken atomic.Bool
	st    filestat.Stat // the manifest's, before and after reading
	ok    bool
	m     *Manifest
	data  []byte
	raws  []string
}

// StartReadAhead starts reading the manifest under root.
func StartReadAhead(root string) *ReadAhead {
	r := &ReadAhead{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		path := filepath.Join(root, ManifestName)
		before, err := os.Lstat(path)
		if err != nil || !before.Mode().IsRegular() {
			return
		}
		m, data, raws, err := readManifestRaw(root, true)
		if err != nil {
			return // the plan reads it again, and reports why it cannot
		}
		after, err := os.Lstat(path)
		if err != nil || filestat.FromInfo(after) != filestat.FromInfo(before) {
			return
		}
		r.st, r.ok, r.m, r.data, r.raws = filestat.FromInfo(before), true, m, data, raws
	}()
	return r
}

// take gives what r read, once, when the manifest has stat st (nil: none)
// now.
func (r *ReadAhead) take(st *filestat.Stat) (m *Manifest, data []byte, raws []string, ok bool) {
	if r == nil || st == nil || r.taken.Swap(true) {
		return nil, nil, nil, false
	}
	<-r.done
	if !r.ok || r.st != *st {
		return nil, nil, nil, false
	}
	return r.m, r.data, r.raws, true
}
