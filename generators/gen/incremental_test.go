package gen

import (
	"bytes"
	"fmt"
	"github.com/opforge/opforge/generators/atomicfile"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/writer"
	"github.com/opforge/opforge/templates"
)

// TestIncrementalMatchesCold applies random edit sequences — op edits,
// ops added and removed, lines moved, package field edits, template byte
// changes, a new generator identity, a corrupt gen cache, a generated
// file deleted, the manifest rewritten — and after every step compares
// the tree an incremental gen (the gen cache of the last step, reusing
// the files of unchanged ops unrendered) left with a cold gen into a
// fresh folder, byte for byte. Seeds vary from run to run;
// OPFORGE_INCR_SEED=<seed> replays a failure.
func TestIncrementalMatchesCold(t *testing.T) {
	steps := 24
	if testing.Short() {
		steps = 8
	}
	incrementalMatchesCold(t, steps)
}

// TestIncrementalMatchesColdMapped is TestIncrementalMatchesCold with the
// gen cache's stores mapped (atomicfile.MapRegular), as a large package's
// are, where the tests' small stores are otherwise read.
func TestIncrementalMatchesColdMapped(t *testing.T) {
	old := atomicfile.MapMin
	atomicfile.MapMin = 1
	t.Cleanup(func() { atomicfile.MapMin = old })
	incrementalMatchesCold(t, 8)
}

// incrementalMatchesCold is TestIncrementalMatchesCold's session of steps
// random edits.
func incrementalMatchesCold(t *testing.T, steps int) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("OPFORGE_INCR_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("OPFORGE_INCR_SEED=%q: %v", s, err)
		}
	}
	t.Logf("seed %d (replay: OPFORGE_INCR_SEED=%d go test ./generators/gen -run TestIncrementalMatchesCold)", seed, seed)
	s := newIncrSession(t, seed)
	defer s.restoreTemplates()
	s.gen("initial state")
	for i := 0; i < steps; i++ {
		what := s.edit()
		s.gen(fmt.Sprintf("step %d (%s)", i+1, what))
	}
	if s.everKept == 0 {
		s.fatalf("no step kept a file: the test proved nothing of reuse")
	}
}

// incrOp is one op of the random package: the fields edits change.
type incrOp struct {
	name        string
	description string // "" writes no description line, which moves every later line
	scale       string
	k           int
	second      bool // a second input
	// pluginVersion overrides the version the op's TensorRT plugin is
	// registered under ("": the package's). The first op's also names the
	// version the package's shared TensorRT files print (trt.PluginID).
	pluginVersion string
}

type incrSession struct {
	t         *testing.T
	seed      uint64
	rng       *rand.Rand
	dir       string
	ops       []*incrOp
	version   int
	namespace string
	generator string
	templates fstest.MapFS
	restore   func()
	nextOp    int
	// expectNoHits is set by an edit after which the cache must vouch for
	// nothing: a new generator identity, a template edited in every
	// target, a rewritten manifest.
	expectNoHits bool
	cold         int
	everKept     int
}

func newIncrSession(t *testing.T, seed uint64) *incrSession {
	s := &incrSession{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), dir: t.TempDir(), namespace: "incr", generator: "gen-1", version: 1}
	for i := 0; i < 5; i++ {
		s.addOp()
	}
	s.templates = fstest.MapFS{}
	err := fs.WalkDir(templates.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(templates.FS, path)
		s.templates[path] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *incrSession) fatalf(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("seed %d: %s", s.seed, fmt.Sprintf(format, args...))
}

func (s *incrSession) addOp() {
	s.nextOp++
	s.ops = append(s.ops, &incrOp{name: fmt.Sprintf("Incr%03d", s.nextOp), description: fmt.Sprintf("Op number %d.", s.nextOp), scale: "1.0", k: 2})
}

func (s *incrSession) restoreTemplates() {
	if s.restore != nil {
		s.restore()
	}
}

