package writer

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/filelock"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/regions"
)

// model is what the property test's "opdefs" say and what the user wrote:
// ops, each generating an owned source (two regions) and a generated
// header, plus a generated index of all ops.
type model struct {
	pkg    string            // the package: the directory of its files
	ops    map[string]int    // op -> skeleton version (an opdef edit bumps it)
	bodies map[string]string // "op/key" -> the user's body (absent: default); key "reg" is the op's region in the package's registry
}

func (m *model) names() []string {
	var ns []string
	for n := range m.ops {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

func (m *model) clone() *model {
	c := &model{pkg: m.pkg, ops: map[string]int{}, bodies: map[string]string{}}
	for k, v := range m.ops {
		c.ops[k] = v
	}
	for k, v := range m.bodies {
		c.bodies[k] = v
	}
	return c
}

var propKeys = []string{"impl", "includes"}

// source is an op's owned file with the given region bodies (nil: defaults).
func (m *model) source(op string, bodies map[string]string) string {
	v := m.ops[op]
	var b strings.Builder
	fmt.Fprintf(&b, "// %s v%d: generated, edit only inside the regions\n", op, v)
	for i, key := range propKeys {
		fmt.Fprintf(&b, "int %s_%d(int a%d) {\n  // opforge:begin %s\n", op, i, v, key)
		if body, ok := bodies[op+"/"+key]; ok {
			b.WriteString(body)
		} else {
			fmt.Fprintf(&b, "  return %d; // default v%d\n", i, v)
		}
		fmt.Fprintf(&b, "  // opforge:end %s\n}\n", key)
	}
	return b.String()
}

// registry is the package-wide owned file, a region per op keyed
// "reg:<op>" (as the real targets key per-op regions of shared files).
func (m *model) registry(bodies map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// registry of %s\n", m.pkg)
	for _, op := range m.names() {
		fmt.Fprintf(&b, "void reg_%s() {\n  // opforge:begin reg:%s\n", op, op)
		if body, ok := bodies[op+"/reg"]; ok {
			b.WriteString(body)
		} else {
			fmt.Fprintf(&b, "  // register %s\n", op)
		}
		fmt.Fprintf(&b, "  // opforge:end reg:%s\n}\n", op)
	}
	return b.String()
}

func (m *model) srcPath(op string) string { return m.pkg + "/src/" + op + ".cpp" }
func (m *model) regPath() string          { return m.pkg + "/registry.cpp" }

func (m *model) generate() *fileset.Set {
	s := fileset.New()
	var index strings.Builder
	for _, op := range m.names() {
		_ = s.Add(&fileset.File{Path: m.srcPath(op), Owned: true, Data: []byte(m.source(op, nil))})
		_ = s.Add(&fileset.File{Path: m.pkg + "/include/" + op + ".h", Data: []byte(fmt.Sprintf("#pragma once // %s v%d\n", op, m.ops[op]))})
		fmt.Fprintf(&index, "%s v%d\n", op, m.ops[op])
	}
	if len(m.ops) > 0 {
		_ = s.Add(&fileset.File{Path: m.regPath(), Owned: true, Data: []byte(m.registry(nil))})
	}
	_ = s.Add(&fileset.File{Path: "index.txt", Data: []byte(index.String())})
	return s
}

// propWorld is one property run: an output root, a model, and a lock.
type propWorld struct {
	t    *testing.T
	rng  *rand.Rand
	root string
	lock string
	m    *model
	log  []string
	// opdef is the "opdefs" file on disk, which an mv edits: it always
	// says what w.m says (writeOpdef), but after an interrupted mv it is
	// what decides.
	opdef string
}

func (w *propWorld) failf(format string, args ...any) {
	w.t.Helper()
	w.t.Fatalf("%s\nsteps:\n  %s", fmt.Sprintf(format, args...), strings.Join(w.log, "\n  "))
}

// gen runs one whole gen (lock, Prepare, Apply) for m, as the CLI does.
func (w *propWorld) gen(m *model) (*diag.List, error) {
	unlock, err := filelock.Lock(w.lock, nil)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var l diag.List
	p := Prepare(w.root, m.generate(), &l)
	if l.HasErrors() {
		return &l, nil
	}
	_, err = Apply(p)
	return &l, err
}

// expected is the tree a clean gen of w.m makes, with the user's bodies.
func (w *propWorld) expected() map[string]string {
	clean := filepath.Join(w.t.TempDir(), "clean")
	var l diag.List
	p := Prepare(clean, w.m.generate(), &l)
	if _, err := Apply(p); err != nil || l.HasErrors() {
		w.failf("clean gen: %v %s", err, diagText(&l))
	}
	for _, op := range w.m.names() {
		writeFile(w.t, filepath.Join(clean, w.m.srcPath(op)), w.m.source(op, w.m.bodies))
	}
	if len(w.m.ops) > 0 {
		writeFile(w.t, filepath.Join(clean, w.m.regPath()), w.m.registry(w.m.bodies))
	}
	return tree(w.t, clean)
}

// checkClean runs the drift check against w.m.
func (w *propWorld) checkClean() bool {
	var l diag.List
	p := Prepare(w.root, w.m.generate(), &l)
	if !l.HasErrors() {
		Diff(p, &l)
	}
	return !l.HasErrors()
}

// invariants: every user body is where it belongs; check is clean exactly
// when the tree is what a clean gen makes; with converged, it must be.
func (w *propWorld) invariants(converged bool) {
	w.t.Helper()
	for key, body := range w.m.bodies {
		op, k, _ := strings.Cut(key, "/")
		file := w.m.srcPath(op)
		if k == "reg" {
			file, k = w.m.regPath(), "reg:"+op
		}
		data, err := os.ReadFile(filepath.Join(w.root, file))
		if err != nil {
			w.failf("%s: %v", key, err)
		}
		rs, err := regions.Parse(string(data))
		found := false
		for _, r := range rs {
			found = found || (r.Key == k && r.Body == body)
		}
		if err != nil || !found {
			w.failf("user body of %s lost:\n%s", key, data)
		}
	}
	want := w.expected()
	got := tree(w.t, w.root)
	same := len(got) == len(want)
	for p, v := range want {
		same = same && got[p] == v
	}
	if converged && !same {
		sameTree(w.t, "converged tree", got, want)
		w.failf("tree differs from a clean gen")
	}
	if clean := w.checkClean(); clean != same {
		w.failf("check says clean=%v, but the tree equals a clean gen: %v", clean, same)
	}
}

func (w *propWorld) mustGen(m *model, what string) {
	w.t.Helper()
	l, err := w.gen(m)
	if err != nil || l.HasErrors() {
		w.failf("%s: %v\n%s", what, err, diagText(l))
	}
}

// step makes one random move and checks the invariants.
func (w *propWorld) step(i int) {
	w.writeOpdef()
	if w.rng.Intn(4) == 0 {
		w.mvStep(i)
		return
	}
	ops := w.m.names()
	pick := func() string { return ops[w.rng.Intn(len(ops))] }
	switch r := w.rng.Intn(10); {
	case r < 3 && len(ops) > 0: // the user edits a region
		op, key := pick(), append([]string{"reg"}, propKeys...)[w.rng.Intn(len(propKeys)+1)]
		body := fmt.Sprintf("  return user_%d(); // step %d\n", w.rng.Intn(1000), i)
		w.log = append(w.log, fmt.Sprintf("%d: edit %s/%s", i, op, key))
		w.m.bodies[op+"/"+key] = body
		if key == "reg" {
			writeFile(w.t, filepath.Join(w.root, w.m.regPath()), w.m.registry(w.m.bodies))
		} else {
			writeFile(w.t, filepath.Join(w.root, w.m.srcPath(op)), w.m.source(op, w.m.bodies))
		}
		w.invariants(true)
	case r < 6: // an opdef edit: change, add or remove an op, then gen
		next := w.m.clone()
		var removed string
		switch {
		case len(ops) > 0 && w.rng.Intn(3) == 0:
			removed = pick()
			delete(next.ops, removed)
			w.log = append(w.log, fmt.Sprintf("%d: remove op %s + gen", i, removed))
		case len(ops) > 0 && w.rng.Intn(2) == 0:
			op := pick()
			next.ops[op]++
			w.log = append(w.log, fmt.Sprintf("%d: change op %s + gen", i, op))
		default:
			op := "Op" + strconv.Itoa(w.rng.Intn(8))
			next.ops[op] += 0
			w.log = append(w.log, fmt.Sprintf("%d: add op %s + gen", i, op))
		}
		userCode := false
		for key := range w.m.bodies {
			userCode = userCode || strings.HasPrefix(key, removed+"/")
		}
		if removed != "" && userCode {
			// Its file holds user code: gen must refuse and change nothing.
			before := tree(w.t, w.root)
			l, err := w.gen(next)
			if err != nil || !(hasCode(l, "user-code-stale") || hasCode(l, "user-region-orphan")) {
				w.failf("removing an op with user code: %v\n%s", err, diagText(l))
			}
			sameTree(w.t, "after a refused gen", tree(w.t, w.root), before)
			return
		}
		w.m = next
		w.mustGen(w.m, "gen")
		w.invariants(true)
	case r < 7 && len(ops) > 0: // a stray edit outside the regions stops gen
		op := pick()
		w.log = append(w.log, fmt.Sprintf("%d: stray edit in %s + gen + undo", i, op))
		p := filepath.Join(w.root, w.m.srcPath(op))
		good := read(w.t, p)
		writeFile(w.t, p, good+"stray();\n")
		before := tree(w.t, w.root)
		l, err := w.gen(w.m)
		if err != nil || !hasCode(l, "generated-edited") {
			w.failf("stray edit: %v\n%s", err, diagText(l))
		}
		sameTree(w.t, "after a refused gen", tree(w.t, w.root), before)
		writeFile(w.t, p, good)
	case r < 9: // an interrupted gen after an opdef change: I/O error or kill
		next := w.m.clone()
		for _, op := range ops {
			if w.rng.Intn(2) == 0 {
				next.ops[op]++
			}
		}
		next.ops["Op"+strconv.Itoa(w.rng.Intn(8))] += 0
		// Apply makes about two changes per file (a temporary, a rename)
		// and a few more (journal, stale files): k reaches every phase.
		k := 1 + w.rng.Intn(2*next.generate().Len()+6)
		kill := w.rng.Intn(2) == 0
		w.log = append(w.log, fmt.Sprintf("%d: gen interrupted at change %d (kill %v)", i, k, kill))
		before := tree(w.t, w.root)
		var err error
		withHook(func(n int, op, path string) error {
			switch {
			case n != k:
				return nil
			case kill:
				return errKilled
			}
			return syscall.EIO
		}, func() { _, err = w.gen(next) })
		switch {
		case err == nil:
			w.m = next // finished before change k
		case errors.Is(err, errKilled):
			// The user goes on with the new opdefs, or reverts them: then
			// the files the killed gen did replace hold bytes of opdefs
			// that no longer exist, which only the journal vouches for.
			revert := w.rng.Intn(2) == 0
			if !revert {
				w.m = next
			}
			w.log[len(w.log)-1] += fmt.Sprintf(", opdefs reverted: %v", revert)
		default:
			sameTree(w.t, "after a failed gen", tree(w.t, w.root), before)
		}
		w.invariants(false)
		w.mustGen(w.m, "gen after an interruption")
		w.invariants(true)
	default: // two gens at once: the old opdefs and the new
		next := w.m.clone()
		next.ops["Op"+strconv.Itoa(w.rng.Intn(8))]++
		w.log = append(w.log, fmt.Sprintf("%d: two gens at once", i))
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j, m := range []*model{w.m, next} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l, err := w.gen(m)
				if err == nil && l.HasErrors() {
					err = errors.New(diagText(l))
				}
				errs[j] = err
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				w.failf("concurrent gen: %v", err)
			}
		}
		w.m = next
		w.mustGen(w.m, "gen after concurrent gens")
		w.invariants(true)
	}
}

