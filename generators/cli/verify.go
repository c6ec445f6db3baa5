package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/targets"
	"github.com/opforge/opforge/generators/verify"
)

// verifyCmd runs `opforge verify`: every selected op on every target it
// can run here, compared with the op's reference; exit 1 on a mismatch.
func verifyCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := verify.Options{OpDefs: "opdefs", Out: "out", Runners: targets.Verifiers()}
	names := verify.Names(o.Runners)
	fs.StringVar(&o.OpDefs, "opdefs", o.OpDefs, "op definitions directory")
	fs.StringVar(&o.Out, "out", o.Out, "generated tree (out/)")
	fs.StringVar(&o.Python, "python", "", "Python with torch that runs the cases (default $OPFORGE_PYTHON, else python3)")
	fs.StringVar(&o.Build, "build", "build", "build directory (where verify builds the libraries it loads)")
	fs.StringVar(&o.Toolchains, "toolchains", "toolchains", "toolchain descriptors directory")
	format := fs.String("format", "text", "output format: text or json")
	fs.Func("package", "only these packages, comma-separated", func(v string) error {
		o.Packages = append(o.Packages, strings.Split(v, ",")...)
		return nil
	})
	fs.Func("op", "only these ops, comma-separated", func(v string) error {
		o.Ops = append(o.Ops, strings.Split(v, ",")...)
		return nil
	})
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
	if rest, err := parse(fs, args); err != nil || len(rest) > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "opforge verify: unexpected argument %q\n", rest[0])
		}
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "opforge verify: --format is text or json, not %q\n", *format)
		return 2
	}
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
		return report(&l, *format, stdout, stderr)
	}
	if *format == "json" {
		_ = verify.WriteJSON(stdout, results)
	} else {
		verify.WriteText(stdout, results)
	}
	if verify.Failed(results) {
		return 1
	}
	return 0
}