// edit applies one random edit and says what it was.
func (s *incrSession) edit() string {
	s.expectNoHits = false
	op := s.ops[s.rng.IntN(len(s.ops))]
	switch n := s.rng.IntN(13); n {
	case 0, 1:
		op.description = fmt.Sprintf("Described %d.", s.rng.IntN(1000))
		return "description of " + op.name
	case 2:
		op.description = ""
		return "description of " + op.name + " removed (lines move)"
	case 3:
		op.scale = fmt.Sprintf("%d.5", s.rng.IntN(100))
		return "default of " + op.name
	case 4:
		op.k = 1 + s.rng.IntN(5)
		op.second = !op.second
		return "params and inputs of " + op.name
	case 5:
		s.addOp()
		return "op added"
	case 6:
		if len(s.ops) > 1 {
			i := s.rng.IntN(len(s.ops))
			name := s.ops[i].name
			s.ops = append(s.ops[:i], s.ops[i+1:]...)
			return "op " + name + " removed"
		}
		return "nothing (one op left)"
	case 7:
		s.version++
		return "package version"
	case 8:
		s.namespace = fmt.Sprintf("incr%d", s.rng.IntN(100))
		return "package namespace"
	case 9, 10:
		return s.editTemplate()
	case 11:
		if s.rng.IntN(2) == 0 {
			op = s.ops[0] // the one whose override the shared files print
		}
		if op.pluginVersion == "" {
			op.pluginVersion = fmt.Sprintf("%d", 2+s.rng.IntN(100))
		} else {
			op.pluginVersion = ""
		}
		return "plugin version of " + op.name
	default:
		switch s.rng.IntN(4) {
		case 0:
			s.generator = fmt.Sprintf("gen-%d", s.rng.IntN(1<<30))
			s.expectNoHits = true
			return "generator identity"
		case 1:
			return s.deleteGenerated()
		case 2:
			// Rewritten with the same bytes: a new stat, so the cache
			// cannot tell the entries are what it recorded.
			path := filepath.Join(s.dir, "out", writer.ManifestName)
			data, err := os.ReadFile(path)
			if err != nil {
				return "manifest rewritten (none yet)"
			}
			if err := os.Remove(path); err != nil {
				s.fatalf("%v", err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				s.fatalf("%v", err)
			}
			s.expectNoHits = true
			return "manifest rewritten"
		}
		return s.corruptCache()
	}
}

// deleteGenerated removes one generated file of an op: the next gen must
// write it again, whatever the cache recorded.
func (s *incrSession) deleteGenerated() string {
	var ops []string
	for path := range treeBytes(s.t, filepath.Join(s.dir, "out")) {
		if strings.Contains(path, "/ops/") || strings.Contains(path, "/src/") {
			ops = append(ops, path)
		}
	}
	if len(ops) == 0 {
		return "nothing deleted (no op files)"
	}
	slices.Sort(ops)
	path := ops[s.rng.IntN(len(ops))]
	if err := os.Remove(filepath.Join(s.dir, "out", filepath.FromSlash(path))); err != nil {
		s.fatalf("%v", err)
	}
	return "generated " + path + " deleted"
}

// templateEdits are lines a template can end with: each changes what the
// files of that template say.
var templateEdits = []struct{ path, line string }{
	{"trt/kernel.h.tmpl", "// edited %d"},
	{"trt/README.md.tmpl", "Edited %d."},
	{"trt/plugin.cpp.tmpl", "// edited %d"},
	{"htp/op.cpp.tmpl", "// edited %d"},
	{"aipu/parser.py.tmpl", "# edited %d"},
	{"aipu/Makefile.tmpl", "# edited %d"},
	{"reference/reference.py.tmpl", "# edited %d"},
}

// editTemplate appends a line to one template's bytes and reloads every
// target's templates from the edited copy.
func (s *incrSession) editTemplate() string {
	e := templateEdits[s.rng.IntN(len(templateEdits))]
	f := s.templates[e.path]
	f.Data = append(bytes.Clone(f.Data), []byte(fmt.Sprintf("\n"+e.line+"\n", s.rng.IntN(1000)))...)
	s.restoreTemplates()
	s.restore = render.ReloadAll(s.templates)
	return "template " + e.path
}

// corruptCache flips a byte of the gen cache or of its section store, or
// cuts one short: a record that does not check out must cost renders,
// never a wrong file.
func (s *incrSession) corruptCache() string {
	path := s.cachePath()
	if s.rng.IntN(2) == 0 {
		path = newSectionStore(path).path
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return "cache corruption (no cache)"
	}
	if s.rng.IntN(2) == 0 {
		data[s.rng.IntN(len(data))] ^= 0x5a
	} else {
		data = data[:s.rng.IntN(len(data))]
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		s.fatalf("%v", err)
	}
	return filepath.Base(path) + " corrupted"
}

func (s *incrSession) cachePath() string { return filepath.Join(s.dir, "build", "cache") }

func (s *incrSession) opdef() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "version: 1\npackage: {name: IncrOps, domain: incr, version: 1.0.%d, namespace: %s}\nops:\n", s.version, s.namespace)
	for _, op := range s.ops {
		fmt.Fprintf(&sb, "  - name: %s\n", op.name)
		if op.description != "" {
			fmt.Fprintf(&sb, "    description: %s\n", op.description)
		}
		sb.WriteString("    types: {T: [float32, float16]}\n    inputs:\n      - {name: x, type: T, shape: [N, C, H, W]}\n")
		if op.second {
			sb.WriteString("      - {name: y, type: T, shape: [N, C, H, W]}\n")
		}
		if op.pluginVersion != "" {
			fmt.Fprintf(&sb, "    targets: {trt: {plugin_version: %q}}\n", op.pluginVersion)
		}
		fmt.Fprintf(&sb, `    params:
      - {name: k, type: [int32, uint32], default: %d, min: 1}
      - {name: scale, type: float32, default: %s}
      - {name: pads, type: ["int32[2]", "uint32[2]"], default: [1, 1]}
    outputs:
      - {name: z, type: T, shape: [N, C, "H + pads[0] + pads[1]", "ceil_div(W, k)"]}
`, op.k, op.scale)
	}
	return sb.String()
}

