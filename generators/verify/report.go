package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// What a result proves (Result.Check): a kernel check ran code the user
// wrote for the target in a real engine; a wiring check ran the reference
// through the target's glue. "" : the implementation did not run the case.
const (
	Kernel = "kernel"
	Wiring = "wiring"
)

// Failed reports whether any result failed.
func Failed(rs []Result) bool {
	return slices.ContainsFunc(rs, func(r Result) bool { return r.Status == Fail })
}

// Unrun reports whether any case was skipped for want of something here
// (an engine, a library, a reference), not because the implementation
// does not take it (NotTaken).
func Unrun(rs []Result) bool {
	return slices.ContainsFunc(rs, func(r Result) bool { return r.Status == Skip && !r.NotTaken })
}

// WriteText prints one line per result, a summary per op × target, the
// totals, and which ops had a kernel of theirs executed.
func WriteText(w io.Writer, rs []Result) {
	for _, r := range rs {
		line := fmt.Sprintf("%-4s %s/%s %s [%s]", strings.ToUpper(r.Status), r.Package, r.Op, r.Target, r.Case)
		if r.Status != Skip && r.Case != "-" {
			line += fmt.Sprintf(" max_abs=%.3g max_rel=%.3g", r.MaxAbs, r.MaxRel)
		}
		if r.Check != "" {
			line += " " + r.Check + " check"
			if r.Engine != "" {
				line += " in " + r.Engine
			}
		}
		if r.Reason != "" {
			line += ": " + r.Reason
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-40s %-11s %-6s %5s %5s %5s  %s\n", "op", "target", "check", "pass", "fail", "skip", "engine")
	for _, s := range Summarize(rs) {
		check := s.Check
		if check == "" {
			check = "-"
		}
		fmt.Fprintf(w, "%-40s %-11s %-6s %5d %5d %5d  %s\n", s.Package+"/"+s.Op, s.Target, check, s.Pass, s.Fail, s.Skip, s.Engine)
	}
	t := Total(rs)
	fmt.Fprintf(w, "opforge verify: %d passed, %d failed, %d skipped (a skip is not a pass); of the cases run, %d were kernel checks and %d wiring checks\n",
		t.Pass, t.Fail, t.Skip, t.Kernel, t.Wiring)
	k := Kernels(rs)
	line := fmt.Sprintf("opforge verify: a kernel of %d of %d ops was executed (by the engines above)", len(k.Ran), len(k.Ran)+len(k.NotRun))
	if len(k.NotRun) > 0 {
		line += "; nothing executed a kernel of " + strings.Join(k.NotRun, ", ")
	}
	fmt.Fprintln(w, line)
}

// Summary counts an op × target's results and says what its runs proved
// (Check: kernel where any case ran a kernel, else wiring where any ran
// the glue) and in which engines.
type Summary struct {
	Package string `json:"package"`
	Op      string `json:"op"`
	Target  string `json:"target"`
	Check   string `json:"check,omitempty"`
	Engine  string `json:"engine,omitempty"`
	Pass    int    `json:"pass"`
	Fail    int    `json:"fail"`
	Skip    int    `json:"skip"`
}

// Summarize counts results per op × target, in the order they first appear.
func Summarize(rs []Result) []Summary {
	var out []Summary
	var engines [][]string
	idx := map[[3]string]int{}
	for _, r := range rs {
		k := [3]string{r.Package, r.Op, r.Target}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Summary{Package: r.Package, Op: r.Op, Target: r.Target})
			engines = append(engines, nil)
		}
		s := &out[i]
		switch r.Status {
		case Pass:
			s.Pass++
		case Fail:
			s.Fail++
		default:
			s.Skip++
		}
		if r.Check == Kernel || r.Check == Wiring && s.Check == "" {
			s.Check = r.Check
		}
		if r.Engine != "" && !slices.Contains(engines[i], r.Engine) {
			engines[i] = append(engines[i], r.Engine)
			s.Engine = strings.Join(engines[i], "; ")
		}
	}
	return out
}

