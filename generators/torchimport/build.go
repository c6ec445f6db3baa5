package torchimport

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/shapeexpr"
	"github.com/opforge/opforge/generators/target"
)

// Options are what import torch builds the package with.
type Options struct {
	// Module is the module as the user named it (a name or a .py file).
	Module string
	// Package names the package ("": from the ops' namespace).
	Package, Domain, Version string
	// Targets the ops generate for.
	Targets []string
	// Source is the opdef file written ("-": standard output).
	Source string
}

// Result is the imported package and the warnings import prints at the
// lines of the written opdef.
type Result struct {
	Package  *ir.Package
	Warnings []Warning
}

// Warning is a warning for the user to confirm something, placed once
// the opdef is written: at the op, or at one of its tensors or params.
type Warning struct {
	Op, Item, Code, Message string
}

// Build makes the package of the report's ops; errors (what an opdef
// cannot express) go to l, positioned at the module's registration of the
// op where the module is a file that names it.
func Build(rep *Report, opts Options, l *diag.List) *Result {
	res := &Result{}
	pkg := &ir.Package{Name: opts.Package, Domain: opts.Domain, Version: opts.Version, Source: opts.Source}
	for _, o := range rep.Ops {
		pos := registration(rep.File, opts.Module, o.Op)
		if o.Error != "" {
			l.Errorf(pos, "torch-import", "%s: %s", o.Op, o.Error)
			continue
		}
		op := buildOp(o, opts, pos, l, res)
		if op != nil {
			pkg.Ops = append(pkg.Ops, op)
		}
	}
	if l.HasErrors() || len(pkg.Ops) == 0 {
		return nil
	}
	ns, _, _ := strings.Cut(rep.Ops[0].Op, "::")
	if pkg.Name == "" {
		pkg.Name = PackageName(ns)
	}
	if pkg.Domain == "" {
		pkg.Domain = strings.ToLower(pkg.Name)
	}
	if pkg.Version == "" {
		pkg.Version = "1.0.0"
	}
	pkg.Namespace = pkg.Domain
	res.Package = pkg
	return res
}

// PackageName is the package of a torch namespace: its words in
// PascalCase with "Ops" after them, so the package's own torch namespace
// (its name in snake case, where the generated registration puts the
// ops) differs from the one the user's module registers: both load in
// one process (the reference imports the user's module).
func PackageName(ns string) string {
	return pascal(ns) + "Ops"
}