// gen writes the opdef, generates incrementally into out/ and cold into a
// fresh folder, and compares the two trees.
func (s *incrSession) gen(step string) *writer.Plan {
	s.t.Helper()
	opdefs := filepath.Join(s.dir, "opdefs")
	if err := os.MkdirAll(filepath.Join(opdefs, "incr"), 0o755); err != nil {
		s.fatalf("%v", err)
	}
	if err := os.WriteFile(filepath.Join(opdefs, "incr", "incr.yaml"), []byte(s.opdef()), 0o644); err != nil {
		s.fatalf("%v", err)
	}
	o := Options{OpDefs: opdefs, Toolchains: repo + "/toolchains", Out: filepath.Join(s.dir, "out")}
	cache, err := OpenCache(o, s.cachePath())
	if err != nil {
		s.fatalf("%s: %v", step, err)
	}
	cache.generator += "\x00" + s.generator
	// As opforge gen: what the gen will wait for is started early, and
	// the stores are written before the record.
	cache.Prefetch()
	inc := o
	inc.Known, inc.Reuse = cache.Unchanged, cache
	plan := s.apply(step, inc)
	if err := cache.Invalidate(); err != nil {
		s.fatalf("%s: %v", step, err)
	}
	cache.StoreAhead()
	if err := cache.Store(plan); err != nil {
		s.fatalf("%s: storing the cache: %v", step, err)
	}
	kept, rendered := 0, 0
	for _, f := range plan.Files.Files() {
		if f.Kept {
			kept++
		} else {
			rendered++
		}
	}
	if s.expectNoHits && kept > 0 {
		s.fatalf("%s: the cache vouched for %d files it cannot know", step, kept)
	}
	s.everKept += kept
	s.cold++
	cold := o
	cold.Out = filepath.Join(s.dir, fmt.Sprintf("cold-%d", s.cold))
	s.apply(step, cold)
	s.compare(step, o.Out, cold.Out)
	s.t.Logf("%s: %d files kept unrendered, %d rendered", step, kept, rendered)
	return plan
}