// runProperty drives one seeded sequence of steps.
func runProperty(t *testing.T, seed int64, steps int) {
	dir := t.TempDir()
	w := &propWorld{t: t, rng: rand.New(rand.NewSource(seed)), root: filepath.Join(dir, "out"), lock: filepath.Join(dir, "build", "gen.lock"),
		m: &model{pkg: "pkg", ops: map[string]int{"Op0": 0, "Op1": 0}, bodies: map[string]string{}}}
	w.opdef = filepath.Join(dir, "opdefs", "ops.txt")
	w.writeOpdef()
	w.mustGen(w.m, "first gen")
	for i := 0; i < steps; i++ {
		w.step(i)
	}
}

// TestWriterProperty runs seeded random sequences of opdef edits, user
// edits, refused edits, interrupted (failed or killed) gens and concurrent
// gens, checking after each: no user byte lost, out/ converges to what a
// clean gen makes, and the drift check agrees. OPFORGE_WRITER_SEEDS runs
// more seeds (mage fuzz runs FuzzWriterSequence).
func TestWriterProperty(t *testing.T) {
	seeds := 4
	if s, err := strconv.Atoi(os.Getenv("OPFORGE_WRITER_SEEDS")); err == nil {
		seeds = s
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) { runProperty(t, seed, 20) })
	}
}

// FuzzWriterSequence is the property test with the seed from the fuzzer.
func FuzzWriterSequence(f *testing.F) {
	f.Add(int64(1))
	f.Fuzz(func(t *testing.T, seed int64) { runProperty(t, seed, 25) })
}
