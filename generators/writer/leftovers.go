package writer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/filelock"
)

// A writer's temporaries (files and staging directories beside the
// files it replaces, named by atomicfile with its Owner) are work in
// progress only while it runs. It says so by holding the lock on its live
// mark, a temporary-named file at the root, from before its first
// temporary until it is done; the kernel releases the lock however the
// writer ends. Whether the pid in a name answers proves nothing: a killed
// writer's pid answers while it is a zombie, or once another process
// reuses it.

// liveMark is the live mark of the writer owner at root. Its counter, 0,
// is one atomicfile never gives, so the mark is no temporary's name, but
// it is IsTemp: a killed writer's mark is a leftover like the rest.
func liveMark(root, owner string) string {
	return filepath.Join(root, ".opforge-writer.tmp-"+owner+"-0")
}

// holdLive marks this process's temporaries below root live until the
// returned function runs. Killed (a simulated kill), it releases the lock
// as the kernel would and leaves the mark, as a kill does. Without a mark
// (root not writable) the temporaries look dead to other writers, which is
// only wrong for two writers in one tree at once, which the gen lock
// prevents.
func holdLive(root string) func(killed bool) {
	mark := liveMark(root, atomicfile.Owner())
	release, err := filelock.Hold(mark)
	if err != nil {
		return func(bool) {}
	}
	return func(killed bool) {
		if !killed {
			os.Remove(mark)
		}
		release()
	}
}

// liveness decides, once per owner (before any removal, so a removed
// mark cannot make its owner's other temporaries look ownerless), whether
// a temporary below root belongs to a writer that runs now.
type liveness struct {
	root  string
	known map[string]bool
}

func newLiveness(root string) *liveness { return &liveness{root: root, known: map[string]bool{}} }

// live reports whether the temporary named base belongs to another writer
// that holds its live mark now. This process's own temporaries are
// leftovers of an earlier Apply here: Apply runs one at a time per tree.
func (v *liveness) live(base string) bool {
	owner := atomicfile.TempOwner(base)
	if owner == "" || owner == atomicfile.Owner() {
		return false
	}
	alive, ok := v.known[owner]
	if !ok {
		alive = filelock.Held(liveMark(v.root, owner))
		v.known[owner] = alive
	}
	return alive
}

// HasLeftovers reports whether a killed writer left a temporary below
// root that the next Apply removes, or its journal: a gen that would otherwise have
// nothing to do must run then, or `check` keeps naming the leftover and
// advising a gen that leaves it.
func HasLeftovers(root string) bool {
	if _, err := os.Lstat(filepath.Join(root, PendingName)); err == nil {
		return true // the journal of an unfinished Apply, which the next one finishes
	}
	live := newLiveness(root)
	return anyNameBelow(root, func(name string) bool {
		// A view of the walk's buffer: the liveness check keeps the
		// owner it reads from the name, so it gets a copy.
		return atomicfile.IsTemp(name) && !live.live(strings.Clone(name))
	})
}

// Unsettled reports whether anything below root is not as a finished
// writer leaves it: a killed writer's temporary or journal
// (HasLeftovers), or a temporary of a writer that runs now (a gen with a
// lock of its own on the same tree). A caller that found none, and holds
// a lock keeping its own kind of writer out until Apply, may tell Apply
// not to look again (Options.NoLeftovers); one that saw a live writer's
// temporaries may not, as that writer may die before Apply.
func Unsettled(root string) bool {
	if _, err := os.Lstat(filepath.Join(root, PendingName)); err == nil {
		return true
	}
	return anyNameBelow(root, atomicfile.IsTemp)
}

// isKilled reports whether err is a simulated kill (tests).
func isKilled(err error) bool { return errors.Is(err, errKilled) }