func (s *incrSession) apply(step string, o Options) *writer.Plan {
	s.t.Helper()
	var l diag.List
	plan := Plan(o, &l)
	if plan == nil || l.HasErrors() {
		s.fatalf("%s: gen into %s: %v", step, o.Out, l.Sorted())
	}
	if _, err := writer.Apply(plan); err != nil {
		s.fatalf("%s: writing %s: %v", step, o.Out, err)
	}
	return plan
}

// compare fails on any file that differs between the trees, or that one
// has and the other lacks.
func (s *incrSession) compare(step, inc, cold string) {
	s.t.Helper()
	a, b := treeBytes(s.t, inc), treeBytes(s.t, cold)
	for path, data := range b {
		got, ok := a[path]
		switch {
		case !ok:
			s.fatalf("%s: the incremental gen lacks %s", step, path)
		case got != data:
			s.fatalf("%s: %s differs from a cold gen's:\n%s", step, path, firstDifference(got, data))
		}
	}
	for path := range a {
		if _, ok := b[path]; !ok {
			s.fatalf("%s: the incremental gen left %s, which a cold gen does not write", step, path)
		}
	}
}

// firstDifference shows the first line where got and want part.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: incremental %q, cold %q", i+1, gl, wl)
		}
	}
	return "(same lines)"
}

// TestSharedFileKeptWhileItsSectionsAre: a file the ops share is kept
// unrendered when no section of it changed, though an op's did change
// (render.Package, Reuse.Shared): a default's new value reaches the
// README but not the Python plugin module (its attributes take no
// defaults). A description, which the module prints, renders it again.
// Both trees are a cold gen's (incrSession.gen).
func TestSharedFileKeptWhileItsSectionsAre(t *testing.T) {
	s := newIncrSession(t, 3)
	defer s.restoreTemplates()
	s.gen("initial state")
	kept := func(plan *writer.Plan, suffix string) bool {
		t.Helper()
		for _, f := range plan.Files.Files() {
			if strings.HasSuffix(f.Path, suffix) {
				return f.Kept
			}
		}
		t.Fatalf("no file ends in %s", suffix)
		return false
	}
	s.ops[0].scale = "2.5"
	plan := s.gen("a default changed")
	if !kept(plan, "_qdp.py") || kept(plan, "trt/IncrOps/README.md") {
		t.Errorf("a default changed: Python module kept %v (want true), README kept %v (want false)", kept(plan, "_qdp.py"), kept(plan, "trt/IncrOps/README.md"))
	}
	s.ops[0].description = "Described anew."
	if plan := s.gen("a description changed"); kept(plan, "_qdp.py") {
		t.Error("a description changed: the Python module, which prints it, was kept")
	}
	// Gone from disk, the module is not kept by the cache's word: it is
	// rendered while the other files stay kept (the writer's refusal of a
	// kept file would have rendered everything).
	s.ops[0].scale = "3.5"
	s.gen("a default changed again")
	qdp := ""
	for path := range treeBytes(t, filepath.Join(s.dir, "out")) {
		if strings.HasSuffix(path, "_qdp.py") {
			qdp = path
		}
	}
	if err := os.Remove(filepath.Join(s.dir, "out", filepath.FromSlash(qdp))); err != nil {
		t.Fatal(err)
	}
	s.ops[0].scale = "4.5"
	plan = s.gen("the module deleted, a default changed")
	others := 0
	for _, f := range plan.Files.Files() {
		if f.Kept {
			others++
		}
	}
	if kept(plan, "_qdp.py") || others == 0 {
		t.Errorf("the module deleted: kept %v (want false), %d other files kept (want some)", kept(plan, "_qdp.py"), others)
	}
	// A new generator (its code makes the bytes too) keeps nothing.
	s.generator = "gen-2"
	if plan := s.gen("a new generator"); kept(plan, "_qdp.py") {
		t.Error("a new generator: the Python module was kept")
	}
}