func pascal(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '.' || r == '-' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// registration is where the module registers the op: the first line of
// its file that names NS::NAME (or the file itself), else the module.
func registration(file, module, qualname string) diag.Pos {
	// A file the user named is shown as named; a module by name, as the
	// file Python found.
	if strings.HasSuffix(module, ".py") {
		file = module
	}
	if file == "" {
		return diag.Pos{File: module}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return diag.Pos{File: file}
	}
	for i, line := range strings.Split(string(data), "\n") {
		if c := strings.Index(line, qualname); c >= 0 {
			return diag.Pos{File: file, Line: i + 1, Col: c + 1}
		}
	}
	return diag.Pos{File: file}
}

func buildOp(o OpReport, opts Options, pos diag.Pos, l *diag.List, res *Result) *ir.Op {
	ns, name, _ := strings.Cut(o.Op, "::")
	op := &ir.Op{Name: pascal(name), Torch: &ir.TorchOrigin{Module: moduleRef(opts.Module, opts.Source), Op: o.Op}}
	warn := func(item, code, format string, args ...any) {
		res.Warnings = append(res.Warnings, Warning{Op: op.Name, Item: item, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	ok := true
	for _, a := range o.Args {
		if a.Kind == "unsupported" {
			l.Errorf(pos, "torch-import", "%s: argument %s is a %s, which an opdef cannot express (inputs are tensors or optional tensors; params are int, float, bool, str and int/float lists); wrap the op in one that takes it otherwise", o.Op, a.Name, a.Type)
			ok = false
		}
		if a.Kind != "tensor" && a.Optional {
			l.Errorf(pos, "torch-import", "%s: argument %s is an optional %s; an opdef param always has a value: give it a default in the schema", o.Op, a.Name, strings.TrimSuffix(strings.TrimPrefix(a.Type, "Optional["), "]"))
			ok = false
		}
	}
	if o.Inputs == nil && ok {
		l.Errorf(pos, "torch-import", "%s: returns something other than tensors (%s); an opdef's outputs are tensors", o.Op, o.Schema)
		ok = false
	}
	if !ok {
		return nil
	}
	op.Description = fmt.Sprintf("Imported from torch.ops.%s.%s of %s (schema %s). Dtypes: %s.", ns, name, opts.Module, o.Schema, o.DTypeSource)
	op.TypeVars = []*ir.TypeVar{{Name: "T", Allowed: dtypes(o.DTypes)}}
	if len(o.Notes) > 0 {
		warn("", "torch-dtypes", "%s", strings.Join(o.Notes, "; "))
	}
	for _, in := range o.Inputs {
		t := &ir.Tensor{Name: in.Name, Ident: names.Ident(in.Name), Type: ir.TypeRef{Var: "T"}, Optional: in.Optional, Rank: ir.RankAny}
		switch {
		case in.Rank != nil:
			t.RankRange = &ir.RankRange{Min: in.Rank[0], Max: in.Rank[1]}
		case in.Absent:
			warn(in.Name, "torch-optional-input", "the fake kernel took %s in no rank 1-6 with the other inputs as probed: its rank is any; give its shape", in.Name)
		default:
			t.Rank = len(in.Dims)
			t.Shape = dims(in.Dims, o.Op, in.Name, pos, l)
		}
		op.Inputs = append(op.Inputs, t)
	}
	for _, a := range o.Args {
		if a.Kind != "tensor" {
			op.Params = append(op.Params, param(a))
			if a.Kind == "str" {
				warn(a.Name, "torch-str-param", "%s is a str in the schema, imported as a string param; if the op takes a fixed set of values, make it an enum (type: enum, values: [...]): the schema does not say, and the targets without string params need it", a.Name)
			}
		}
	}
	for _, out := range o.Outputs {
		op.Outputs = append(op.Outputs, output(op, out, o.Op, pos, l, warn))
	}
	op.Torch.Triton = tritonKernel(o.Triton, op, o.Outputs, warn)
	op.Sections = sections(opts.Targets, op.Name)
	return op
}

// moduleRef is the module as the opdef records it: a name as given, a
// file relative to the opdef's directory.
func moduleRef(module, opdef string) string {
	if !strings.HasSuffix(module, ".py") {
		return module
	}
	dir := "."
	if opdef != "" && opdef != "-" {
		dir = filepath.Dir(opdef)
	}
	absDir, err1 := filepath.Abs(dir)
	absMod, err2 := filepath.Abs(module)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(module)
	}
	if r, err := filepath.Rel(absDir, absMod); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(absMod)
}

func dtypes(list []string) []ir.DType {
	var out []ir.DType
	for _, d := range list {
		out = append(out, ir.DType(d))
	}
	return out
}

func dims(texts []string, op, tensor string, pos diag.Pos, l *diag.List) []*ir.Dim {
	var out []*ir.Dim
	for _, s := range texts {
		e, err := shapeexpr.Parse(s)
		if err != nil {
			l.Errorf(pos, "torch-shape", "%s: a dim of %s is %q in torch's symbolic shapes, which no opforge shape expression writes (%v)", op, tensor, s, err)
			continue
		}
		out = append(out, &ir.Dim{Expr: e})
	}
	return out
}

func output(op *ir.Op, out OutputReport, qualname string, pos diag.Pos, l *diag.List, warn func(item, code, format string, args ...any)) *ir.Tensor {
	t := &ir.Tensor{Name: out.Name, Ident: names.Ident(out.Name), Rank: ir.RankAny}
	if out.DType == "T" {
		t.Type = ir.TypeRef{Var: "T"}
	} else {
		t.Type = ir.TypeRef{DTypes: []ir.DType{ir.DType(out.DType)}}
	}
	if len(out.Unknown) > 0 {
		l.Errorf(pos, "torch-shape", "%s: output %s has dims %s in torch's symbolic shapes, which no opforge shape expression writes (%s)", qualname, out.Name, strings.Join(out.Dims, ", "), strings.Join(out.Unknown, ", "))
		return t
	}
	if out.Like != "" {
		t.Like = &ir.ShapeLike{Input: out.Like, Axis: out.Axis, Mode: ir.AxisMode(out.Mode)}
		if out.Keep != "" {
			t.Like.Mode, t.Like.KeepParam = ir.AxisKeepIf, out.Keep
		}
		if out.Replace != nil {
			if e, err := shapeexpr.Parse(*out.Replace); err == nil {
				t.Like.Replace = &ir.Dim{Expr: e}
			} else {
				l.Errorf(pos, "torch-shape", "%s: output %s: %v", qualname, out.Name, err)
			}
		}
		if out.Confirm != "" {
			warn(out.Name, "torch-output-shape", "%s", out.Confirm)
		}
		return t
	}
	t.Rank = len(out.Dims)
	t.Shape = dims(out.Dims, qualname, out.Name, pos, l)
	if out.FixedRankNote != "" {
		warn(out.Name, "torch-rank", "%s", out.FixedRankNote)
	}
	for _, dd := range out.DataDependent {
		upper := upperBound(op)
		op.DataDependent = append(op.DataDependent, &ir.SizeSymbol{Name: dd.Name, Upper: upper})
		warn(out.Name, "torch-data-dependent", "%s's size %s is data-dependent (torch's unbacked %s); opforge bounds it by %s, the elements of the inputs: confirm the bound (data_dependent.%s.upper)", out.Name, dd.Name, dd.Sympy, upper, dd.Name)
	}
	return t
}

// upperBound is a data-dependent size's default bound: the product of the
// first input's dims (a nonzero-like op's most), or 1.
func upperBound(op *ir.Op) *shapeexpr.Expr {
	var parts []string
	for _, in := range op.Inputs {
		for _, d := range in.Shape {
			parts = append(parts, d.Expr.String())
		}
		if len(parts) > 0 {
			break
		}
	}
	if len(parts) == 0 {
		parts = []string{"1"}
	}
	e, _ := shapeexpr.Parse(strings.Join(parts, " * "))
	return e
}

func param(a Arg) *ir.Param {
	p := &ir.Param{Name: a.Name, Ident: names.Ident(a.Name), Mandatory: !a.HasDefault}
	elem := a.Kind
	switch a.Kind {
	case "int", "float":
		p.Kind = ir.ParamScalar
	case "bool":
		p.Kind = ir.ParamBool
	case "str":
		p.Kind = ir.ParamString
	case "list":
		p.Kind, elem = ir.ParamArray, a.Elem
		if a.N != nil {
			p.Length = *a.N
		}
	}
	switch elem {
	case "int":
		p.DTypes = []ir.DType{ir.Int32}
	case "float":
		p.DTypes = []ir.DType{ir.Float32}
	case "bool":
		p.DTypes = []ir.DType{ir.Bool}
	}
	if a.HasDefault && a.Default != nil {
		p.Default = literal(a.Default, elem)
	}
	return p
}

func literal(v any, elem string) *ir.Literal {
	switch x := v.(type) {
	case []any:
		l := &ir.Literal{Kind: ir.LitList}
		for _, e := range x {
			l.List = append(l.List, literal(e, elem))
		}
		return l
	case bool:
		return &ir.Literal{Kind: ir.LitBool, Text: strconv.FormatBool(x)}
	case string:
		return &ir.Literal{Kind: ir.LitString, Text: x}
	case float64:
		if elem == "int" && x == math.Trunc(x) {
			return &ir.Literal{Kind: ir.LitInt, Text: strconv.FormatInt(int64(x), 10)}
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		return &ir.Literal{Kind: ir.LitFloat, Text: s}
	}
	return &ir.Literal{Kind: ir.LitString, Text: fmt.Sprint(v)}
}

// sections are the op's target sections: each target's import section,
// its torch import section where it has one (target.TorchImporter; it
// may turn on a Python implementation whose Triton region an op's
// brought-along Triton kernel fills). A runtime that calls the op by a
// torch name takes the origin's (torch: in the opdef), so the sections
// need not say it.
func sections(targets []string, opName string) ir.Sections {
	var secs ir.Sections
	importers := registry.Importers()
	for _, tg := range registry.All() {
		im := importers[tg.Name()]
		if im == nil || !slices.Contains(targets, tg.Name()) {
			continue
		}
		n := im.ImportSection(opName, opName)
		if ti, ok := im.(target.TorchImporter); ok {
			n = ti.TorchImportSection(opName)
		}
		secs.Add(tg.Name(), n, diag.Pos{})
	}
	return secs
}

// Place reports the warnings at the lines of the written opdef (data, as
// file): each at its tensor or param, else at its op.
func Place(file string, data []byte, ws []Warning, l *diag.List) {
	var pl diag.List
	pkg := load.Parse(file, data, &pl)
	for _, w := range ws {
		pos := diag.Pos{File: file}
		if pkg != nil {
			if op := pkg.Op(w.Op); op != nil {
				pos = op.Pos
				for _, t := range op.Tensors() {
					if t.Name == w.Item {
						pos = t.Pos
					}
				}
				for _, p := range op.Params {
					if p.Name == w.Item {
						pos = p.Pos
					}
				}
			}
		}
		l.Warnf(pos, w.Code, "op %s: %s", w.Op, w.Message)
	}
}
