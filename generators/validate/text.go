package validate

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/workpool"
)

// markerText finds what generators/regions reads as a user-region marker
// (opforge:begin / opforge:end). Free text is copied into comments of the
// generated files, where such a line would open or close a region the
// skeleton does not have; it is refused at the opdef, where the user can
// fix it, instead of failing later inside out/.
var markerText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`opforge:(begin|end)\b`) })

// freeText checks every free-text field of the package.
//
// It returns each op's own list; an op skip reports (read back as
// validation left it) is not checked again.
func (v *validator) freeText(skip func(i int) bool) []diag.List {
	pkg := v.pkg
	v.text("package domain", pkg.Domain, pkg.Where.At("domain", pkg.Pos))
	v.text("package version", pkg.Version, pkg.Where.At("version", pkg.Pos))
	v.text("package namespace", pkg.Namespace, pkg.Where.At("namespace", pkg.Pos))
	// Each op's texts are checked on their own, on every core, into lists
	// joined in op order, as a serial check would give them.
	lists := make([]diag.List, len(pkg.Ops))
	workpool.Parallel(len(pkg.Ops), func(i int) {
		if !skip(i) {
			(&validator{source: pkg.Source, l: &lists[i]}).opText(pkg.Ops[i])
		}
	})
	for i := range lists {
		v.l.Merge(&lists[i])
	}
	return lists
}

// opText checks the free texts of one op.
func (v *validator) opText(op *ir.Op) {
	what := "op " + op.Name
	v.textAt("description of "+what, op.Description, op.Where, "description", op.Pos)
	for _, r := range op.References {
		for _, s := range []string{r.Source, r.URL, r.Text} {
			v.text("reference of "+what, s, op.Where.At("references", op.Pos))
		}
	}
	for _, t := range op.Tensors() {
		tw := quote(t.Name) + " of " + what
		v.textAt("description of "+tw, t.Description, t.Where, "description", t.Pos)
		v.text("shape text of "+tw, t.ShapeText, t.Where.At("shape", t.Pos))
		v.text("dynamic shape of "+tw, t.DynamicShapeText, t.Where.At("dynamic_shape", t.Pos))
		v.constraintText(tw, t.Constraints)
		if t.Default != nil {
			v.literalText("default of "+tw, t.Default, t.Where.At("default", t.Pos))
		}
	}
	for _, p := range op.Params {
		pw := quote(p.Name) + " of " + what
		v.textAt("description of "+pw, p.Description, p.Where, "description", p.Pos)
		v.text("shape text of "+pw, p.ShapeText, p.Where.At("shape", p.Pos))
		for _, val := range p.Values {
			v.text("enum value of "+pw, val, p.Where.At("values", p.Pos))
		}
		v.constraintText(pw, p.Constraints)
		if p.Default != nil {
			v.literalText("default of "+pw, p.Default, p.Where.At("default", p.Pos))
		}
	}
}

func (v *validator) constraintText(what string, cs []ir.Constraint) {
	for _, c := range cs {
		v.text("constraint of "+what, c.Type, c.Pos)
		v.text("constraint of "+what, c.Text, c.Pos)
	}
}

func (v *validator) literalText(what string, lit *ir.Literal, pos diag.Pos) {
	if lit.Pos.Line > 0 {
		pos = lit.Pos
	}
	v.text(what, lit.Text, pos)
	for _, el := range lit.List {
		v.literalText(what, el, pos)
	}
}

// textAt checks a field that may be a literal block, pointing at the line
// of the block that holds the marker.
func (v *validator) textAt(what, s string, w ir.Where, field string, fallback diag.Pos) {
	m := markerIn(s)
	if m == nil {
		return
	}
	pos := w.At(field, fallback)
	if body, ok := w.Lookup(field + ir.LiteralBody); ok {
		body.Line += strings.Count(s[:m[0]], "\n")
		lineStart := strings.LastIndexByte(s[:m[0]], '\n') + 1
		body.Col += utf8.RuneCountInString(s[lineStart:m[0]])
		pos = body
	}
	v.text(what, s, pos)
}

// markerIn is markerText's first match in s (nil: none). Nearly every
// text has no "opforge:" at all, which a search finds faster than the
// regular expression.
func markerIn(s string) []int {
	if !strings.Contains(s, "opforge:") {
		return nil
	}
	return markerText().FindStringIndex(s)
}

func (v *validator) text(what, s string, pos diag.Pos) {
	m := markerIn(s)
	if m == nil {
		return
	}
	v.l.Errorf(pos, "opdef-text-marker", "%s contains %q, which generated files would read as a user-region marker; reword it (for example \"opforge %s\")", what, s[m[0]:m[1]], s[m[0]+8:m[1]])
}
