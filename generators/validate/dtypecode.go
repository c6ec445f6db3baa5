package validate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/ir"
)

// dtypeCode checks a param whose value is a dtype's code (dtype_code,
// codes): a scalar integer param, a spelling with a code table, and codes
// that table has, each once; its default, if any, is one of them.
func (v *validator) dtypeCode(p *ir.Param) {
	c := p.DTypeCode
	if c == nil {
		return
	}
	at := p.Where.At("dtype_code", p.Pos)
	if c.Spelling == "" {
		v.l.Errorf(p.Where.At("codes", p.Pos), "dtype-code", "param %q lists codes but no dtype_code; say which spelling they are in (dtype_code: %s)", p.Name, strings.Join(ir.DTypeCodeNames(), " or "))
		return
	}
	if p.Kind != ir.ParamScalar || slices.ContainsFunc(p.DTypes, func(d ir.DType) bool { return !d.IsInteger() }) {
		v.l.Errorf(p.Where.At("type", p.Pos), "dtype-code", "param %q holds a dtype code (dtype_code: %s), so it must be one integer (type: int32), not %s", p.Name, c.Spelling, paramTypeWords(p))
		return
	}
	table := ir.DTypeCodes(c.Spelling)
	if table == nil {
		v.l.Errorf(at, "dtype-code", "param %q: unknown dtype_code %q; the spellings are %s", p.Name, c.Spelling, strings.Join(ir.DTypeCodeNames(), ", "))
		return
	}
	if len(c.Codes) == 0 {
		v.l.Errorf(at, "dtype-code", "param %q holds a %s code but lists no codes; list the ones the op accepts (codes: [...])", p.Name, table.Title)
		return
	}
	for i, code := range c.Codes {
		switch {
		case table.Row(code) == nil:
			v.l.Errorf(c.CodesPos[i], "dtype-code", "param %q: %d is no %s code of a dtype opforge knows; the codes are %s", p.Name, code, table.Title, table.Listing())
		case slices.Index(c.Codes, code) < i:
			v.l.Errorf(c.CodesPos[i], "dtype-code", "param %q lists code %d twice", p.Name, code)
		}
	}
	if p.Default != nil && p.Default.Kind == ir.LitInt {
		if d, err := strconv.ParseInt(p.Default.Text, 10, 64); err == nil && !slices.Contains(c.Codes, d) {
			v.l.Errorf(p.Where.At("default", p.Pos), "dtype-code", "param %q defaults to %d, which is not among its codes (%s)", p.Name, d, codesText(c.Codes))
		}
	}
}

// paramTypeWords names a param's kind and dtypes for messages.
func paramTypeWords(p *ir.Param) string {
	if len(p.DTypes) == 0 {
		return "a " + string(p.Kind) + " param"
	}
	ds := make([]string, len(p.DTypes))
	for i, d := range p.DTypes {
		ds[i] = string(d)
	}
	return "a " + string(p.Kind) + " of " + strings.Join(ds, " or ")
}

func codesText(codes []int64) string {
	s := make([]string, len(codes))
	for i, c := range codes {
		s[i] = strconv.FormatInt(c, 10)
	}
	return strings.Join(s, ", ")
}
