package writer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/filelock"
)

// opdefText is the model's "opdef": its package and its ops (the user's
// bodies are not in it: they live in out/).
func (m *model) opdefText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n", m.pkg)
	for _, op := range m.names() {
		fmt.Fprintf(&b, "op %s %d\n", op, m.ops[op])
	}
	return b.String()
}

// parseOpdef reads opdefText back (the bodies left empty).
func parseOpdef(text string) *model {
	m := &model{ops: map[string]int{}, bodies: map[string]string{}}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "package":
			m.pkg = f[1]
		case len(f) == 3 && f[0] == "op":
			m.ops[f[1]], _ = strconv.Atoi(f[2])
		}
	}
	return m
}

func (w *propWorld) writeOpdef() {
	_ = os.MkdirAll(filepath.Dir(w.opdef), 0o755)
	writeFile(w.t, w.opdef, w.m.opdefText())
}

func (w *propWorld) readOpdef() string { return read(w.t, w.opdef) }

// renamed is m after renaming an op (what "op") or its package, and the
// user code the rename carries: every file of the op (or package) to its
// new path, and the registry's keys "reg:<op>".
func (m *model) renamed(what, from, to string) (*model, map[string]Carry) {
	next := m.clone()
	carry := map[string]Carry{}
	if what == "package" {
		next.pkg = to
		for _, f := range m.generate().Files() {
			if strings.HasPrefix(f.Path, m.pkg+"/") {
				carry[to+strings.TrimPrefix(f.Path, m.pkg)] = Carry{From: f.Path}
			}
		}
		return next, carry
	}
	next.ops[to] = m.ops[from]
	delete(next.ops, from)
	for k, v := range m.bodies {
		if op, key, _ := strings.Cut(k, "/"); op == from {
			delete(next.bodies, k)
			next.bodies[to+"/"+key] = v
		}
	}
	key := func(k string) string {
		if k == "reg:"+from {
			return "reg:" + to
		}
		return k
	}
	rekey := func(text []byte) []byte {
		return []byte(strings.NewReplacer("opforge:begin reg:"+from+"\n", "opforge:begin reg:"+to+"\n", "opforge:end reg:"+from+"\n", "opforge:end reg:"+to+"\n").Replace(string(text)))
	}
	carry[next.srcPath(to)] = Carry{From: m.srcPath(from)}
	carry[m.regPath()] = Carry{From: m.regPath(), Rekey: rekey, Key: key}
	return next, carry
}

// recoverLocked finishes or rolls back an interrupted rename, as gen and
// mv do first, under the lock.
func (w *propWorld) recoverLocked(l *diag.List) string {
	if MoveRecorded(w.root) == nil {
		return ""
	}
	return Recover(w.root, l)
}

// genDisk is `opforge gen`: lock, recover, read the opdef, gen.
func (w *propWorld) genDisk() (*diag.List, error) {
	unlock, err := filelock.Lock(w.lock, nil)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var l diag.List
	if w.recoverLocked(&l); l.HasErrors() {
		return &l, nil
	}
	m := parseOpdef(w.readOpdef())
	p := Prepare(w.root, m.generate(), &l)
	if l.HasErrors() {
		return &l, nil
	}
	_, err = Apply(p)
	return &l, err
}

// mv is `opforge mv`: lock, recover (an interrupted mv of the same names
// finished is done), the plan from the opdef on disk, one Apply.
func (w *propWorld) mv(what, from, to string) (*diag.List, error) {
	unlock, err := filelock.Lock(w.lock, nil)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var l diag.List
	if m := MoveRecorded(w.root); m != nil {
		done := Recover(w.root, &l)
		if l.HasErrors() || (strings.HasPrefix(done, "finished") && m.What == what && m.From == from && m.To == to) {
			return &l, nil
		}
	}
	removeLeftovers(w.root)
	cur := parseOpdef(w.readOpdef())
	cur.bodies = w.m.bodies
	// As the CLI: the rename already done (a gen finished it) is no error.
	_, hasFrom := cur.ops[from]
	_, hasTo := cur.ops[to]
	switch {
	case what == "op" && !hasFrom && hasTo, what == "package" && cur.pkg == to:
		return &l, nil
	case what == "op" && !hasFrom, what == "package" && cur.pkg != from:
		return nil, fmt.Errorf("no %s %s", what, from)
	}
	next, carry := cur.renamed(what, from, to)
	p := PrepareWith(w.root, next.generate(), Options{Carry: carry, Outside: []Outside{{Path: w.opdef, Data: []byte(next.opdefText())}}, Move: &Move{What: what, From: from, To: to}}, &l)
	if l.HasErrors() {
		return &l, nil
	}
	_, err = Apply(p)
	return &l, err
}

