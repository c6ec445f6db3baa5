package validate

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/workpool"
)

// versionRE is what a package version may be: it becomes every target's
// plugin or package version and Python strings.
var versionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z._+-]*$`) })

// Package checks pkg and records every problem in l.
func Package(pkg *ir.Package, l *diag.List) { PackageWith(pkg, l, nil) }

// Memo remembers checks an op passed, by a key that names everything the
// check reads; the store scopes it to the generator whose checks they
// are (nil: none remembered).
type Memo interface {
	// Passed reports that check passed for key before.
	Passed(check, key string) bool
	// Pass remembers that check passed for key with no diagnostic.
	Pass(check, key string)
}

// shapesCheck names the shape check in a Memo. It reads the op alone (its
// dims, params, sizes and verify cases, after the op's other checks set
// its ranks) and writes nothing but diagnostics; an op of a YAML opdef is
// known by its package's and its own digests (ir.Package.Digest), which
// cover every byte it is built from, positions left out. So an op whose
// shapes passed once with no diagnostic passes again: the check is the
// largest part of validating an op, and a thousand unchanged ops skip it.
const shapesCheck = "shapes"

// PackageWith is Package, skipping the checks memo says an op passed.
func PackageWith(pkg *ir.Package, l *diag.List, memo Memo) {
	v := &validator{pkg: pkg, source: pkg.Source, l: l}
	v.identifier("package", pkg.Name, pkg.Where.At("name", pkg.Pos))
	if strings.TrimSpace(pkg.Version) == "" {
		l.Errorf(pkg.Where.At("version", pkg.Pos), "package-version", "package %s has an empty version", pkg.Name)
	} else if !versionRE().MatchString(pkg.Version) {
		l.Errorf(pkg.Where.At("version", pkg.Pos), "package-version", "package version %q is not a version: write letters, digits, '.', '_', '+' or '-' starting with a letter or digit (e.g. 1.0.0); it travels into C++, Python and XML configs", pkg.Version)
	}
	// Each op is checked on its own, on every core, into a list of its own;
	// the lists join in op order, so the diagnostics are as a serial check
	// would give them.
	//
	// An op's own checks see of its package only where it was read from
	// (validator.source; an XML config's loader is laxer): what they
	// conclude is then a function of the op and its file, which is what
	// lets a loader keep an op as validation left it and hand it back
	// prevalidated (ir.Package.Validated). Such an op's own checks do not
	// run again, but for the one that reads the file system, which no key
	// covers.
	lists := make([]diag.List, len(pkg.Ops))
	kept := pkg.Validated
	prevalidated := func(i int) bool { return kept != nil && kept.Prevalidated(pkg.Ops[i]) }
	workpool.Parallel(len(pkg.Ops), func(i int) {
		op := pkg.Ops[i]
		if prevalidated(i) {
			(&validator{source: pkg.Source, l: &lists[i]}).onnxOrigin(op)
			return
		}
		key := ""
		if memo != nil && pkg.Digest != "" && op.Digest != "" {
			key = pkg.Digest + " " + op.Digest
		}
		(&validator{source: pkg.Source, l: &lists[i], memo: memo, memoKey: key}).op(op)
	})
	seen := newNameSet(l, "op")
	for i, op := range pkg.Ops {
		pos := op.Where.At("name", op.Pos)
		v.identifier("op", op.Name, pos)
		seen.add(op.Name, op.Name, pos)
		l.Merge(&lists[i])
	}
	texts := v.freeText(prevalidated)
	// What every target derives from an op is derived here, once.
	workpool.Parallel(len(pkg.Ops), func(i int) {
		if !prevalidated(i) || pkg.Ops[i].Facts == nil {
			pkg.Ops[i].Facts = ir.Derive(pkg.Ops[i])
		}
	})
	if kept == nil {
		return
	}
	// An op with no diagnostic of its own is kept as validation left it.
	// The checks across ops above are not its own: they run every time.
	var clean []*ir.Op
	for i, op := range pkg.Ops {
		if !prevalidated(i) && lists[i].Len() == 0 && texts[i].Len() == 0 {
			clean = append(clean, op)
		}
	}
	kept.Keep(clean)
}

type validator struct {
	// pkg is the package, for the package's own checks; an op's own
	// checks have none (nil), only source, the path it was read from:
	// what they conclude must be a function of the op and its file, which
	// lets a loader hand the op back prevalidated (ir.Package.Validated).
	pkg    *ir.Package
	source string
	l      *diag.List
	// memo and memoKey, when set, remember the op's passed checks.
	memo    Memo
	memoKey string
}

// identifier checks a name that becomes a C++/Python/OpenCL identifier as
// is (package and op names: class, file and symbol names derive from it).
func (v *validator) identifier(what, name string, pos diag.Pos) {
	if !names.IsIdent(name) {
		v.l.Errorf(pos, "invalid-identifier", "%s name %q is not an identifier (letters, digits and _; not starting with a digit)", what, name)
		return
	}
	if why := names.Reserved(name); why != "" {
		v.l.Errorf(pos, "reserved-identifier", "%s name %q is %s; rename it", what, name, why)
	}
}

// nameSet finds duplicates three ways: the same name, two names that map
// to the same identifier (in[0] and in_0), and names equal after
// upper-casing (generated constants and case-insensitive file systems).
type nameSet struct {
	l      *diag.List
	what   string
	exact  map[string]diag.Pos
	ident  map[string]string
	folded map[string]folded
}

type folded struct {
	name string
	pos  diag.Pos
}

func newNameSet(l *diag.List, what string) *nameSet {
	return &nameSet{l: l, what: what, exact: map[string]diag.Pos{}, ident: map[string]string{}, folded: map[string]folded{}}
}

func (s *nameSet) add(name, ident string, pos diag.Pos) {
	if first, dup := s.exact[name]; dup {
		s.l.Errorf(pos, "duplicate-name", "duplicate %s name %q (first defined at %s)", s.what, name, lineOf(first))
		return
	}
	s.exact[name] = pos
	if other, dup := s.ident[ident]; dup {
		s.l.Errorf(pos, "identifier-collision", "%s names %q and %q both become the identifier %q in generated code; rename one", s.what, other, name, ident)
		return
	}
	s.ident[ident] = name
	up := strings.ToUpper(ident)
	if other, dup := s.folded[up]; dup {
		s.l.Errorf(pos, "case-collision", "%s names %q (%s) and %q differ only in case; generated constants and file names would collide", s.what, other.name, other.pos, name)
		return
	}
	s.folded[up] = folded{name, pos}
}

func lineOf(p diag.Pos) string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("line %d", p.Line)
}

func (v *validator) op(op *ir.Op) {
	names := newNameSet(v.l, "tensor/param")
	for _, t := range op.Inputs {
		names.add(t.Name, t.Ident, t.Where.At("name", t.Pos))
	}
	for _, t := range op.Outputs {
		names.add(t.Name, t.Ident, t.Where.At("name", t.Pos))
	}
	for _, p := range op.Params {
		names.add(p.Name, p.Ident, p.Where.At("name", p.Pos))
	}
	v.typeVars(op)
	for i, t := range op.Inputs {
		v.tensor(op, t, true, i == len(op.Inputs)-1)
		v.dtypeParam(op, t)
	}
	for i, t := range op.Outputs {
		v.tensor(op, t, false, i == len(op.Outputs)-1)
		v.dtypeParam(op, t)
		v.like(op, t)
		v.broadcast(op, t)
	}
	for _, p := range op.Params {
		v.param(op, p)
		v.dtypeCode(p)
	}
	v.onnxOrigin(op)
	v.verifyCases(op)
	v.narrowings(op)
	v.shapes(op)
	relations(v.l, op)
}

// shapes runs the shape check, unless the memo says the op passed it.
// The memo's key (the digests) leaves out positions and the file's path,
// so the check must read neither: a check that looked at pkg.Source or
// op.ONNX.ModelPath (made from the file's directory), or decided by a
// line number, would need them in the key.
func (v *validator) shapes(op *ir.Op) {
	if v.memoKey == "" {
		newShapeChecker(v.l, op).check()
		return
	}
	if v.memo.Passed(shapesCheck, v.memoKey) {
		return
	}
	var own diag.List
	newShapeChecker(&own, op).check()
	if own.Len() == 0 {
		v.memo.Pass(shapesCheck, v.memoKey)
	}
	v.l.Merge(&own)
}

func (v *validator) typeVars(op *ir.Op) {
	used := map[string]bool{}
	for _, t := range op.Tensors() {
		if t.Type.Var == "" {
			v.dtypeList(t.Type.DTypes, func(i int) diag.Pos {
				return t.Where.At(fmt.Sprintf("type[%d]", i), t.Where.At("type", t.Pos))
			}, "tensor "+quote(t.Name))
			continue
		}
		used[t.Type.Var] = true
		if op.TypeVar(t.Type.Var) == nil {
			declared := make([]string, 0, len(op.TypeVars))
			for _, tv := range op.TypeVars {
				declared = append(declared, tv.Name)
			}
			hint := "no type variables are declared (add `types: {" + t.Type.Var + ": [float32, ...]}`)"
			if len(declared) > 0 {
				hint = "declared type variables: " + strings.Join(declared, ", ")
			}
			if d := ir.SuggestDType(t.Type.Var); d != "" {
				hint = fmt.Sprintf("did you mean the dtype %q?", d)
			}
			v.l.Errorf(t.Where.At("type", t.Pos), "unknown-type", "tensor %q has type %q, which is neither a dtype nor a type variable of op %s; %s", t.Name, t.Type.Var, op.Name, hint)
		}
	}
	for _, tv := range op.TypeVars {
		if !ir.DType(tv.Name).Valid() {
			// A type variable is a C++ template parameter and a Python name.
			v.identifier("type variable", tv.Name, tv.Pos)
		}
		if ir.DType(tv.Name).Valid() {
			// Tensors typed with this name get the dtype, so the variable
			// is necessarily unused; this error says why.
			v.l.Errorf(tv.Pos, "typevar-shadows-dtype", "type variable %q has the name of a dtype; use a name such as T", tv.Name)
		} else if !used[tv.Name] {
			v.l.Warnf(tv.Pos, "unused-typevar", "type variable %q is not used by any tensor of op %s", tv.Name, op.Name)
		}
		v.dtypeList(tv.Allowed, func(i int) diag.Pos {
			if i < len(tv.AllowedPos) {
				return tv.AllowedPos[i]
			}
			return tv.Pos
		}, "type variable "+quote(tv.Name))
	}
}

func (v *validator) dtypeList(list []ir.DType, pos func(int) diag.Pos, what string) {
	seen := map[ir.DType]bool{}
	for i, d := range list {
		if seen[d] {
			v.l.Errorf(pos(i), "duplicate-dtype", "%s lists dtype %s twice; every dtype would generate the same function again", what, d)
		}
		seen[d] = true
	}
}

// quote is fmt's %q (strconv.Quote), without fmt: it names every tensor
// and param of every op while their texts are checked.
func quote(s string) string { return strconv.Quote(s) }

func (v *validator) tensor(op *ir.Op, t *ir.Tensor, input, last bool) {
	kind := "output"
	if input {
		kind = "input"
	}
	if !input && t.Default != nil {
		v.l.Errorf(t.Where.At("default", t.Pos), "output-default", "output %q has a default; outputs cannot have one", t.Name)
	}
	if t.Rank == 0 && !t.Scalar && t.Layout != ir.LayoutNone {
		v.l.Errorf(t.Where.At("layout", t.Pos), "scalar-layout", "%s %q is 0-D but has layout %s; a 0-D tensor has no layout", kind, t.Name, t.Layout)
	} else if want := t.Layout.Rank(); want > 0 && t.Rank != ir.RankAny && t.Rank != want && !v.fromXML() {
		// An XML config's loader warns instead (its vendor's rule).
		v.l.Errorf(t.Where.At("layout", t.Pos), "layout-rank", "%s %q has layout %s, which needs rank %d, but its rank is %d", kind, t.Name, t.Layout, want, t.Rank)
	}
	if t.Variadic && !last {
		v.l.Errorf(t.Where.At("variadic", t.Pos), "variadic-position", "variadic %s %q must be the last %s", kind, t.Name, kind)
	}
	v.count(op, t, kind)
	if t.ShapeTensor {
		for _, d := range op.AllowedDTypes(t) {
			if d != ir.Int32 && d != ir.Int64 {
				v.l.Errorf(t.Where.At("type", t.Pos), "shape-tensor-type", "shape tensor %q must be int32 or int64, not %s", t.Name, d)
				break
			}
		}
		if t.Rank != 1 && t.Rank != ir.RankAny {
			v.l.Errorf(t.Where.At("shape", t.Pos), "shape-tensor-type", "shape tensor %q must be 1-D (its values are sizes), not rank %d", t.Name, t.Rank)
		}
	}
	v.constraintIDs(t.Constraints, kind+" "+quote(t.Name))
}

func (v *validator) constraintIDs(cs []ir.Constraint, what string) {
	seen := map[int]bool{}
	for _, c := range cs {
		if seen[c.ID] {
			v.l.Errorf(c.Pos, "duplicate-constraint-id", "%s has two constraints with id %d", what, c.ID)
		}
		seen[c.ID] = true
	}
}

// fromXML: the package was read from an XML op-package config, whose
// loader applies its vendor generator's rules where they are laxer.
func (v *validator) fromXML() bool {
	return strings.EqualFold(filepath.Ext(v.source), ".xml")
}
