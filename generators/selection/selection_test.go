package selection

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

func parsed(t *testing.T, args ...string) (Flags, error) {
	t.Helper()
	var s Flags
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s.Register(fs, "packages", "ops")
	err := fs.Parse(args)
	return s, err
}

// One meaning in every command: a flag repeated adds to the list, a
// comma separates names, a name given twice counts once, an empty name is
// a mistake.
func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args      []string
		pkgs, ops []string
		err       string
	}{
		{args: nil},
		{args: []string{"--package", "A"}, pkgs: []string{"A"}},
		{args: []string{"--package", "A,B", "--package", "C"}, pkgs: []string{"A", "B", "C"}},
		{args: []string{"--package", "A", "--package", "A"}, pkgs: []string{"A"}},
		{args: []string{"--op", "X, Y", "--package=P"}, pkgs: []string{"P"}, ops: []string{"X", "Y"}},
		{args: []string{"--op", "X,,Y"}, err: `an empty op name in "X,,Y"`},
		{args: []string{"--package", ""}, err: "an empty package name"},
	} {
		s, err := parsed(t, c.args...)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.args, err, c.err)
			}
		case err != nil:
			t.Errorf("%v: %v", c.args, err)
		case !slices.Equal(s.Packages, c.pkgs) || !slices.Equal(s.Ops, c.ops):
			t.Errorf("%v: packages %v ops %v, want %v %v", c.args, s.Packages, s.Ops, c.pkgs, c.ops)
		}
	}
}

// A command that works on whole packages registers no --op.
func TestFlagsWithoutOp(t *testing.T) {
	var s Flags
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s.Register(fs, "packages", "")
	if err := fs.Parse([]string{"--op", "X"}); err == nil {
		t.Error("--op accepted by a command without it")
	}
}

// Name takes one name, once; a list is refused saying why.
func TestName(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
		err  string
	}{
		{args: nil, want: "MyOps"},
		{args: []string{"--package", "VisionOps"}, want: "VisionOps"},
		{args: []string{"--package", "A,B"}, err: `"A,B" is a list: this command makes one package, so --package takes one name`},
		{args: []string{"--package", "A", "--package", "B"}, err: "given twice"},
		{args: []string{"--package", " "}, err: "an empty name"},
	} {
		name := "MyOps"
		fs := flag.NewFlagSet("init", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		Name(fs, "package", &name, "package name")
		err := fs.Parse(c.args)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.args, err, c.err)
			}
		case err != nil || name != c.want:
			t.Errorf("%v: %q %v, want %q", c.args, name, err, c.want)
		}
	}
}

func pkg(name string, ops ...string) *ir.Package {
	p := &ir.Package{Name: name}
	for _, o := range ops {
		p.Ops = append(p.Ops, &ir.Op{Name: o})
	}
	return p
}

// Resolve keeps the packages selected in load order, and reports every
// unknown name at once with the nearest name, or the names there are.
func TestResolve(t *testing.T) {
	pkgs := []*ir.Package{pkg("ActOps", "Gelu", "SiLU"), pkg("VisionOps", "TopKLast", "RoiAlign")}
	for _, c := range []struct {
		sel   Flags
		kept  []string
		diags []string
	}{
		{sel: Flags{}, kept: []string{"ActOps", "VisionOps"}},
		{sel: Flags{Packages: []string{"VisionOps", "ActOps"}}, kept: []string{"ActOps", "VisionOps"}},
		{sel: Flags{Ops: []string{"TopKLast"}}, kept: []string{"VisionOps"}},
		{sel: Flags{Packages: []string{"ActOps"}, Ops: []string{"SiLU"}}, kept: []string{"ActOps"}},
		{sel: Flags{Packages: []string{"VisionOp"}}, diags: []string{
			`opdefs: error: no package "VisionOp" is defined under opdefs; did you mean "VisionOps"? [unknown-package]`}},
		{sel: Flags{Packages: []string{"Nothing", "visionops"}}, diags: []string{
			`opdefs: error: no package "Nothing" is defined under opdefs; packages: ActOps, VisionOps [unknown-package]`,
			`opdefs: error: no package "visionops" is defined under opdefs; did you mean "VisionOps"? [unknown-package]`}},
		{sel: Flags{Ops: []string{"Silu", "Conv"}}, diags: []string{
			`opdefs: error: no op "Conv" is defined under opdefs; ops: Gelu, SiLU, TopKLast, RoiAlign [unknown-op]`,
			`opdefs: error: no op "Silu" is defined under opdefs; did you mean "SiLU"? [unknown-op]`}},
		// An op of a package not selected is not there.
		{sel: Flags{Packages: []string{"ActOps"}, Ops: []string{"TopKLast"}}, diags: []string{
			`opdefs: error: no op "TopKLast" is in the packages selected (ActOps); ops: Gelu, SiLU [unknown-op]`}},
	} {
		var l diag.List
		kept := c.sel.Resolve(pkgs, "opdefs", &l)
		var got []string
		for _, d := range l.Sorted() {
			got = append(got, d.String())
		}
		if !slices.Equal(got, c.diags) {
			t.Errorf("%+v: diagnostics\n%s\nwant\n%s", c.sel, strings.Join(got, "\n"), strings.Join(c.diags, "\n"))
		}
		if names := ir.PackageNames(kept); !slices.Equal(names, c.kept) {
			t.Errorf("%+v: kept %v, want %v", c.sel, names, c.kept)
		}
	}
}
