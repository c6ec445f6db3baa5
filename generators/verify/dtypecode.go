package verify

import (
	"slices"

	"github.com/opforge/opforge/generators/ir"
)

// bindDTypeParams sets, in a copy of params, each param that decides an
// input's dtype (an input's dtype_param) to the value naming the dtype
// combo gives that input's slot: the plugin refuses any other pairing, so
// the cases try each dtype with its own value, as the dtype combinations
// of any other slot.
func bindDTypeParams(op *ir.Op, f *ir.Facts, combo []ir.DType, params []Param) []Param {
	if !slices.ContainsFunc(f.Slots, func(s ir.DTypeSlot) bool { return s.ByParam }) {
		return params
	}
	out := slices.Clone(params)
	for i, s := range f.Slots {
		if !s.ByParam {
			continue
		}
		p := op.Params[s.Param]
		v := Param{Name: p.Ident, Kind: string(p.Kind)}
		if p.DTypeCode != nil {
			code, _ := ir.DTypeCodes(p.DTypeCode.Spelling).Code(combo[i])
			v.Value = code
		} else {
			v.Value, v.Index = string(combo[i]), max(slices.Index(p.Values, string(combo[i])), 0)
		}
		out[s.Param] = v
	}
	return out
}

// chosenDType is the dtype param p's case value v names: an enum value's
// name or a dtype code; false when it names none.
func chosenDType(p *ir.Param, v Param) (ir.DType, bool) {
	switch x := v.Value.(type) {
	case string:
		return ir.DType(x), p.DTypeCode == nil && ir.DType(x).Valid()
	case int64:
		if p.DTypeCode == nil {
			return "", false
		}
		if t := ir.DTypeCodes(p.DTypeCode.Spelling); t != nil {
			if r := t.Row(x); r != nil {
				return r.DType, true
			}
		}
	}
	return "", false
}

// codeVariants are the values a dtype code param is tried at: each of its
// codes, as an enum's values (any other value the plugins refuse).
func codeVariants(p *ir.Param) []Param {
	out := make([]Param, len(p.DTypeCode.Codes))
	for i, c := range p.DTypeCode.Codes {
		out[i] = Param{Name: p.Ident, Kind: string(p.Kind), Value: c}
	}
	return out
}
