package verify

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/diag"
)

func runFake(t *testing.T, o Options) ([]Result, string) {
	t.Helper()
	var l diag.List
	rs := Run(o, &l)
	if l.HasErrors() {
		t.Fatal(l.Sorted())
	}
	var buf bytes.Buffer
	WriteText(&buf, rs)
	return rs, buf.String()
}

// TestStuckRunnerFails: a case that hangs is killed after the case
// timeout and fails naming the stage; a runner killed by a signal fails
// the cases it did not report, naming the signal. Neither hangs verify
// nor reads as a skip.
func TestStuckRunnerFails(t *testing.T) {
	needPython(t)
	if runtime.GOOS == "windows" {
		t.Skip("signals: unix only")
	}
	for _, c := range []struct{ mode, want string }{
		{"hang", "timed out: no progress for 20s in stage \"case TopKLast/fake ["},
		{"crash", "signal: segmentation fault"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			o := fakeWorkspace(t, fakeRunner{mode: c.mode})
			o.CaseTimeout = 20 * time.Second // above a cold import torch on a busy machine
			start := time.Now()
			rs, out := runFake(t, o)
			if time.Since(start) > 90*time.Second {
				t.Errorf("verify took %s", time.Since(start))
			}
			if !Failed(rs) || !strings.Contains(out, c.want) || !strings.Contains(out, "cases did not run") {
				t.Errorf("want a failure with %q:\n%s", c.want, out)
			}
			if rs[0].Status != Pass {
				t.Errorf("the first case ran before the %s and passes:\n%s", c.mode, out)
			}
		})
	}
}

// TestBrokenPythonFails: a python that crashes or hangs while verify
// checks it for torch fails every op (exit 1), naming what happened; one
// without torch is a skip.
func TestBrokenPythonFails(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts: unix only")
	}
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		python, status, want string
	}{
		{script("segv", "kill -SEGV $$"), Fail, "crashed while importing torch (signal: segmentation fault)"},
		{script("hang", "sleep 600"), Fail, "did not finish in 2s; opforge killed it"},
		{script("notorch", "echo \"ModuleNotFoundError: No module named 'torch'\" >&2; exit 1"), Skip, "No module named 'torch'"},
	} {
		o := fakeWorkspace(t, fakeRunner{mode: "same"})
		o.Python, o.CaseTimeout = c.python, 2*time.Second
		start := time.Now()
		rs, out := runFake(t, o)
		if time.Since(start) > 30*time.Second {
			t.Errorf("%s: verify took %s", c.python, time.Since(start))
		}
		if len(rs) == 0 {
			t.Fatalf("%s: no result", c.python)
		}
		for _, r := range rs {
			if r.Status != c.status || !strings.Contains(r.Reason, c.want) {
				t.Errorf("%s: want every result %s with %q:\n%s", filepath.Base(c.python), c.status, c.want, out)
				break
			}
		}
	}
}

// TestReportSaysWhatRan: a kernel check is labelled with its engine and
// counts the op as one whose kernel ran; a run of the glue alone names the
// op as one nothing executed a kernel of.
func TestReportSaysWhatRan(t *testing.T) {
	needPython(t)
	rs, out := runFake(t, fakeWorkspace(t, fakeRunner{mode: "kernel"}))
	for _, want := range []string{"PASS VisionOps/TopKLast fake [base] max_abs=0 max_rel=0 kernel check in fake engine 1.0",
		"a kernel of 1 of 1 ops was executed (by the engines above)", fmt.Sprintf("of the cases run, %d were kernel checks and 0 wiring checks", len(rs))} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if s := Summarize(rs); len(s) != 1 || s[0].Check != Kernel || s[0].Engine != "fake engine 1.0" {
		t.Errorf("summary %+v", s)
	}
	_, out = runFake(t, fakeWorkspace(t, fakeRunner{mode: "same"}))
	if !strings.Contains(out, "a kernel of 0 of 1 ops was executed (by the engines above); nothing executed a kernel of VisionOps/TopKLast") {
		t.Errorf("a run that proves no kernel must say so:\n%s", out)
	}
}

// TestShardsMergeToTheWholeRun: the shards of a run together run every
// case once, and their merged JSON reports are the unsharded run's.
func TestShardsMergeToTheWholeRun(t *testing.T) {
	needPython(t)
	o := fakeWorkspace(t, fakeRunner{mode: "same"})
	o.Ops = nil
	whole, _ := runFake(t, o)
	var reports []Report
	for k := 1; k <= 3; k++ {
		o.Shard = Shard{K: k, N: 3}
		part, _ := runFake(t, o)
		if len(part) == 0 || len(part) == len(whole) {
			t.Errorf("shard %d/3 has %d of %d results", k, len(part), len(whole))
		}
		var buf bytes.Buffer
		if err := WriteJSON(&buf, part); err != nil {
			t.Fatal(err)
		}
		rep, err := ReadReport(&buf)
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, rep)
	}
	names := []string{"shard-1.json", "shard-2.json", "shard-3.json"}
	for i := range reports {
		reports[i].Shard = Shard{K: i + 1, N: 3}.String()
	}
	if err := CheckShards(reports, names); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]int{{0, 0, 1}, {0, 1}, {0, 1, 2, 2}} {
		var rs []Report
		var ns []string
		for _, i := range bad {
			rs, ns = append(rs, reports[i]), append(ns, names[i])
		}
		if err := CheckShards(rs, ns); err == nil {
			t.Errorf("merging shards %v is not refused", bad)
		}
	}
	merged := Merge(reports)
	if !reflect.DeepEqual(merged, whole) {
		t.Errorf("merged shards differ from the whole run:\n%v\n%v", merged, whole)
	}
	if !reflect.DeepEqual(NewReport(merged).Summary, NewReport(whole).Summary) {
		t.Error("merged summary differs")
	}
}

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{{"1/1", true}, {"2/4", true}, {"0/4", false}, {"5/4", false}, {"a/b", false}, {"3", false}, {"1/0", false}} {
		if _, err := ParseShard(c.in); (err == nil) != c.ok {
			t.Errorf("ParseShard(%q): %v", c.in, err)
		}
	}
}

// TestUnrun: a skip for want of something here counts against --strict; a
// case the implementation does not take, a pass or a failure do not.
func TestUnrun(t *testing.T) {
	for _, c := range []struct {
		rs   []Result
		want bool
	}{
		{[]Result{{Status: Pass}, {Status: Fail}}, false},
		{[]Result{{Status: Skip, NotTaken: true}}, false},
		{[]Result{{Status: Pass}, {Status: Skip}}, true},
	} {
		if got := Unrun(c.rs); got != c.want {
			t.Errorf("Unrun(%+v) = %v", c.rs, got)
		}
	}
}
