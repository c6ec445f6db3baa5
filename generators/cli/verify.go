package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/selection"
	"github.com/opforge/opforge/generators/verify"
)

// verifyCmd runs `opforge verify`: every selected op on every target it
// can run here, compared with the op's reference; exit 1 on a mismatch.
func verifyCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := verify.Options{OpDefs: "opdefs", Out: "out", Runners: registry.Verifiers(), RunnerTarget: registry.VerifierTargets()}
	names := verify.Names(o.Runners)
	o.Build, o.Toolchains = "build", "toolchains"
	fs.StringVar(&o.OpDefs, "opdefs", o.OpDefs, "op definitions directory (default: the op repository's opdefs/)")
	locs := append([]location{{"opdefs", &o.OpDefs, "opdefs"}}, buildLocations(fs, &o.Out, &o.Build, &o.Toolchains)...)
	fs.StringVar(&o.Python, "python", "", "Python with torch that runs the cases (default $OPFORGE_PYTHON, else python3)")
	format := fs.String("format", "text", "output format: text or json")
	fs.DurationVar(&o.CaseTimeout, "case-timeout", verify.DefaultCaseTimeout, "longest a runner may spend on one stage (importing torch, loading an implementation, one case) before it is killed and the case fails")
	fs.Func("shard", "run part K of N of the op × target × case list (K/N; merge the parts' --format json with --merge)", func(v string) error {
		s, err := verify.ParseShard(v)
		o.Shard = s
		return err
	})
	strict := fs.Bool("strict", false, "exit 1 when a case is a skip for want of something here (an engine, a library, a reference) too: CI's runner that lost its engine must not pass quietly (cases an implementation does not take stay skips)")
	merge := fs.Bool("merge", false, "read the JSON reports of shards (the arguments) and print their merged report, running nothing")
	var sel selection.Flags
	sel.Register(fs, "only these packages", "only these ops")
	fs.Func("target", "only these targets, comma-separated: "+strings.Join(names, ", "), func(v string) error {
		for _, t := range strings.Split(v, ",") {
			if !slices.Contains(names, t) {
				return fmt.Errorf("no target %q; targets: %s", t, strings.Join(names, ", "))
			}
			o.Targets = append(o.Targets, t)
		}
		return nil
	})
	var rtol, atol *float64
	tol := func(dst **float64) func(string) error {
		return func(v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 || f != f {
				return fmt.Errorf("want a number >= 0, got %q", v)
			}
			*dst = &f
			return nil
		}
	}
	fs.Func("rtol", "relative tolerance for every float output (default per dtype)", tol(&rtol))
	fs.Func("atol", "absolute tolerance for every float output (default per dtype)", tol(&atol))
	rest, err := parse(fs, args)
	if err != nil {
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "opforge verify: --format is text or json, not %q\n", *format)
		return 2
	}
	if *merge {
		return mergeReports(rest, *format, *strict, stdout, stderr)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "opforge verify: unexpected argument %q\n", rest[0])
		return 2
	}
	at, ok := settle("verify", fs, locs, []string{"opdefs", "out"}, stderr)
	if !ok || !existingDir("verify", "opdefs", o.OpDefs, stderr) {
		return 1
	}
	// Verify builds what it loads: from the root, as `opforge build`
	// does, so the two share their builds from whatever folder they run.
	back, prefix, err := at.atRoot(locs, nil)
	if err != nil {
		fmt.Fprintf(stderr, "opforge verify: %v\n", err)
		return 1
	}
	defer back()
	o.Packages, o.Ops = sel.Packages, sel.Ops
	if rtol != nil || atol != nil {
		o.Tolerances = map[string][2]float64{}
		for dtype, d := range verify.DefaultTolerances {
			if rtol != nil {
				d[0] = *rtol
			}
			if atol != nil {
				d[1] = *atol
			}
			o.Tolerances[dtype] = d
		}
	}
	var l diag.List
	results := verify.Run(o, &l)
	if l.HasErrors() {
		return report(rebased(&l, prefix), *format, stdout, stderr)
	}
	return writeResults(results, o.Shard, *format, *strict, stdout)
}

// writeResults prints a run's (or a shard's) results; exit 1 on a failure,
// or under strict on a skip.
func writeResults(results []verify.Result, shard verify.Shard, format string, strict bool, stdout io.Writer) int {
	if format == "json" {
		rep := verify.NewReport(results)
		rep.Shard = shard.String()
		_ = verify.WriteReport(stdout, rep)
	} else {
		verify.WriteText(stdout, results)
	}
	if verify.Failed(results) || strict && verify.Unrun(results) {
		return 1
	}
	return 0
}

// mergeReports prints the merged report of shards' JSON reports.
func mergeReports(files []string, format string, strict bool, stdout, stderr io.Writer) int {
	if len(files) == 0 {
		fmt.Fprintln(stderr, "opforge verify --merge: name the shards' JSON reports (opforge verify --shard K/N --format json > shard-K.json)")
		return 2
	}
	var reports []verify.Report
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "opforge verify --merge: %v\n", err)
			return 2
		}
		rep, err := verify.ReadReport(bytes.NewReader(data))
		if err != nil {
			fmt.Fprintf(stderr, "opforge verify --merge: %s is not a report of opforge verify --format json: %v\n", f, err)
			return 2
		}
		reports = append(reports, rep)
	}
	if err := verify.CheckShards(reports, files); err != nil {
		fmt.Fprintf(stderr, "opforge verify --merge: %v\n", err)
		return 2
	}
	return writeResults(verify.Merge(reports), verify.Shard{}, format, strict, stdout)
}