// Totals count results by status and, of the cases an implementation ran,
// by what they checked.
type Totals struct {
	Pass   int `json:"pass"`
	Fail   int `json:"fail"`
	Skip   int `json:"skip"`
	Kernel int `json:"kernel_checks"`
	Wiring int `json:"wiring_checks"`
}

// Total counts rs.
func Total(rs []Result) Totals {
	var t Totals
	for _, r := range rs {
		switch r.Status {
		case Pass:
			t.Pass++
		case Fail:
			t.Fail++
		default:
			t.Skip++
		}
		switch r.Check {
		case Kernel:
			t.Kernel++
		case Wiring:
			t.Wiring++
		}
	}
	return t
}

// KernelCoverage names the ops (package/op) a kernel of which ran in a
// real engine on at least one case (pass or fail), and those of which
// none ran.
type KernelCoverage struct {
	Ran    []string `json:"ran"`
	NotRun []string `json:"not_run"`
}

// Kernels says, of every op in rs, whether any of its kernels ran.
func Kernels(rs []Result) KernelCoverage {
	var ops []string
	ran := map[string]bool{}
	for _, r := range rs {
		name := r.Package + "/" + r.Op
		if r.Op == "-" {
			continue
		}
		if !slices.Contains(ops, name) {
			ops = append(ops, name)
		}
		if r.Check == Kernel {
			ran[name] = true
		}
	}
	k := KernelCoverage{Ran: []string{}, NotRun: []string{}}
	for _, op := range ops {
		if ran[op] {
			k.Ran = append(k.Ran, op)
		} else {
			k.NotRun = append(k.NotRun, op)
		}
	}
	return k
}

// Report is verify's JSON: every result, the summary per op × target, the
// totals and the kernel coverage. Shards' reports merge into one (Merge).
type Report struct {
	Results []Result       `json:"results"`
	Summary []Summary      `json:"summary"`
	Totals  Totals         `json:"totals"`
	Kernels KernelCoverage `json:"kernels"`
	// Shard is "K/N" when the report is one shard's.
	Shard string `json:"shard,omitempty"`
}

// NewReport makes rs's report.
func NewReport(rs []Result) Report {
	if rs == nil {
		rs = []Result{}
	}
	s := Summarize(rs)
	if s == nil {
		s = []Summary{}
	}
	return Report{Results: rs, Summary: s, Totals: Total(rs), Kernels: Kernels(rs)}
}

// WriteJSON prints rs's report (NewReport) as JSON.
func WriteJSON(w io.Writer, rs []Result) error { return WriteReport(w, NewReport(rs)) }

func WriteReport(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadReport reads a report WriteJSON wrote.
func ReadReport(r io.Reader) (Report, error) {
	var rep Report
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// CheckShards says what is wrong with merging reports (read from names):
// every one must be a shard of the same N, each K once, all N of them.
func CheckShards(reports []Report, names []string) error {
	n := 0
	seen := map[int]string{}
	for i, r := range reports {
		s, err := ParseShard(r.Shard)
		if err != nil {
			return fmt.Errorf("%s is not a shard's report (no \"shard\": K/N; run opforge verify --shard K/N --format json)", names[i])
		}
		if n == 0 {
			n = s.N
		}
		if s.N != n {
			return fmt.Errorf("%s is shard %s, %s is of %d shards", names[i], r.Shard, names[0], n)
		}
		if prev, dup := seen[s.K]; dup {
			return fmt.Errorf("%s and %s are both shard %d/%d", prev, names[i], s.K, n)
		}
		seen[s.K] = names[i]
	}
	var missing []string
	for k := 1; k <= n; k++ {
		if _, ok := seen[k]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("shard %s missing: the merge would not be the whole run", strings.Join(missing, ", "))
	}
	return nil
}

// Merge joins shards' results into the results of one run: the results
// in the order the unsharded run gives them (each result carries its
// place, Result.Seq), so the summary is the same.
func Merge(reports []Report) []Result {
	var rs []Result
	for _, r := range reports {
		rs = append(rs, r.Results...)
	}
	slices.SortStableFunc(rs, func(a, b Result) int { return a.Seq - b.Seq })
	return rs
}
