package writer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
)

// moveScenario is a tree generated for op A with user code in its region,
// an opdef naming A beside out/, and the plan renaming A to B.
func moveScenario(t *testing.T) (root, opdef string, plan func(l *diag.List) *Plan) {
	t.Helper()
	dir := t.TempDir()
	root, opdef = filepath.Join(dir, "out"), filepath.Join(dir, "opdefs", "ops.txt")
	_ = os.MkdirAll(filepath.Dir(opdef), 0o755)
	writeFile(t, opdef, "op A\n")
	if l, _ := apply(t, root, set(owned("pkg/A.cpp", "  return 0;\n"))); l.HasErrors() {
		t.Fatal(diagText(l))
	}
	p := filepath.Join(root, "pkg/A.cpp")
	writeFile(t, p, strings.Replace(read(t, p), "  return 0;\n", "  return mine();\n", 1))
	return root, opdef, func(l *diag.List) *Plan {
		return PrepareWith(root, set(owned("pkg/B.cpp", "  return 0;\n")), Options{
			Carry:   map[string]Carry{"pkg/B.cpp": {From: "pkg/A.cpp"}},
			Outside: []Outside{{Path: opdef, Data: []byte("op B\n"), Base: []byte("op A\n")}},
			Move:    &Move{What: "op", From: "A", To: "B"},
		}, l)
	}
}

// killMove applies the rename, killed at its first rename (journal
// written, nothing visible yet) or at the given change.
func killMove(t *testing.T, plan func(l *diag.List) *Plan, at string) {
	t.Helper()
	var l diag.List
	p := plan(&l)
	if l.HasErrors() {
		t.Fatal(diagText(&l))
	}
	withHook(func(n int, op, path string) error {
		if op+" "+path == at {
			return errKilled
		}
		return nil
	}, func() { _, _ = Apply(p) })
	if MoveRecorded(p.Root) == nil {
		t.Fatal("no journal of the move")
	}
}

// An opdef edited after a kill: Recover can tell neither way, so it stops
// and changes nothing; check names the interrupted mv.
func TestRecoverStopsOnEditedOpdef(t *testing.T) {
	root, opdef, plan := moveScenario(t)
	killMove(t, plan, "rename pkg/B.cpp")
	writeFile(t, opdef, "op C\n")
	before := tree(t, filepath.Dir(root))
	var l diag.List
	if done := Recover(root, &l); done != "" || !hasCode(&l, "interrupted-mv") {
		t.Fatalf("Recover: %q\n%s", done, diagText(&l))
	}
	sameTree(t, "after a refused recovery", tree(t, filepath.Dir(root)), before)
	var c diag.List
	Prepare(root, set(owned("pkg/A.cpp", "  return 0;\n")), &c)
	if !hasCode(&c, "interrupted-mv") || strings.Contains(diagText(&c), "delete it") {
		t.Errorf("check with the journal:\n%s", diagText(&c))
	}
}

// A journal naming a path outside the repository (corrupt or planted) is
// refused: Recover writes and removes nothing.
func TestRecoverRefusesPathsOutside(t *testing.T) {
	root, _, plan := moveScenario(t)
	killMove(t, plan, "rename pkg/B.cpp")
	victim := filepath.Join(filepath.Dir(filepath.Dir(root)), "victim.txt")
	writeFile(t, victim, "keep\n")
	var ms []Manifest
	if err := json.Unmarshal([]byte(read(t, filepath.Join(root, PendingName))), &ms); err != nil {
		t.Fatal(err)
	}
	ms[len(ms)-1].Move.Files = append(ms[len(ms)-1].Move.Files, MoveFile{Path: "../victim.txt", Outside: true, Had: true, Old: []byte("x"), New: "y"})
	data, _ := json.Marshal(ms)
	writeFile(t, filepath.Join(root, PendingName), string(data))
	before := tree(t, filepath.Dir(root))
	var l diag.List
	if done := Recover(root, &l); done != "" || !l.HasErrors() {
		t.Fatalf("Recover: %q\n%s", done, diagText(&l))
	}
	sameTree(t, "after a refused recovery", tree(t, filepath.Dir(root)), before)
	if read(t, victim) != "keep\n" {
		t.Error("the file outside changed")
	}
}

// A rename may change files of the repository only: an opdef outside the
// output root's parent is refused before anything is written; so is one
// that changed since the rename read it.
func TestMoveOutsideRefused(t *testing.T) {
	root, opdef, _ := moveScenario(t)
	elsewhere := filepath.Join(t.TempDir(), "ops.txt")
	writeFile(t, elsewhere, "op A\n")
	for _, o := range []Outside{{Path: elsewhere, Data: []byte("op B\n")}, {Path: opdef, Data: []byte("op B\n"), Base: []byte("op Z\n")}} {
		var l diag.List
		PrepareWith(root, set(owned("pkg/B.cpp", "  return 0;\n")), Options{
			Carry: map[string]Carry{"pkg/B.cpp": {From: "pkg/A.cpp"}}, Outside: []Outside{o}, Move: &Move{What: "op", From: "A", To: "B"}}, &l)
		if !l.HasErrors() {
			t.Errorf("%s accepted", o.Path)
		}
	}
}

// Killed at every change, a rename is finished or rolled back by Recover,
// and the user's code is in exactly one place: the new file with the
// renamed opdef, the old file with the old one.
func TestMoveKilledAtEveryChangeRecovers(t *testing.T) {
	for k := 1; ; k++ {
		root, opdef, plan := moveScenario(t)
		var l diag.List
		p := plan(&l)
		if l.HasErrors() {
			t.Fatal(diagText(&l))
		}
		killed := ""
		withHook(func(n int, op, path string) error {
			if n == k {
				killed = op + " " + path
				return errKilled
			}
			return nil
		}, func() { _, _ = Apply(p) })
		if killed == "" {
			break
		}
		var r diag.List
		Recover(root, &r)
		if r.HasErrors() || MoveRecorded(root) != nil {
			t.Fatalf("kill at %d (%s): %s", k, killed, diagText(&r))
		}
		removeLeftovers(root)
		names := map[string]string{"op A\n": "pkg/A.cpp", "op B\n": "pkg/B.cpp"}
		file, ok := names[read(t, opdef)]
		if !ok {
			t.Fatalf("kill at %d (%s): opdef %q", k, killed, read(t, opdef))
		}
		got := tree(t, root)
		if !strings.Contains(got[file], "return mine();") {
			t.Errorf("kill at %d (%s): %s lost the user code", k, killed, file)
		}
		for p := range got {
			if strings.HasSuffix(p, ".cpp") && p != file {
				t.Errorf("kill at %d (%s): %s is left beside %s", k, killed, p, file)
			}
		}
		if entries, _ := os.ReadDir(filepath.Dir(opdef)); len(entries) != 1 {
			t.Errorf("kill at %d (%s): the opdef's directory holds %d entries", k, killed, len(entries))
		}
	}
}