// mvStep renames an op or the package: cleanly, killed at a random change
// (then `gen` or the same mv, which may itself be killed once), failing
// at a random change (the tree and the opdef as before), or beside a
// concurrent gen. After each, every user body is where the opdef on disk
// puts it and out/ is what a clean gen of it makes.
func (w *propWorld) mvStep(i int) {
	w.writeOpdef()
	what, from, to := "package", w.m.pkg, ""
	ops := w.m.names()
	if len(ops) > 0 && w.rng.Intn(3) > 0 {
		what, from = "op", ops[w.rng.Intn(len(ops))]
		for to == "" {
			to = "Op" + strconv.Itoa(w.rng.Intn(10))
			if _, taken := w.m.ops[to]; taken {
				to = ""
			}
		}
	} else {
		for to == "" || to == from {
			to = []string{"pkg", "pkgB", "pkgC"}[w.rng.Intn(3)]
		}
	}
	next, _ := w.m.renamed(what, from, to)
	oldText, nextText := w.m.opdefText(), next.opdefText()
	mode := w.rng.Intn(4)
	w.log = append(w.log, fmt.Sprintf("%d: mv %s %s %s (mode %d)", i, what, from, to, mode))
	must := func(l *diag.List, err error, doing string) {
		w.t.Helper()
		if err != nil || (l != nil && l.HasErrors()) {
			text := ""
			if l != nil {
				text = diagText(l)
			}
			w.failf("%s: %v\n%s", doing, err, text)
		}
	}
	switch mode {
	case 0:
		l, err := w.mv(what, from, to)
		must(l, err, "mv")
	case 1:
		k := 1 + w.rng.Intn(2*len(next.generate().Files())+8)
		killed := false
		withHook(func(n int, op, path string) error {
			if n == k {
				killed = true
				return errKilled
			}
			return nil
		}, func() { _, _ = w.mv(what, from, to) })
		w.log[len(w.log)-1] += fmt.Sprintf(", killed at change %d: %v", k, killed)
		if m := MoveRecorded(w.root); m != nil {
			// check names the interrupted mv and advises no deletion.
			var l diag.List
			Prepare(w.root, w.m.generate(), &l)
			if !hasCode(&l, "interrupted-mv") || strings.Contains(diagText(&l), "delete it") {
				w.failf("check after a killed mv:\n%s", diagText(&l))
			}
			if w.rng.Intn(2) == 0 { // the recovery itself killed once
				j := 1 + w.rng.Intn(6)
				withHook(func(n int, op, path string) error {
					if n == j {
						return errKilled
					}
					return nil
				}, func() { _, _ = w.genDisk() })
				w.log[len(w.log)-1] += fmt.Sprintf(", recovery killed at change %d", j)
			}
		}
		switch {
		case !killed: // it finished
		case w.rng.Intn(2) == 0:
			w.log[len(w.log)-1] += ", then gen"
			l, err := w.genDisk()
			must(l, err, "gen after a killed mv")
		default:
			w.log[len(w.log)-1] += ", then mv again"
			l, err := w.mv(what, from, to)
			must(l, err, "mv after a killed mv")
		}
	case 2:
		k := 1 + w.rng.Intn(2*len(next.generate().Files())+8)
		before := tree(w.t, w.root)
		var l *diag.List
		var err error
		failed := ""
		withHook(func(n int, op, path string) error {
			if n == k {
				failed = op + " " + path
				return syscall.EIO
			}
			return nil
		}, func() { l, err = w.mv(what, from, to) })
		w.log[len(w.log)-1] += fmt.Sprintf(", EIO at change %d (%s)", k, failed)
		var ae *ApplyError
		switch {
		case err == nil && (failed == "" || failed == "remove "+PendingName):
			must(l, nil, "mv")
		case errors.As(err, &ae) && len(ae.NotRestored) == 0 && errors.Is(err, syscall.EIO):
			sameTree(w.t, "after a failed mv", tree(w.t, w.root), before)
			if got := w.readOpdef(); got != oldText {
				w.failf("the opdef after a failed mv:\n%s", got)
			}
		default:
			w.failf("mv failing at change %d (%s): %v %v", k, failed, err, l)
		}
	default:
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var l *diag.List
				var err error
				if j == 0 {
					l, err = w.mv(what, from, to)
				} else {
					l, err = w.genDisk()
				}
				if err == nil && l != nil && l.HasErrors() {
					err = errors.New(diagText(l))
				}
				errs[j] = err
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				w.failf("mv beside a gen: %v", err)
			}
		}
	}
	switch got := w.readOpdef(); got {
	case nextText:
		w.m = next
	case oldText:
	default:
		w.failf("the opdef is neither the old nor the renamed one:\n%s", got)
	}
	if MoveRecorded(w.root) != nil {
		w.failf("a journal of the mv is left")
	}
	w.invariants(true)
}
